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

constexpr std::uint8_t kDropped = 0xff;  // depth of a slice nested past HostLanes::kMaxDepth

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

/// GPU correlations by device, stream and start: grouped by (device, stream) first (a counting
/// sort over the few streams), then each stream checked, as Kineto writes a stream in order.
std::vector<GpuCorrelation> sortedByPlace(const std::vector<GpuCorrelation> &events)
{
    std::vector<std::pair<qint32, qint32>> places;
    std::vector<std::uint32_t> placeOf(events.size());
    std::size_t last = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const std::pair<qint32, qint32> p{events[i].device, events[i].stream};
        if (last >= places.size() || places[last] != p) {
            last = std::size_t(std::find(places.begin(), places.end(), p) - places.begin());
            if (last == places.size())
                places.push_back(p);
        }
        placeOf[i] = std::uint32_t(last);
    }
    std::vector<std::uint32_t> rank(places.size());
    std::iota(rank.begin(), rank.end(), 0u);
    std::sort(rank.begin(), rank.end(), [&](auto a, auto b) { return places[a] < places[b]; });
    std::vector<std::size_t> start(places.size() + 1, 0);
    std::vector<std::uint32_t> rankOf(places.size());
    for (std::size_t r = 0; r < rank.size(); ++r)
        rankOf[rank[r]] = std::uint32_t(r);
    for (std::uint32_t p : placeOf)
        ++start[rankOf[p] + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    std::vector<GpuCorrelation> out(events.size());
    std::vector<std::size_t> fill(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < events.size(); ++i)
        out[fill[rankOf[placeOf[i]]]++] = events[i];
    const auto byStart = [](const GpuCorrelation &a, const GpuCorrelation &b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.correlation < b.correlation;
    };
    for (std::size_t r = 0; r + 1 < start.size(); ++r)
        if (!std::is_sorted(out.begin() + qsizetype(start[r]), out.begin() + qsizetype(start[r + 1]), byStart))
            std::sort(out.begin() + qsizetype(start[r]), out.begin() + qsizetype(start[r + 1]), byStart);
    return out;
}

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
    if (m_threads.size() >= 0xffff)
        return 0xffff;
    m_threads.push_back({std::string(pid), std::string(tid)});
    return m_lastThread = std::uint16_t(m_threads.size() - 1);
}

void HostLanesConsumer::onHost(const KinetoEvent &event, HostSliceKind kind, qint64 beginNs, qint64 endNs)
{
    const std::uint16_t thread = threadOf(tokenOf(event.fields, kineto::kPidKey), tokenOf(event.fields, kineto::kTidKey));
    if (thread == 0xffff) {
        ++m_threadOverflow;
        return;
    }
    if (kind == HostSliceKind::Runtime)
        if (const std::optional<qint64> c = eventArgIds(event, false).correlation)
            m_runtime.push_back({std::uint32_t(m_slices.size()), *c});
    m_slices.push_back({beginNs, endNs, m_names.intern(event.nameText), thread, kind, 0});
}

void HostLanesConsumer::onGpu(const KinetoEvent &event, qint64 beginNs)
{
    const kineto::EventFields &fields = event.fields;
    kineto::DeviceStream where;
    if (fields.argsScanned) {  // located by the scanner: no search of the args
        if (fields.argHave & (1u << kineto::kArgDevice))
            where.device = kineto::argInteger(fields.argToken[kineto::kArgDevice]);
        if (fields.argHave & (1u << kineto::kArgStream))
            where.stream = kineto::argInteger(fields.argToken[kineto::kArgStream]);
    } else if (fields.have & (1u << kineto::kArgsKey)) {
        where = kineto::readDeviceStream(trimJson(fields.token[kineto::kArgsKey]));
    }
    if (!where.device || !where.stream)
        return;
    if (const std::optional<qint64> c = eventArgIds(event, false).correlation)
        m_gpu.push_back({beginNs, *c, qint32(*where.device), qint32(*where.stream)});
}

void HostLanesConsumer::finishRange()
{
    m_slices.shrink_to_fit();
    m_runtime.shrink_to_fit();
    m_gpu.shrink_to_fit();
}

