#pragma once
/// \file The kernel list of a run built from a GPU timeline (the torch trace's own kernel
/// events), in the shape the kernel-trace parser gives for trace.csv: interned names and a
/// KernelReading with per-name calls and durations, so classes, top kernels, attention
/// detection and the per-step-per-GPU sums work unchanged on trace-only folders.

#include "results/gputimeline.h"
#include "results/kerneltrace.h"

#include <string>
#include <vector>

namespace goblin {

struct TimelineKernelList {
    std::vector<std::string> names;  ///< interned across all files, first-use order
    KernelReading reading;
};

/// Kernels of every file and device, in document order (file by file, device by device).
/// As for trace.csv, zero-length kernels are counted in rowsSkippedNonPositive and not used.
/// One agent per file × device with kernels. The span (firstStartNs … lastEndNs) is the file's
/// kernel span for one file; with several files (ranks, each on its own clock) it is their mean
/// span, written as 0 … mean.
TimelineKernelList kernelsFromTimeline(const GpuTimeline &timeline);

} // namespace goblin
