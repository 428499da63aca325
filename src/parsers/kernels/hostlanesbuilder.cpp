#include "kernels/hostlanesbuilder.h"

#include <algorithm>
#include <numeric>

namespace goblin::kernels {

namespace {

constexpr std::uint8_t kDropped = 0xff;  // depth of a slice nested past HostLanes::kMaxDepth
constexpr std::uint16_t kLeftOut = 0xffff;  // rank of a thread build() leaves out

} // namespace

std::uint16_t HostLanesBuilder::findThread(qint64 pid, qint64 tid)
{
    const std::pair<qint64, qint64> id(pid, tid);
    for (std::size_t i = 0; i < m_threadIds.size(); ++i)
        if (m_threadIds[i] == id)
            return m_lastThread = std::uint16_t(i);
    const std::uint16_t added = addThread(pid, tid);
    if (added != kNoThread)
        m_lastThread = added;
    return added;
}

void HostLanesBuilder::shrink()
{
    m_slices.shrink_to_fit();
    m_runtime.shrink_to_fit();
    m_gpu.shrink_to_fit();
}

void HostLanesBuilder::absorb(HostLanesBuilder &later, const std::vector<std::uint16_t> &threadOfLater)
{
    // The range interned its own names: map them onto this builder's.
    std::vector<std::uint32_t> nameOf(later.m_names.size());
    for (std::size_t i = 0; i < nameOf.size(); ++i)
        nameOf[i] = m_names.intern(later.m_names.view(std::uint32_t(i)));
    const std::uint32_t offset = std::uint32_t(m_slices.size());
    m_slices.reserve(m_slices.size() + later.m_slices.size());
    for (HostSlice s : later.m_slices) {
        s.thread = threadOfLater[s.thread];
        if (s.thread == kNoThread) {
            ++m_threadOverflow;
            s.kind = HostSliceKind::Count;  // left out by build()
        }
        s.nameId = nameOf[s.nameId];
        m_slices.push_back(s);
    }
    for (const RawRuntime &r : later.m_runtime)
        m_runtime.push_back({r.slice + offset, r.correlation});
    m_gpu.insert(m_gpu.end(), later.m_gpu.begin(), later.m_gpu.end());
    m_threadOverflow += later.m_threadOverflow;
    later.clear();
}

void HostLanesBuilder::clear()
{
    m_names = NamePool();
    m_threadIds = {};
    m_lastThread = 0;
    m_slices = {};
    m_runtime = {};
    m_gpu = {};
    m_threadOverflow = 0;
}

HostLanes HostLanesBuilder::build(const std::vector<bool> &keepThread)
{
    HostLanes out;
    const auto kept = [&](std::size_t thread) { return keepThread.empty() || keepThread[thread]; };
    // Threads by pid, then tid.
    std::vector<std::uint16_t> threadOrder;
    for (std::size_t i = 0; i < m_threadIds.size(); ++i)
        if (kept(i))
            threadOrder.push_back(std::uint16_t(i));
    std::stable_sort(threadOrder.begin(), threadOrder.end(),
                     [&](auto a, auto b) { return m_threadIds[a] < m_threadIds[b]; });
    std::vector<std::uint16_t> rankOfThread(m_threadIds.size(), kLeftOut);
    for (std::size_t r = 0; r < threadOrder.size(); ++r) {
        rankOfThread[threadOrder[r]] = std::uint16_t(r);
        out.threads.push_back({m_threadIds[threadOrder[r]].first, m_threadIds[threadOrder[r]].second, 0});
    }
    const std::size_t threads = threadOrder.size();
    const auto used = [&](const HostSlice &s) {
        return s.kind != HostSliceKind::Count && rankOfThread[s.thread] != kLeftOut;
    };

    // Slices grouped by thread (a counting sort keeps the order added), then by start within a
    // thread (longest first on a tie, so a parent comes before its child). Readers mostly add a
    // thread's ranges in order, so the sort is mostly a check.
    const std::size_t n = m_slices.size();
    std::vector<std::uint32_t> threadStart(threads + 1, 0);
    for (const HostSlice &s : m_slices)
        if (used(s))
            ++threadStart[rankOfThread[s.thread] + 1];
    std::partial_sum(threadStart.begin(), threadStart.end(), threadStart.begin());
    std::vector<std::uint32_t> order(threadStart.back());
    {
        std::vector<std::uint32_t> fill(threadStart.begin(), threadStart.end() - 1);
        for (std::size_t i = 0; i < n; ++i)
            if (used(m_slices[i]))
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
    for (std::size_t t = 0; t < threads; ++t) {
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
    // In the order added the tracer's ids mostly rise: often nothing to sort.
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

/// Grouped by (device, stream) first (a counting sort over the few streams), then each stream
/// checked, as tracers write a stream in order.
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

HostSliceKind markerKind(std::string_view name)
{
    return name.find("DataLoader") != std::string_view::npos ? HostSliceKind::DataLoading : HostSliceKind::Annotation;
}

void hostLanesDiagnostics(const HostLanes &lanes, qint64 threadOverflow, const QString &file, Diagnostics &out)
{
    if (lanes.tooDeep > 0)
        out.push_back({Severity::Warning, file, 0,
                       QStringLiteral("%1 host range(s) nested deeper than %2 levels on one thread are left out "
                                      "of the Timeline's host lanes")
                           .arg(lanes.tooDeep)
                           .arg(HostLanes::kMaxDepth)});
    if (threadOverflow > 0)
        out.push_back({Severity::Warning, file, 0,
                       QStringLiteral("%1 host range(s) of threads past the 65,535th are left out of the "
                                      "Timeline's host lanes")
                           .arg(threadOverflow)});
}

qint64 joinedGpuEvents(const HostLanes &lanes)
{
    qint64 n = 0;
    for (const GpuCorrelation &g : lanes.gpuByPlace)
        n += std::binary_search(lanes.runtimeByCorrelation.begin(), lanes.runtimeByCorrelation.end(),
                                RuntimeCorrelation{g.correlation, 0},
                                [](const RuntimeCorrelation &a, const RuntimeCorrelation &b) {
                                    return a.correlation < b.correlation;
                                });
    return n;
}

void hostLanesSummary(const HostLanes &lanes, qint64 threadOverflow, const QString &file, const QString &from,
                      Diagnostics &out)
{
    hostLanesDiagnostics(lanes, threadOverflow, file, out);
    qint64 calls = 0, ranges = 0;
    for (const HostSlice &h : lanes.slices)
        ++(h.kind == HostSliceKind::Runtime ? calls : ranges);
    const QString joins =
        lanes.gpuByPlace.empty()
            ? QStringLiteral("the GPU events carry no correlation id, so none is joined to the call that launched it")
            : QStringLiteral("%1 of %2 GPU events joined to the call that launched them by correlation id")
                  .arg(joinedGpuEvents(lanes))
                  .arg(lanes.gpuByPlace.size());
    out.push_back({Severity::Info, file, 0,
                   QStringLiteral("host lanes from %1: %2 thread(s), %3 runtime call(s), %4 marker range(s); %5")
                       .arg(from)
                       .arg(lanes.threads.size())
                       .arg(calls)
                       .arg(ranges)
                       .arg(joins)});
}

} // namespace goblin::kernels
