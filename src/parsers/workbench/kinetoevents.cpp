// One trace event as both readings interpret it: its seven members collected (from simdjson, or
// located by JsonScanner), typed as json.loads types them, added to the reference's passes in
// document order, and read by the workbench (steps, CPU operators, launches, the GPU timeline).
#include "kineto/tracereader.h"

#include "syntax/jsontoken.h"

#include <cstring>

namespace goblin::kineto {

using syntax::classify;
using syntax::endsWithIgnoreCase;
using syntax::PyValue;
using syntax::startsWith;
using syntax::trimJson;
using workbench::addInterval;

namespace {

/// Does the raw key (bytes after the opening quote, no escapes in this event) equal `key`?
template <size_t N>
inline bool rawKeyIs(const char *raw, const char (&key)[N])
{
    return std::memcmp(raw, key, N - 1) == 0 && raw[N - 1] == '"';
}

/// The event's "pid" token as written (the process key of the GPU timeline's host busy).
std::string_view eventPid(const EventFields &fields)
{
    return (fields.have & (1u << kPidKey)) ? trimJson(fields.token[kPidKey]) : std::string_view();
}

bool isWaitForGpu(std::string_view name)
{
    // These ops block the host until the GPU catches up: the host is idle, not busy.
    return endsWithIgnoreCase(name, "synchronize") || name == "aten::item" || name == "aten::_local_scalar_dense";
}

} // namespace

bool TraceReader::collectFields(simdjson::ondemand::object object, bool escapes, const char *eventEnd,
                                EventFields &fields)
{
    for (auto fieldResult : object) {
        simdjson::ondemand::field field;
        if (std::move(fieldResult).get(field) != simdjson::SUCCESS)
            return false;
        int which = -1;  // 0 ph, 1 cat, 2 name, 3 ts, 4 dur, 5 args, 6 pid
        if (!escapes) {
            const char *raw = field.key().raw();
            switch (raw[0]) {
            case 'p': which = rawKeyIs(raw, "ph") ? 0 : rawKeyIs(raw, "pid") ? kPidKey : -1; break;
            case 'a': which = rawKeyIs(raw, "args") ? kArgsKey : -1; break;
            case 'c': which = rawKeyIs(raw, "cat") ? 1 : -1; break;
            case 'n': which = rawKeyIs(raw, "name") ? 2 : -1; break;
            case 't': which = rawKeyIs(raw, "ts") ? 3 : -1; break;
            case 'd': which = rawKeyIs(raw, "dur") ? 4 : -1; break;
            default: break;
            }
        } else {
            // Resolved by hand: simdjson rejects lone surrogates (\ud800) that Python keeps.
            const char *raw = field.key().raw();
            size_t length = 0;
            while (raw[length] != '"')
                length += raw[length] == '\\' ? 2 : 1;
            const std::string key = JsonScanner::unescape(std::string_view(raw, length));
            which = key == "ph" ? 0 : key == "cat" ? 1 : key == "name" ? 2 : key == "ts" ? 3 : key == "dur" ? 4
                  : key == "args" ? kArgsKey : key == "pid" ? kPidKey : -1;
        }
        if (which >= 0) {
            // Later duplicates win, as in a Python dict.
            fields.token[which] = field.value().raw_json_token();
            fields.have |= quint8(1u << which);
            if (which == kArgsKey && !fields.token[which].empty() && fields.token[which][0] == '{')
                fields.token[which] = std::string_view(fields.token[which].data(),
                                                       size_t(eventEnd - fields.token[which].data()));
        }
        // The value is skipped by the next iteration.
    }
    return true;
}

void TraceReader::handleEvent(simdjson::ondemand::object object, const EventSpan &span, const char *eventEnd)
{
    EventFields &fields = m_fields;
    fields.have = 0;
    if (!collectFields(object, span.escapes, eventEnd, fields)) {
        m_batchError = true;
        return;
    }
    applyEvent(fields, span);
}

void TraceReader::applyEvent(const EventFields &fields, const EventSpan &span)
{
    const std::string_view phToken = fields.token[0], catToken = fields.token[1], nameToken = fields.token[2],
                           tsToken = fields.token[3], durToken = fields.token[4];
    const bool havePh = fields.have & 1u, haveCat = fields.have & 2u, haveName = fields.have & 4u,
               haveTs = fields.have & 8u, haveDur = fields.have & 16u;
    const PyValue ph = havePh ? classify(phToken) : PyValue{};
    const PyValue cat = haveCat ? classify(catToken) : PyValue{};
    const PyValue name = haveName ? classify(nameToken) : PyValue{};
    const PyValue ts = haveTs ? classify(tsToken) : PyValue{};
    const PyValue dur = haveDur ? classify(durToken) : PyValue{};
    // Strings stay views into the buffer unless this event has escapes to resolve.
    std::string_view nameText, catText, phText;
    if (name.isString()) {
        if (span.escapes) {
            m_nameText = syntax::stringValue(name);
            nameText = m_nameText;
        } else {
            nameText = name.rawBody();
        }
    }
    if (cat.isString()) {
        if (span.escapes) {
            m_catText = syntax::stringValue(cat);
            catText = m_catText;
        } else {
            catText = cat.rawBody();
        }
    }
    if (ph.isString()) {
        if (span.escapes) {
            m_phText = syntax::stringValue(ph);
            phText = m_phText;
        } else {
            phText = ph.rawBody();
        }
    }

    ++m_events;

    // Reference: the events of the last "traceEvents" only (a later key replaces the dict entry).
    if (span.generation != m_ref.generation) {
        m_ref = reference::ReferenceEvents{};
        m_ref.generation = span.generation;
    }
    m_ref.add(name, cat, ts, dur, nameText, catText);

    // Workbench.
    if (cat.isString() && (catText == "Operator" || catText == "Runtime" || catText == "Kernel"))
        m_sawOperatorCategory = true;
    const bool complete = ph.isString() && phText == "X";
    if (!complete)
        return;
    auto timeOf = [&](const PyValue &v, const char *what) -> std::optional<qint64> {
        if (v.kind == PyValue::Int || v.kind == PyValue::Float) {
            const bool literal = !v.raw.empty() && (v.raw[0] == 'N' || v.raw[0] == 'I' || (v.raw.size() > 1 && v.raw[1] == 'I'));
            if (literal) {
                ++m_nonFiniteTimeEvents;
                m_eventIssues.add(span.line, QStringLiteral("\"%1\" is %2 (a NaN/Infinity literal, not valid JSON); "
                                                            "event ignored")
                                                 .arg(QLatin1String(what))
                                                 .arg(QString::fromUtf8(v.raw.data(), qsizetype(v.raw.size()))));
                return std::nullopt;
            }
            if (auto ns = microsToNs(v))
                return ns;
        }
        const QString shown = v.kind == PyValue::Missing
                                  ? QStringLiteral("missing")
                                  : QStringLiteral("%1").arg(QString::fromUtf8(v.raw.data(), qsizetype(std::min<size_t>(v.raw.size(), 40))));
        m_eventIssues.add(span.line, QStringLiteral("complete event with unusable \"%1\" (%2); event ignored")
                                         .arg(QLatin1String(what), shown));
        return std::nullopt;
    };
    const std::optional<qint64> tsNs = timeOf(ts, "ts");
    if (!tsNs) {
        ++m_badTimeEvents;
        return;
    }
    const std::optional<qint64> durNs = timeOf(dur, "dur");
    if (!durNs) {
        ++m_badTimeEvents;
        return;
    }
    if (*durNs < 0) {
        ++m_badTimeEvents;
        m_eventIssues.add(span.line, QStringLiteral("complete event with negative \"dur\"; event ignored"));
        return;
    }
    const qint64 begin = *tsNs;
    const qint64 end = *tsNs + *durNs;
    m_spanBeginNs = std::min(m_spanBeginNs, begin);
    m_spanEndNs = std::max(m_spanEndNs, end);
    if (!cat.isString() || !name.isString())
        return;
    collectTimeline(fields, span, catText, nameText, begin, end);
    const bool cpuOp = catText == "cpu_op" || catText == "Operator";
    if (startsWith(nameText, "ProfilerStep#")) {
        // The CPU lane's step; the GPU lane repeats the name as gpu_user_annotation with the
        // duration of the GPU work, which is not the step time.
        if (catText == "user_annotation" || cpuOp) {
            m_steps.push_back({begin, end});  // kept apart: their count is the step count
            m_stepDurationSumNs += *durNs;
            m_gpu.addStep(nameText, begin, end, false);
            m_gpu.markStepProcess(eventPid(fields));  // the training process
        } else if (catText == "gpu_user_annotation") {
            ++m_gpuLaneSteps;
            m_gpu.addStep(nameText, begin, end, true);
        }
        return;
    }
    if (cpuOp) {
        if (isWaitForGpu(nameText)) {
            addInterval(m_wait, begin, end);
        } else {
            addInterval(m_busy, begin, end);
            m_gpu.addCpuOp(eventPid(fields), begin, end);  // the GPU timeline's host busy, per process
        }
        ++m_cpuOps;
    } else if (catText == "cuda_runtime" || catText == "Runtime") {
        m_runtimeStarts.push_back(begin);  // to check that the CPU operators cover the launches
    } else if (catText == "user_annotation" && startsWith(nameText, "Optimizer.step#")) {
        ++m_optimizerSteps;  // one per optimizer.step(): a step count when ProfilerStep is missing
    }
}

void TraceReader::collectTimeline(const EventFields &fields, const EventSpan &span, std::string_view catText,
                                  std::string_view nameText, qint64 begin, qint64 end)
{
    if (const std::optional<GpuEventKind> kind = kineto::gpuEventKind(catText)) {
        const kineto::DeviceStream where = (fields.have & (1u << kArgsKey))
                                               ? kineto::readDeviceStream(trimJson(fields.token[kArgsKey]))
                                               : kineto::DeviceStream{};
        if (where.device && where.stream)
            m_gpu.addDeviceEvent(*kind, nameText, *where.device, *where.stream, begin, end);
        else
            m_gpu.countUnplaced(span.line);
    } else if (catText == "gpu_user_annotation" && startsWith(nameText, "Optimizer.step")) {
        m_gpu.addStep(nameText, begin, end, true);
    }
    // ProfilerStep windows and the host's operators are collected in applyEvent(), where the
    // workbench reading sorts them. Host busy counts CPU operators only (cat cpu_op; Kineto 2021:
    // Operator), as the workbench's host-busy fraction does, without the ops that block until the
    // GPU catches up (synchronize, aten::item: the host waits, it does not work). user_annotation
    // spans are not operators: ProfilerStep covers the whole step, and record_function /
    // Optimizer.step spans cover regions whose real work is the operators nested in them (counted
    // themselves), so counting them would call the host busy through its launch gaps.
}

} // namespace goblin::kineto
