#include "reference/kernelrows.h"

#include "columnresolver.h"
#include "syntax/csvreader.h"
#include "kernels/celltext.h"
#include "pynumber.h"

#include <climits>
#include <cmath>
#include <optional>

namespace goblin::reference
{

namespace
{

using kernels::headerNames;
using kernels::shown;

/// Python's TextIOWrapper decodes 8 KiB at a time; a decode error is raised when the chunk
/// holding the bad byte is decoded, which decides whether it comes before a csv.Error.
constexpr qint64 kPythonDecodeChunk = 8192;

__extension__ typedef __int128 Int128;

/// int(float(text)) as Python computes it, in 128 bits.
struct PyInt {
    enum class Status { Ok, ValueError, Infinite, Huge };
    Status status = Status::ValueError;
    Int128 value = 0;
};

PyInt pythonInt128(std::string_view text)
{
    PyInt out;
    bool overflow = false;
    const std::optional<long long> v = pythonIntOfFloat(text, &overflow);
    if (v) {
        out.status = PyInt::Status::Ok;
        out.value = *v;
        return out;
    }
    if (!overflow)
        return out; // ValueError (syntax or NaN)
    const double f = *pythonFloat(text);
    if (std::isinf(f)) {
        out.status = PyInt::Status::Infinite;
        return out;
    }
    const double t = std::trunc(f);
    if (std::fabs(t) >= 0x1p126) { // a timing value past 1e37 ns: not worth big-integer code
        out.status = PyInt::Status::Huge;
        return out;
    }
    out.status = PyInt::Status::Ok;
    out.value = static_cast<Int128>(t); // exact: t is an integer below 2^126
    return out;
}

} // namespace

void failKernelReading(KernelReading &r, const QString &failure, qint64 line, bool crash)
{
    r.readFailed = true;
    r.readFailure = failure;
    r.wouldCrash = crash;
    r.failureLine = line;
}

void KernelRows::onHeader(const std::vector<std::string_view> &fields, const CsvReader &reader, InputFileInfo &info)
{
    const QStringList header = headerNames(fields, true);
    const ResolvedColumn name =
        resolveReferenceColumn(header, {QStringLiteral("KernelName"), QStringLiteral("Kernel_Name"),
                                        QStringLiteral("kernel_name"), QStringLiteral("Name")});
    const ResolvedColumn start = resolveReferenceColumn(
        header, {QStringLiteral("BeginNs"), QStringLiteral("start_ns"), QStringLiteral("BeginNS"), QStringLiteral("Start")});
    const ResolvedColumn end = resolveReferenceColumn(
        header, {QStringLiteral("EndNs"), QStringLiteral("end_ns"), QStringLiteral("EndNS"), QStringLiteral("End")});
    const ResolvedColumn duration = resolveReferenceColumn(
        header, {QStringLiteral("DurationNs"), QStringLiteral("duration_ns"), QStringLiteral("Duration")});
    m_name = name.index;
    m_start = start.index;
    m_end = end.index;
    m_duration = duration.index;
    m_agent = resolveExactColumn(headerNames(fields, false), {QStringLiteral("Agent_Id"), QStringLiteral("gpu-id"),
                                                               QStringLiteral("GPU_ID"), QStringLiteral("Device")})
                  .index;
    info.referenceColumns.push_back({QStringLiteral("kernel_name"), name.name, name.reason(), QString()});
    info.referenceColumns.push_back({QStringLiteral("start"), start.name, start.reason(), QStringLiteral("ns")});
    info.referenceColumns.push_back({QStringLiteral("end"), end.name, end.reason(), QStringLiteral("ns")});
    info.referenceColumns.push_back({QStringLiteral("duration"), duration.name,
                                     duration.found()
                                         ? duration.reason() + QStringLiteral("; used when the cell is not empty")
                                         : duration.reason(),
                                     QStringLiteral("ns")});
    if (reader.exceededPythonFieldLimit()) {
        m_stopped = true;
        m_event = Event::FieldLimit;
        m_eventLine = reader.pythonFieldLimitLine();
        m_eventRecordEnd = reader.bytesConsumed();
    }
}

void KernelRows::event(Event e, std::string_view text, qint64 line, qint64 consumed)
{
    if (e == Event::BeyondInt64) {
        // Python goes on with its big integer; a later crash or csv.Error still decides the
        // outcome, so keep reading.
        m_beyondRow = true;
        if (m_beyondLine == 0) {
            m_beyondLine = line;
            m_beyondText = shown(text);
        }
        return;
    }
    m_stopped = true;
    m_event = e;
    m_eventLine = line;
    m_eventRecordEnd = consumed;
    m_eventText = shown(text);
}

void KernelRows::onRecord(const std::vector<std::string_view> &fields, const CsvReader &reader, qint64 line,
                          qint64 consumed)
{
    if (m_stopped)
        return;
    if (reader.exceededPythonFieldLimit()) {
        m_stopped = true;
        m_event = Event::FieldLimit;
        m_eventLine = reader.pythonFieldLimitLine();
        m_eventRecordEnd = consumed;
        return;
    }
    // DictReader: a header position past the row's end reads as None.
    auto cell = [&](int column) -> const std::string_view * {
        return column >= 0 && size_t(column) < fields.size() ? &fields[size_t(column)] : nullptr;
    };
    KernelReading &r = *m_acc.reading;
    const std::string_view *nameCell = cell(m_name);
    const std::string_view name = nameCell ? pythonStrip(*nameCell) : std::string_view();
    if (name.empty()) {
        ++r.rowsSkippedNoName;
        return;
    }
    // Python ints are unbounded: compute in 128 bits, so a huge end minus a huge start still
    // gives the right duration; only a duration (or total) beyond 64 bits cannot be followed.
    Int128 duration = 0;
    bool unreadable = false;
    m_beyondRow = false;
    // int(float(text)): false when the reference stops (OverflowError on inf).
    auto convert = [&](std::string_view text, PyInt &out) {
        out = pythonInt128(text);
        if (out.status == PyInt::Status::Infinite) {
            event(Event::Overflow, text, line, consumed);
            return false;
        }
        if (out.status == PyInt::Status::Huge) {
            event(Event::BeyondInt64, text, line, consumed);
            return false;
        }
        return true;
    };
    const std::string_view *durCell = cell(m_duration);
    const std::string_view *startCell = cell(m_start);
    const std::string_view *endCell = cell(m_end);
    if (durCell && !durCell->empty()) {
        PyInt v;
        if (convert(*durCell, v)) {
            if (v.status == PyInt::Status::Ok)
                duration = v.value;
            else
                unreadable = true;
        }
    } else if (startCell && endCell && !startCell->empty() && !endCell->empty()) {
        // int(float(end)) - int(float(start)): end is converted first.
        PyInt endValue, startValue;
        if (convert(*endCell, endValue)) {
            if (endValue.status != PyInt::Status::Ok) {
                unreadable = true;
            } else if (convert(*startCell, startValue)) {
                if (startValue.status != PyInt::Status::Ok)
                    unreadable = true;
                else if (__builtin_sub_overflow(endValue.value, startValue.value, &duration))
                    event(Event::BeyondInt64, *endCell, line, consumed);
            }
        }
    }
    if (!m_stopped && !m_beyondRow && !unreadable && duration > 0 &&
        (duration > LLONG_MAX || r.totalNs > LLONG_MAX - qint64(duration)))
        event(Event::BeyondInt64, durCell && !durCell->empty() ? *durCell : *endCell, line, consumed);
    // A row Python keeps with a big integer cannot be represented; the reading fails at the end
    // unless a crash or csv.Error comes first.
    if (m_stopped || m_beyondRow)
        return;
    if (unreadable) {
        ++r.rowsSkippedUnreadable;
    } else if (duration <= 0) {
        ++r.rowsSkippedNonPositive;
    } else {
        m_acc.use(m_names(m_name, name), qint64(duration));
        if (startCell && endCell) {
            const std::optional<long long> startValue = pythonIntOfFloat(*startCell);
            const std::optional<long long> endValue = pythonIntOfFloat(*endCell);
            if (startValue && endValue)
                m_acc.span(*startValue, *endValue);
        }
        if (const std::string_view *agentCell = cell(m_agent))
            m_acc.agents.add(m_host, pythonStrip(*agentCell));
    }
}

void KernelRows::finish(const CsvReader &reader, const QString &rel, Diagnostics &diags)
{
    KernelReading &r = *m_acc.reading;
    const qint64 badUtf8 = reader.firstInvalidUtf8Offset();
    bool decodeFirst = badUtf8 >= 0;
    if (decodeFirst && m_event != Event::None) {
        const qint64 decodedUpTo = (m_eventRecordEnd + kPythonDecodeChunk - 1) / kPythonDecodeChunk * kPythonDecodeChunk;
        decodeFirst = badUtf8 < decodedUpTo;
    }
    if (decodeFirst) {
        const qint64 l = reader.firstInvalidUtf8Line();
        failKernelReading(r,
                          QStringLiteral("the reference would crash here: bytes at line %1 are not valid UTF-8 "
                                         "(UnicodeDecodeError, which it does not catch)")
                              .arg(l),
                          l, true);
    } else if (m_event == Event::FieldLimit) {
        failKernelReading(r, QStringLiteral("field larger than field limit (131072)"), m_eventLine, false);
        diags.push_back({Severity::Warning, rel, m_eventLine,
                         QStringLiteral("a field longer than 131072 characters: Python's csv module stops here "
                                        "(field larger than field limit (131072)), so the reference reads no "
                                        "kernels from this file")});
    } else if (m_event == Event::Overflow) {
        failKernelReading(r,
                          QStringLiteral("the reference would crash here: cannot convert float infinity to integer "
                                         "(OverflowError at line %1, value %2, which it does not catch)")
                              .arg(m_eventLine)
                              .arg(m_eventText),
                          m_eventLine, true);
        diags.push_back({Severity::Warning, rel, m_eventLine,
                         QStringLiteral("timing value %1 is infinite: the reference would stop with OverflowError "
                                        "here")
                             .arg(m_eventText)});
    } else if (m_beyondLine > 0) {
        failKernelReading(r,
                          QStringLiteral("a duration at line %1 (from %2) or the running total is beyond the 64-bit "
                                         "range; the reference's arithmetic on it cannot be reproduced")
                              .arg(m_beyondLine)
                              .arg(m_beyondText),
                          m_beyondLine, false);
    }
    if (r.readFailed)
        m_acc.clearStats();
}

} // namespace goblin::reference
