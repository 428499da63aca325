#pragma once
/// \file What a GPU timeline measured, per trace file and device: busy, compute, communication,
/// exposed communication, memcpy/memset and idle (split into "host busy" and "nothing running"),
/// whole-trace and per profiled step. Exact integer nanoseconds; computed once at load from a
/// sorted copy of each device's events. Definitions: docs/timeline.md.

#include "timeline.h"

#include <vector>

namespace goblin {

/// Analyses every file × device. `equalSteps` > 0 cuts files without step marks into that many
/// equal steps of their kernel span; 0 takes the span as one step.
TimelineAnalysis analyzeTimeline(const GpuTimeline &timeline, int equalSteps = 0);

/// Per-window values of one device over any windows (in any order, overlapping or not), in one
/// sweep over its events in `timeline` (the timeline the device was analysed from): no interval
/// set is kept between calls, so a million-kernel device costs no memory beyond its events.
std::vector<TimelineStepValues> measureWindows(const GpuTimeline &timeline, const DeviceTimelineAnalysis &device,
                                               const std::vector<TimeInterval> &windows);
/// measureWindows() for a device without step marks (--steps N cuts its span again); empty for a
/// device whose file has step marks (its windows never change).
std::vector<TimelineStepValues> recutSteps(const GpuTimeline &timeline, const DeviceTimelineAnalysis &device,
                                           const std::vector<TimeInterval> &windows);


} // namespace goblin
