// The workbench's reading of each trace event (steps, CPU operators, launches, the GPU timeline),
// and the merge of byte ranges read on other threads.
#include "workbench/kinetoconsumer.h"

#include "redaction.h"
#include "syntax/jsontoken.h"

#include <QString>

#include <algorithm>
#include <optional>

namespace goblin::workbench {

using kineto::EventFields;
using kineto::kArgsKey;
using kineto::kPidKey;
using kineto::KinetoEvent;
using syntax::endsWithIgnoreCase;
using syntax::PyValue;
using syntax::startsWith;
using syntax::trimJson;

namespace {

/// The event's "pid" token as written (the process key of the GPU timeline's host busy).
std::string_view eventPid(const EventFields &fields)
{
    return (fields.have & (1u << kPidKey)) ? trimJson(fields.token[kPidKey]) : std::string_view();
}

/// A data-loading range, as the TensorBoard profiler's DataLoader category counted them:
/// `enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__` (an operator in 2021 traces, a
/// user_annotation since), and user annotations that name a DataLoader. Operators are only
/// tested on their first byte: the lane holds hundreds of thousands of them.
bool isDataLoading(std::string_view name, bool annotation)
{
    if (!name.empty() && name[0] == 'e' && startsWith(name, "enumerate(DataLoader)"))
        return true;
    return annotation && name.find("DataLoader") != std::string_view::npos;
}

bool isWaitForGpu(std::string_view name)
{
    // These ops block the host until the GPU catches up: the host is idle, not busy.
    return endsWithIgnoreCase(name, "synchronize") || name == "aten::item" || name == "aten::_local_scalar_dense";
}

} // namespace

void KinetoConsumer::onEvent(const KinetoEvent &event)
{
    const EventFields &fields = event.fields;
    const kineto::EventSpan &span = event.span;
    const PyValue &ph = event.ph, &cat = event.cat, &name = event.name, &ts = event.ts, &dur = event.dur;
    const std::string_view phText = event.phText, catText = event.catText, nameText = event.nameText;
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
                                                 .arg(inputExcerpt(v.raw)));
                return std::nullopt;
            }
            if (auto ns = &v == &event.ts ? event.timesNs().tsNs : event.timesNs().durNs)
                return ns;
        }
        const QString shown = v.kind == PyValue::Missing
                                  ? QStringLiteral("missing")
                                  : inputExcerpt(v.raw, 40);
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
    collectTimeline(event, begin, end);
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
    if (cpuOp || catText == "user_annotation")
        if (isDataLoading(nameText, !cpuOp))
            m_gpu.addDataLoading(eventPid(fields), begin, end);
    // One per optimizer.step(): the steps' cut when ProfilerStep is missing. Today's torch records
    // it as a user_annotation, Kineto 2021 as an Operator (cpu_op): both are the CPU lane, and an
    // operator one stays host work below.
    if ((cpuOp || catText == "user_annotation") && startsWith(nameText, "Optimizer.step#")) {
        ++m_optimizerSteps;
        m_optimizerStepWindows.push_back({begin, end});
        if (m_optimizerStepName.empty()) {
            m_optimizerStepName = std::string(nameText);
            m_optimizerStepPid = std::string(eventPid(fields));
        }
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
    }
}

void KinetoConsumer::collectTimeline(const KinetoEvent &event, qint64 begin, qint64 end)
{
    const EventFields &fields = event.fields;
    const std::string_view catText = event.catText, nameText = event.nameText;
    if (const std::optional<GpuEventKind> kind = kineto::gpuEventKind(catText)) {
        const kineto::DeviceStream where = kineto::deviceStreamOf(fields);
        if (where.device && where.stream)
            m_gpu.addDeviceEvent(*kind, nameText, *where.device, *where.stream, begin, end);
        else
            m_gpu.countUnplaced(event.span.line);
    } else if (catText == "gpu_user_annotation" && startsWith(nameText, "Optimizer.step")) {
        ++m_gpuLaneSteps;
        m_gpu.addStep(nameText, begin, end, true);
    }
    // ProfilerStep windows and the host's operators are collected in onEvent(), where the
    // workbench reading sorts them. Host busy counts CPU operators only (cat cpu_op; Kineto 2021:
    // Operator), as the workbench's host-busy fraction does, without the ops that block until the
    // GPU catches up (synchronize, aten::item: the host waits, it does not work). user_annotation
    // spans are not operators: ProfilerStep covers the whole step, and record_function /
    // Optimizer.step spans cover regions whose real work is the operators nested in them (counted
    // themselves), so counting them would call the host busy through its launch gaps.
}

void KinetoConsumer::finishRange()
{
    // Unions are all the intervals are used for: merged here, on the range's thread, they are
    // fewer to hand over.
    mergeIntervals(m_busy);
    mergeIntervals(m_wait);
    m_gpu.compact();
}

void KinetoConsumer::absorb(kineto::EventConsumer &laterRange, int)
{
    KinetoConsumer &range = static_cast<KinetoConsumer &>(laterRange);
    m_sawOperatorCategory = m_sawOperatorCategory || range.m_sawOperatorCategory;
    m_steps.insert(m_steps.end(), range.m_steps.begin(), range.m_steps.end());
    m_stepDurationSumNs += range.m_stepDurationSumNs;
    m_busy.insert(m_busy.end(), range.m_busy.begin(), range.m_busy.end());
    m_wait.insert(m_wait.end(), range.m_wait.begin(), range.m_wait.end());
    m_spanBeginNs = std::min(m_spanBeginNs, range.m_spanBeginNs);
    m_spanEndNs = std::max(m_spanEndNs, range.m_spanEndNs);
    m_gpuLaneSteps += range.m_gpuLaneSteps;
    m_badTimeEvents += range.m_badTimeEvents;
    m_cpuOps += range.m_cpuOps;
    m_optimizerSteps += range.m_optimizerSteps;
    m_optimizerStepWindows.insert(m_optimizerStepWindows.end(), range.m_optimizerStepWindows.begin(),
                                  range.m_optimizerStepWindows.end());
    if (m_optimizerStepName.empty()) {
        m_optimizerStepName = std::move(range.m_optimizerStepName);
        m_optimizerStepPid = std::move(range.m_optimizerStepPid);
    }
    m_rangeRuntimeStarts.push_back(std::move(range.m_runtimeStarts));
    m_nonFiniteTimeEvents += range.m_nonFiniteTimeEvents;
    m_gpu.absorb(std::move(range.m_gpu));
}

} // namespace goblin::workbench
