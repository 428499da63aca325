#pragma once
/// \file The timeline's steps under the step plan: while the plan cuts unmarked spans into N
/// steps (`--steps N`), a device without step marks shows N equal windows of its file's kernel
/// span, with the values measured on them; every other device keeps its own. Derived owns the cut
/// (made once per N, reused while N stays); the Timeline view and the report's timeline read it.

#include "run.h"

#include <memory>
#include <vector>

namespace goblin {

/// One device's recut steps.
struct TimelineDeviceCut {
    std::vector<TimeInterval> windows;
    std::vector<TimelineStepValues> steps;  ///< parallel to windows
};

struct TimelineCut {
    int steps = 0;  ///< N
    /// Parallel to run.kernelTimeline.devices and run.torchTimeline.devices; an entry without
    /// steps means the device keeps its own (it has marks, or its span could not be cut).
    std::vector<TimelineDeviceCut> kernelTrace, torchTrace;

    /// The recut steps of device `index` of the kernel trace's (or the torch trace's) timeline,
    /// or null: that device keeps its own.
    const TimelineDeviceCut *device(bool torchTrace, std::size_t index) const;
};

/// The cut into `steps` windows (null for steps < 1).
std::shared_ptr<const TimelineCut> cutTimelines(const RunAnalysis &run, int steps);

} // namespace goblin