void HostLanesConsumer::absorb(kineto::EventConsumer &laterRange, int)
{
    HostLanesConsumer &range = static_cast<HostLanesConsumer &>(laterRange);
    // The range interned its own names and threads: map them onto this reader's.
    std::vector<std::uint32_t> nameOf(range.m_names.size());
    for (std::size_t i = 0; i < nameOf.size(); ++i)
        nameOf[i] = m_names.intern(range.m_names.view(std::uint32_t(i)));
    std::vector<std::uint16_t> threadOfRange(range.m_threads.size());
    for (std::size_t i = 0; i < threadOfRange.size(); ++i)
        threadOfRange[i] = threadOf(range.m_threads[i].pid, range.m_threads[i].tid);
    const std::uint32_t offset = std::uint32_t(m_slices.size());
    m_slices.reserve(m_slices.size() + range.m_slices.size());
    for (HostSlice s : range.m_slices) {
        s.thread = threadOfRange[s.thread];
        if (s.thread == 0xffff) {
            ++m_threadOverflow;
            s.kind = HostSliceKind::Count;  // left out by build()
        }
        s.nameId = nameOf[s.nameId];
        m_slices.push_back(s);
    }
    for (const RawRuntime &r : range.m_runtime)
        m_runtime.push_back({r.slice + offset, r.correlation});
    m_gpu.insert(m_gpu.end(), range.m_gpu.begin(), range.m_gpu.end());
    m_threadOverflow += range.m_threadOverflow;
    range.m_slices = {};
    range.m_runtime = {};
    range.m_gpu = {};
}

