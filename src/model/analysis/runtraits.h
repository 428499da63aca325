#pragma once
/// \file What the traits of a run's torch traces mean, decided once at load:
/// training or inference, HIP/CUDA graph replay and how much of it the trace recorded, and two
/// checks of the timeline itself (kernels overlapping on one stream, GPU events outside every
/// profiled step). Each finding is a diagnostic with counts; the flags say which budget
/// quantities cannot carry a verdict. The facts come from the parsers (tracetraits.h).

#include "results/gputimeline.h"
#include "timeline.h"
#include "traits.h"

namespace goblin {

/// Reads the traits of every torch trace file (torchTimeline.files[].traits) and checks the
/// timeline. `torchTimelineAnalysis` (the analysis of the same timeline) gives the step windows
/// each device was measured with; when it is empty the files' own step marks are used.
RunTraitsAnalysis analyzeRunTraits(const GpuTimeline &torchTimeline, const TimelineAnalysis &torchTimelineAnalysis);

} // namespace goblin
