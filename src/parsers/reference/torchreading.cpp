// The reference's TorchReading (_read_torch_profile of profile_parser.py): where Python would
// crash, the metadata through _coerce_float, else the passes over the last "traceEvents".
#include "reference/torchconsumer.h"

#include "reference/pyjson.h"
#include "syntax/jsonscanner.h"
#include "syntax/objectmembers.h"
#include "torchtraceparser.h"

namespace goblin::reference {

using kineto::Capture;
using kineto::DocumentRoot;
using kineto::ReferenceMode;

namespace {

/// Deepest nesting that Python 3.11's json module decodes when called from the reference through
/// oracle.py (994 levels raise RecursionError, which the reference does not catch). Measured; the
/// exact value moves by a level or two with the caller's stack depth. Not modelled: a syntax error
/// raised one or two levels below that depth also ends in RecursionError (while Python builds the
/// JSONDecodeError); the reference then crashes where this reading reports the JSON error.
constexpr size_t kPythonMaxNesting = 993;

} // namespace

void TorchConsumer::finish(const kineto::KinetoDocument &document, TorchTrace &out)
{
    auto diag = [&](Severity severity, qint64 line, const QString &message) {
        out.diagnostics.push_back({severity, document.name, line, message});
    };
    const JsonScanner &scanner = *document.scanner;
    TorchReading &r = out.reference;
    auto crash = [&](const QString &what) {
        r.readFailed = true;
        r.readFailure = QStringLiteral("the reference would crash here: %1").arg(what);
    };
    if (document.mode == ReferenceMode::CrashesOnGzip && document.compressed) {
        diag(Severity::Warning, 0,
             QStringLiteral("the file is gzip-compressed although it is named .json: the workbench decompresses it, "
                            "the reference would crash reading it as text"));
        crash(QStringLiteral("UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b in position 1: invalid start "
                             "byte (the file is gzip-compressed; read_text() does not decompress)"));
        return;
    }
    if (document.invalidUtf8Bytes > 0) {
        crash(QStringLiteral("UnicodeDecodeError: %1").arg(document.utf8Reason));
        return;
    }
    if (document.bom) {
        r.readFailed = true;
        r.readFailure = QStringLiteral("Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)");
        return;
    }
    if (scanner.maxDepthSeen() > kPythonMaxNesting) {
        crash(QStringLiteral("RecursionError: maximum recursion depth exceeded while decoding a JSON array from a "
                             "unicode string (nesting %1 levels deep)")
                  .arg(scanner.maxDepthSeen()));
        diag(Severity::Warning, 0,
             QStringLiteral("JSON nested %1 levels deep: the reference (Python's json, at most %2 levels) would crash "
                            "on this file")
                 .arg(scanner.maxDepthSeen())
                 .arg(kPythonMaxNesting));
        return;
    }
    if (scanner.failed()) {
        r.readFailed = true;
        r.readFailure = syntax::pythonJsonMessage(scanner.errorMessage(), scanner.errorLine(), scanner.errorColumn(),
                                          scanner.errorOffset());
        return;
    }
    if (document.root == DocumentRoot::Array && document.events > 0)
        diag(Severity::Info, 1,
             QStringLiteral("a top-level list of %1 trace events (the Trace Event Format's array form): the reference "
                            "profile reads nothing from it (it reads only {\"traceEvents\": [...]}), the workbench "
                            "profile reads the list as traceEvents")
                 .arg(document.events));
    if (document.root != DocumentRoot::Object)
        return;  // isinstance(data, dict) fails: metadata and events are None

    bool overflow = false;
    if (const Capture *meta = document.lastCapture("metadata")) {
        if (meta->overflow) {
            diag(Severity::Warning, meta->line,
                 QStringLiteral("the reference reading ignores the oversized \"metadata\" and may differ"));
        } else {
            syntax::ObjectMembers members;
            if (members.parse(meta->text)) {
                r.tokensPerSec = coerceFloat(members.get("tokens_per_sec"), &overflow);
                r.mfuPct = coerceFloat(members.get("mfu_pct"), &overflow);
                const std::optional<syntax::PyValue> pytorch = members.get("pytorch_version");
                const std::optional<syntax::PyValue> torch = members.get("torch_version");
                if (pytorch && pythonTruthy(*pytorch))
                    r.pytorchVersion = toQJsonValue(*pytorch);
                else if (torch && pythonTruthy(*torch))
                    r.pytorchVersion = toQJsonValue(*torch);
                r.stepTimeSeconds = coerceFloat(members.get("step_time_seconds"), &overflow);
                r.hostBusyFraction = coerceFloat(members.get("host_busy_fraction"), &overflow);
                if (r.stepTimeSeconds)
                    r.stepTimeSource = QStringLiteral("metadata step_time_seconds");
                if (r.hostBusyFraction)
                    r.hostBusySource = QStringLiteral("metadata host_busy_fraction");
            }
        }
    }
    if (overflow) {
        *(&r) = TorchReading{};
        crash(QStringLiteral("OverflowError: int too large to convert to float (a metadata value)"));
        diag(Severity::Warning, 0, QStringLiteral("a metadata number is too large for a double: the reference would crash"));
        return;
    }
    if (!document.lastTraceEventsIsList)
        return;
    const ReferenceEvents empty;
    const ReferenceEvents &events = m_ref.generation == document.lastTraceEventsGeneration ? m_ref : empty;
    if (!r.stepTimeSeconds) {
        if (events.stepPassOverflow) {
            r = TorchReading{};
            crash(QStringLiteral("OverflowError: int too large to convert to float (an event's ts or dur)"));
            diag(Severity::Warning, 0, QStringLiteral("an event's ts or dur is too large for a double: the reference "
                                                      "would crash"));
            return;
        }
        r.stepTimeSeconds = events.stepTime();
        if (events.stepCount > 0) {
            r.profilerSteps = int(events.stepCount);
            r.stepTimeSource = QStringLiteral("mean of %1 events named ProfilerStep* (CPU and GPU lanes alike)")
                                   .arg(events.stepCount);
        } else if (r.stepTimeSeconds) {
            r.stepTimeSource = QStringLiteral("trace span (no ProfilerStep events)");
        }
    }
    if (!r.hostBusyFraction) {
        if (events.hostPassOverflow) {
            r = TorchReading{};
            crash(QStringLiteral("OverflowError: int too large to convert to float (an event's ts or dur)"));
            diag(Severity::Warning, 0, QStringLiteral("an event's ts or dur is too large for a double: the reference "
                                                      "would crash"));
            return;
        }
        r.hostBusyFraction = events.hostBusy();
        if (r.hostBusyFraction)
            r.hostBusySource = QStringLiteral("sum of cpu_op durations (nested ops counted twice) / trace span");
    }
}

} // namespace goblin::reference