HostLanes HostLanesConsumer::build()
{
    HostLanes out;
    // Threads by pid, then tid (numbers where they are numbers).
    std::vector<std::uint16_t> threadOrder(m_threads.size());
    std::iota(threadOrder.begin(), threadOrder.end(), std::uint16_t(0));
    std::vector<std::pair<qint64, qint64>> ids(m_threads.size());
    for (std::size_t i = 0; i < m_threads.size(); ++i)
        ids[i] = {numberOf(m_threads[i].pid), numberOf(m_threads[i].tid)};
    std::stable_sort(threadOrder.begin(), threadOrder.end(), [&](auto a, auto b) { return ids[a] < ids[b]; });
    std::vector<std::uint16_t> rankOfThread(m_threads.size());
    for (std::size_t r = 0; r < threadOrder.size(); ++r) {
        rankOfThread[threadOrder[r]] = std::uint16_t(r);
        out.threads.push_back({ids[threadOrder[r]].first, ids[threadOrder[r]].second, 0});
    }

    // Slices grouped by thread (a counting sort keeps document order), then by start within a
    // thread (longest first on a tie, so a parent comes before its child). Kineto writes a
    // thread's ops almost in order, so the sort is mostly a check.
    const std::size_t n = m_slices.size();
    std::vector<std::uint32_t> threadStart(m_threads.size() + 1, 0);
    for (const HostSlice &s : m_slices)
        if (s.kind != HostSliceKind::Count)
            ++threadStart[rankOfThread[s.thread] + 1];
    std::partial_sum(threadStart.begin(), threadStart.end(), threadStart.begin());
    std::vector<std::uint32_t> order(threadStart.back());
    {
        std::vector<std::uint32_t> fill(threadStart.begin(), threadStart.end() - 1);
        for (std::size_t i = 0; i < n; ++i)
            if (m_slices[i].kind != HostSliceKind::Count)
                order[fill[rankOfThread[m_slices[i].thread]]++] = std::uint32_t(i);
    }
    const auto before = [this](std::uint32_t a, std::uint32_t b) {
        const HostSlice &x = m_slices[a], &y = m_slices[b];
        return x.startNs != y.startNs ? x.startNs < y.startNs : x.endNs != y.endNs ? x.endNs > y.endNs : a < b;
    };
    std::vector<qint64> openEnds;
    std::vector<std::uint32_t> depthCount;
    out.slices.reserve(order.size());
    std::vector<std::uint32_t> finalOf(m_runtime.empty() ? 0 : n, std::uint32_t(-1));  // runtime calls' places
    for (std::size_t t = 0; t < m_threads.size(); ++t) {
        const auto first = order.begin() + threadStart[t], last = order.begin() + threadStart[t + 1];
        if (!std::is_sorted(first, last, before))
            std::sort(first, last, before);
        // Depth: the ranges still open when this one starts. A range at depth d only follows
        // another at d once that one has ended, so one depth's ranges never overlap.
        openEnds.clear();
        depthCount.assign(HostLanes::kMaxDepth + 1, 0);
        for (auto it = first; it != last; ++it) {
            HostSlice &s = m_slices[*it];
            while (!openEnds.empty() && openEnds.back() <= s.startNs)
                openEnds.pop_back();
            if (openEnds.size() > std::size_t(HostLanes::kMaxDepth)) {
                s.depth = kDropped;
                ++out.tooDeep;
                continue;
            }
            s.depth = std::uint8_t(openEnds.size());
            ++depthCount[s.depth];
            openEnds.push_back(s.endNs);
        }
        // Lane by lane: depth 0 first, each in start order.
        std::uint8_t depths = 0;
        std::vector<std::uint32_t> laneAt(HostLanes::kMaxDepth + 1);
        for (int d = 0; d <= HostLanes::kMaxDepth && depthCount[std::size_t(d)] > 0; ++d) {
            HostLane lane{std::uint16_t(t), std::uint8_t(d), std::uint32_t(out.slices.size()), 0};
            lane.end = lane.begin + depthCount[std::size_t(d)];
            laneAt[std::size_t(d)] = lane.begin;
            out.lanes.push_back(lane);
            out.slices.resize(lane.end);
            depths = std::uint8_t(d + 1);
        }
        out.threads[t].depths = depths;
        for (auto it = first; it != last; ++it) {
            HostSlice s = m_slices[*it];
            if (s.depth == kDropped)
                continue;
            const std::uint32_t at = laneAt[s.depth]++;
            s.thread = std::uint16_t(t);
            out.slices[at] = s;
            if (s.kind == HostSliceKind::Runtime && !finalOf.empty())
                finalOf[*it] = at;
        }
    }
    // Runtime correlations onto the final places.
    out.runtimeByCorrelation.reserve(m_runtime.size());
    for (const RawRuntime &r : m_runtime)
        if (finalOf[r.slice] != std::uint32_t(-1))
            out.runtimeByCorrelation.push_back({r.correlation, finalOf[r.slice]});
    finalOf = {};
    // In document order the tracer's ids mostly rise: often nothing to sort.
    const auto byCorrelation = [](const RuntimeCorrelation &a, const RuntimeCorrelation &b) {
        return a.correlation != b.correlation ? a.correlation < b.correlation : a.slice < b.slice;
    };
    if (!std::is_sorted(out.runtimeByCorrelation.begin(), out.runtimeByCorrelation.end(), byCorrelation))
        std::sort(out.runtimeByCorrelation.begin(), out.runtimeByCorrelation.end(), byCorrelation);
    out.gpuByPlace = sortedByPlace(m_gpu);
    out.names.reserve(m_names.size());
    for (std::size_t i = 0; i < m_names.size(); ++i)
        out.names.emplace_back(m_names.view(std::uint32_t(i)));
    return out;
}

void HostLanesConsumer::finish(const kineto::KinetoDocument &document, TorchTrace &out)
{
    // KinetoConsumer (before this one) has just added the document's timeline file.
    if (out.timeline.files.empty() || (m_slices.empty() && m_gpu.empty()))
        return;
    auto lanes = std::make_shared<HostLanes>(build());
    if (lanes->tooDeep > 0)
        out.diagnostics.push_back({Severity::Warning, document.name, 0,
                                   QStringLiteral("%1 host range(s) nested deeper than %2 levels on one thread are left out "
                                                  "of the Timeline's host lanes")
                                       .arg(lanes->tooDeep)
                                       .arg(HostLanes::kMaxDepth)});
    if (m_threadOverflow > 0)
        out.diagnostics.push_back({Severity::Warning, document.name, 0,
                                   QStringLiteral("%1 host range(s) of threads past the 65,535th are left out of the "
                                                  "Timeline's host lanes")
                                       .arg(m_threadOverflow)});
    m_slices = {};
    m_runtime = {};
    m_gpu = {};
    out.timeline.files.back().hostLanes = std::move(lanes);
}

} // namespace goblin::workbench
