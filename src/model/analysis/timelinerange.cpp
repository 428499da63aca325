#include "timelinerange.h"

#include <algorithm>

namespace goblin {

namespace {
// As timelineanalysis.cpp: beyond ±2^61 ns a timestamp is garbage and left out.
constexpr qint64 kTimestampLimitNs = qint64(1) << 61;
}

TimelineRangeIndex::TimelineRangeIndex(const GpuTimelineFile &file, const GpuDeviceTimeline &device)
{
    std::vector<TimeInterval> busy;
    busy.reserve(device.events.size());
    for (const GpuEvent &e : device.events) {
        if (std::abs(e.startNs) > kTimestampLimitNs || std::abs(e.endNs) > kTimestampLimitNs)
            continue;
        busy.push_back({e.startNs, std::max(e.startNs, e.endNs)});
    }
    m_busy = IntervalSet::unionOf(std::move(busy));
    std::vector<TimeInterval> activity = file.hostBusy;
    activity.insert(activity.end(), file.dataLoading.begin(), file.dataLoading.end());
    m_activity = IntervalSet::unionOf(std::move(activity));
    m_dataLoading = IntervalSet::unionOf(file.dataLoading);
    m_busyActivity = IntervalSet::intersection(m_busy, m_activity);
    m_busyDataLoading = IntervalSet::intersection(m_busy, m_dataLoading);
}

TimelineRangeValues TimelineRangeIndex::measure(qint64 startNs, qint64 endNs) const
{
    TimelineRangeValues v;
    if (endNs <= startNs)
        return v;
    v.windowNs = endNs - startNs;
    v.busyNs = m_busy.measure(startNs, endNs);
    v.idleNs = v.windowNs - v.busyNs;
    v.hostActiveNs = m_activity.measure(startNs, endNs);
    v.idleHostBusyNs = v.hostActiveNs - m_busyActivity.measure(startNs, endNs);
    v.idleDataLoadingNs = m_dataLoading.measure(startNs, endNs) - m_busyDataLoading.measure(startNs, endNs);
    v.idleNothingNs = v.idleNs - v.idleHostBusyNs;
    return v;
}

} // namespace goblin
