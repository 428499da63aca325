#pragma once
/// \file What any time range of one device's timeline holds — GPU busy and idle, the idle split by
/// what the host did — for the Timeline's range selection. The same definitions as the per-step
/// values (analysis/timelineanalysis.h, docs/timeline.md), measured on interval sets built once,
/// so a range costs a few binary searches however long it is.

#include "timeline.h"

namespace goblin {

struct TimelineRangeValues {
    qint64 windowNs = 0;
    qint64 busyNs = 0, idleNs = 0;
    qint64 hostActiveNs = 0;       ///< the host ran a CPU operator or a data-loading range
    qint64 idleHostBusyNs = 0;     ///< idle while the host was active
    qint64 idleDataLoadingNs = 0;  ///< idle inside a data-loading range: data wait
    qint64 idleNothingNs = 0;      ///< idle − idleHostBusy
};

class TimelineRangeIndex
{
public:
    TimelineRangeIndex() = default;
    /// The sets of `device` (one of `file`'s devices) and its file's host activity.
    TimelineRangeIndex(const GpuTimelineFile &file, const GpuDeviceTimeline &device);
    /// Values inside [startNs, endNs) (empty when endNs <= startNs).
    TimelineRangeValues measure(qint64 startNs, qint64 endNs) const;

private:
    IntervalSet m_busy, m_activity, m_dataLoading, m_busyActivity, m_busyDataLoading;
};

} // namespace goblin
