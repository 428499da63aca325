// The host lanes of a Kineto trace. This runs on every event of multi-GB traces: an event is
// rejected on the first byte of its "ph" and category, a kept one costs one 24-byte record, a name
// lookup in the pool (the names repeat: a few thousand distinct ops) and a thread compared with
// the previous event's; nothing is allocated per event.
#include "workbench/hostlanesconsumer.h"

#include "kineto/gpuevents.h"
#include "results/torchtrace.h"
#include "syntax/jsontoken.h"
#include "workbench/tracetraitsconsumer.h"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace goblin::workbench {

using kineto::KinetoEvent;
using syntax::startsWith;
using syntax::trimJson;

namespace {

std::string_view tokenOf(const kineto::EventFields &fields, int key)
{
    return (fields.have & (1u << key)) ? trimJson(fields.token[key]) : std::string_view();
}

/// A pid/tid token's number: 25738, "25738" (2021 traces write tid as a string); 0 otherwise.
qint64 numberOf(std::string_view token)
{
    if (token.size() >= 2 && token.front() == '"' && token.back() == '"')
        token = token.substr(1, token.size() - 2);
    qint64 value = 0;
    const auto r = std::from_chars(token.data(), token.data() + token.size(), value);
    return r.ec == std::errc() ? value : 0;
}

/// As KinetoConsumer counts data loading: `enumerate(DataLoader)#…`, and annotations naming a
/// DataLoader.
bool isDataLoading(std::string_view name, bool annotation)
{
    if (!name.empty() && name[0] == 'e' && startsWith(name, "enumerate(DataLoader)"))
        return true;
    return annotation && name.find("DataLoader") != std::string_view::npos;
}

bool isStep(std::string_view name) { return !name.empty() && name[0] == 'P' && startsWith(name, "ProfilerStep#"); }

} // namespace

void HostLanesConsumer::onEvent(const KinetoEvent &event)
{
    if (event.phText.size() != 1 || event.phText[0] != 'X' || event.catText.empty() || !event.name.isString())
        return;
    const std::string_view cat = event.catText, name = event.nameText;
    // Host categories by their first byte, then whole; GPU ones for their correlation.
    HostSliceKind kind = HostSliceKind::Count;
    bool gpu = false;
    switch (cat[0]) {
    case 'c':
        if (cat == "cpu_op")
            kind = isStep(name) ? HostSliceKind::Step : isDataLoading(name, false) ? HostSliceKind::DataLoading : HostSliceKind::CpuOp;
        else if (cat == "cuda_runtime" || cat == "cuda_driver")
            kind = HostSliceKind::Runtime;
        break;
    case 'O':
        if (cat == "Operator")
            kind = isStep(name) ? HostSliceKind::Step : isDataLoading(name, false) ? HostSliceKind::DataLoading : HostSliceKind::CpuOp;
        break;
    case 'R':
        if (cat == "Runtime")
            kind = HostSliceKind::Runtime;
        break;
    case 'u':
        if (cat == "user_annotation")
            kind = isStep(name) ? HostSliceKind::Step : isDataLoading(name, true) ? HostSliceKind::DataLoading : HostSliceKind::Annotation;
        break;
    case 'p':
        // Only the module ranges of the Python stack: its other frames are many and say little here.
        if (cat == "python_function" && !name.empty() && name[0] == 'n' && startsWith(name, "nn.Module:"))
            kind = HostSliceKind::Module;
        break;
    case 'k':
    case 'g':
    case 'K':
    case 'M':
        gpu = kineto::gpuEventKind(cat).has_value();
        break;
    default:
        break;
    }
    if (kind == HostSliceKind::Count && !gpu)
        return;
    const KinetoEvent::TimesMemo &times = event.timesNs();
    if (!times.tsNs || !times.durNs || *times.durNs < 0)
        return;  // KinetoConsumer diagnoses these
    if (gpu)
        onGpu(event, *times.tsNs);
    else
        onHost(event, kind, *times.tsNs, *times.tsNs + *times.durNs);
}

std::uint16_t HostLanesConsumer::threadOf(std::string_view pid, std::string_view tid)
{
    if (m_lastThread < m_threads.size()) {
        const Thread &last = m_threads[m_lastThread];
        if (last.tid == tid && last.pid == pid)
            return m_lastThread;
    }
    for (std::size_t i = 0; i < m_threads.size(); ++i)
        if (m_threads[i].tid == tid && m_threads[i].pid == pid)
            return m_lastThread = std::uint16_t(i);
    const std::uint16_t added = m_lanes.addThread(numberOf(pid), numberOf(tid));
    if (added == kernels::HostLanesBuilder::kNoThread)
        return added;
    m_threads.push_back({std::string(pid), std::string(tid)});
    return m_lastThread = added;
}

void HostLanesConsumer::onHost(const KinetoEvent &event, HostSliceKind kind, qint64 beginNs, qint64 endNs)
{
    const std::uint16_t thread = threadOf(tokenOf(event.fields, kineto::kPidKey), tokenOf(event.fields, kineto::kTidKey));
    if (kind == HostSliceKind::Runtime)
        if (const std::optional<qint64> c = eventArgIds(event, false).correlation) {
            m_lanes.addRuntime(event.nameText, thread, beginNs, endNs, *c);
            return;
        }
    m_lanes.add(kind, event.nameText, thread, beginNs, endNs);
}

void HostLanesConsumer::onGpu(const KinetoEvent &event, qint64 beginNs)
{
    const kineto::EventFields &fields = event.fields;
    const kineto::DeviceStream where = kineto::deviceStreamOf(fields);
    if (!where.device || !where.stream)
        return;
    if (const std::optional<qint64> c = eventArgIds(event, false).correlation)
        m_lanes.addGpu(beginNs, *c, qint32(*where.device), qint32(*where.stream));
}

void HostLanesConsumer::finishRange()
{
    m_lanes.shrink();
}

void HostLanesConsumer::absorb(kineto::EventConsumer &laterRange, int)
{
    HostLanesConsumer &range = static_cast<HostLanesConsumer &>(laterRange);
    // The range keyed its own threads by their tokens: map them onto this reader's.
    std::vector<std::uint16_t> threadOfRange(range.m_threads.size());
    for (std::size_t i = 0; i < threadOfRange.size(); ++i)
        threadOfRange[i] = threadOf(range.m_threads[i].pid, range.m_threads[i].tid);
    m_lanes.absorb(range.m_lanes, threadOfRange);
    range.m_threads = {};
}

HostLanes HostLanesConsumer::build()
{
    return m_lanes.build();
}

void HostLanesConsumer::finish(const kineto::KinetoDocument &document, TorchTrace &out)
{
    // KinetoConsumer (before this one) has just added the document's timeline file.
    if (out.timeline.files.empty() || m_lanes.empty())
        return;
    auto lanes = std::make_shared<HostLanes>(m_lanes.build());
    kernels::hostLanesDiagnostics(*lanes, m_lanes.threadOverflow(), document.name, out.diagnostics);
    m_lanes.clear();
    out.timeline.files.back().hostLanes = std::move(lanes);
}

} // namespace goblin::workbench
