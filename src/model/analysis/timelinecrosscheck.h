#pragma once
/// \file Cross-check of two kernel timelines of one run (the kernel trace's and the torch
/// trace's own GPU events): kernel counts and time per class in the window both cover.

#include "diagnostic.h"
#include "results/gputimeline.h"
#include "timelineanalysis.h"

namespace goblin {

struct TimelineClassCount {
    quint64 calls = 0;
    qint64 ns = 0;
};

/// Kernels of one timeline inside its shared window, per class.
struct TimelineWindowCounts {
    TimelineClassCount collective, gemm, other, all;
    qint64 windowNs = 0;
    int devices = 0;  ///< devices with kernels in the window: a rank's torch trace sees one GPU, trace.csv all
};

struct TimelineCrossCheck {
    bool compared = false;           ///< both timelines have kernels
    TimelineWindowCounts kernelTrace, torchTrace;
    Diagnostics diagnostics;         ///< one summary note, plus a warning per class that disagrees
};

/// The two sources run on different clocks (rocprofv3: ns since boot; Kineto: µs, often since
/// the epoch), so each file is aligned on its own first kernel: the shared window is the
/// first W ns after each file's first kernel, W the shortest kernel span among all files of
/// both timelines. Kernels starting in the window are counted (all devices, all files) by
/// class (collective, GEMM, other: the workbench's patterns). A class disagrees when its
/// count or its time differ by more than `tolerance` (relative) and more than 1 call / 1 µs.
/// One side of the check: the timeline, what analyzeTimeline() measured of it (its files' kernel
/// spans, so they are not searched again) and the name diagnostics give it.
struct CrossCheckSide {
    const GpuTimeline &timeline;
    const TimelineAnalysis &analysis;
    QString name;
};
TimelineCrossCheck crossCheckTimelines(const CrossCheckSide &kernelTrace, const CrossCheckSide &torchTrace,
                                       double tolerance = 0.02);

} // namespace goblin
