#pragma once
/// \file One clock for a kernel trace and the torch trace of the same run. rocprofv3 (CSV, rocpd)
/// stamps kernels in ns since boot, Kineto in µs on a base of its own: no shared zero, and no peer
/// aligns them without a hand-entered offset. Both record the same kernels, though, so the offset
/// is found by matching the two kernel sequences by name and duration (docs/timeline.md).

#include "timeline.h"

namespace goblin {

/// Finds kernelTraceNs = torchNs + offset. The torch side is the primary trace's device with the
/// most kernels; the kernel side is every device of every kernel-trace file, the best match kept.
/// Candidate offsets come from the first torch kernels (a run of kAnchorKernels names and
/// durations found in the kernel trace); each is scored on kernels sampled over the whole torch
/// span; the winner must match most of them and clearly beat the runner-up (training steps repeat
/// the same kernels, so only durations and the gaps between steps tell the steps apart). The
/// residual and the drift are then measured on up to 100,000 matched kernels.
ClockAlignment alignClocks(const GpuTimeline &kernelTrace, const GpuTimeline &torchTrace);

/// The torch trace's CPU-lane steps, moved onto the matched kernel-trace file's clock, become the
/// steps (StepWindow::aligned) of that file and of every other kernel-trace file with kernels inside
/// them (the same node's boot clock); a file with steps of its own keeps them. Returns whether
/// steps were given.
bool giveAlignedSteps(GpuTimeline &kernelTrace, const GpuTimeline &torchTrace, const ClockAlignment &alignment);

} // namespace goblin
