#pragma once
/// \file What the traits of a run's torch traces mean: training or inference, HIP/CUDA graph
/// replay and how much of it the trace recorded, and the timeline's own checks. Value types only;
/// decided once at load by analysis/runtraits.h.

#include "diagnostic.h"
#include "programfacts.h"

#include <QString>
#include <optional>

namespace goblin {

/// Training, inference, or unknown, and what was counted to say so.
struct RunKind {
    enum class Kind { Training, Inference, Unknown };
    Kind kind = Kind::Unknown;
    /// "312 backward ops, 6 optimizer steps"; "no backward op, no optimizer step, no DataLoader
    /// among 4,210 CPU ops"; "no CPU operators in the trace (GPU events only)"…
    QString reason;
};
QString runKindName(RunKind::Kind kind);  ///< "training", "inference", "unknown"

/// HIP/CUDA graph capture and replay over every torch trace file of the run.
struct GraphSummary {
    qint64 launches = 0;               ///< graph launch calls (hipGraphLaunch, cudaGraphLaunch…)
    qint64 captures = 0;               ///< stream-capture begin and graph instantiate calls
    qint64 launchesWithGpuEvents = 0;  ///< launches whose kernels the trace recorded
    qint64 gpuEventsInGraphs = 0;      ///< GPU events of a launch, or with a nonzero "graph id"
    /// Recorded launches with fewer than kPartlyRecordedShare of the GPU events of the file's
    /// largest recorded launch: replays whose kernels were probably only partly recorded.
    qint64 partlyRecordedLaunches = 0;
    /// launchesWithGpuEvents / launches; nullopt when there is no launch.
    std::optional<double> replaysRecordedFraction;
    /// Some replays ran without (all) their kernels in the trace: the GPU's busy and idle time
    /// between and during replays is not measured.
    bool replayIdleUnmeasured = false;
    QString launchName;  ///< the launch call as written ("hipGraphLaunch"); empty without one
    /// e.g. "HIP graph replay: kernels recorded for 1 replay in 8 — idle not measured"; empty
    /// when the run has neither launches nor captures.
    QString headline;
};
inline constexpr double kPartlyRecordedShare = 0.25;

/// Two checks of the torch timeline that make its measured times unreliable or incomplete.
struct TimelineChecks {
    /// Kernels that start more than kOverlapToleranceNs before the previous kernel on the same
    /// stream of the same device ends (a stream runs one kernel at a time).
    qint64 overlappingKernelsOnOneStream = 0;
    qint64 overlapDevices = 0;  ///< devices (file × device) with at least one such kernel
    /// GPU events lying entirely outside every step window of their file (files with step marks).
    qint64 gpuEventsOutsideSteps = 0;
    qint64 gpuTimeOutsideStepsNs = 0;  ///< their summed durations
    qint64 filesWithSteps = 0;         ///< files whose step windows were checked
};
inline constexpr qint64 kOverlapToleranceNs = 1000;

struct RunTraitsAnalysis {
    RunKind runKind;
    GraphSummary graphs;
    TimelineChecks checks;
    Diagnostics diagnostics;  ///< each names its file, with counts
    bool hasTorchTrace = false;  ///< the run has at least one torch trace file
    bool hasDataLoader = false;  ///< a DataLoader range or operator in some trace
    bool replaysGraphs = false;  ///< at least one graph launch
    bool capturesGraphs = false; ///< at least one capture or instantiate call
    QString vendor;              ///< "HIP" or "CUDA" as the trace's calls show it; empty when unknown
    // The phase counts summed over the files (the reason's numbers).
    qint64 cpuOps = 0, backwardOps = 0, optimizerOps = 0, optimizerSteps = 0, dataLoaderOps = 0, moduleFrames = 0;
    qint64 profilerRanges = 0;  ///< cuda_profiler_range events
};

} // namespace goblin
