#pragma once
/// \file A part of the run's facts (runfacts.h): the step plan and the one step time every number reads. Value types only; decided once at load
/// by analysis/runfacts.h, each value with its state and source. Definitions: docs/steps.md.

#include "heuristics.h"

#include <QString>
#include <vector>

namespace goblin {

/// Where the steps come from, in the plan's order of precedence (the first that a trace of the
/// run has wins).
enum class StepPlanKind : quint8 {
    CpuProfilerSteps,  ///< ProfilerStep#N on the CPU lane (or moved onto a kernel trace's clock)
    MarkerRanges,      ///< roctx / NVTX step ranges of a marker trace beside a kernel trace (--step-ranges)
    GpuAnnotations,    ///< ProfilerStep#N / Optimizer.step#… annotations on the GPU lane
    OptimizerSteps,    ///< CPU-lane Optimizer.step#… annotations cutting the span into steps
    Metadata,          ///< no windows: the training script's metadata step_time_seconds
    KernelSpan,        ///< no windows: the kernel span as one step (--steps N cuts it into N)
    TraceSpan,         ///< no windows, no kernels: the trace's events' span as one step
    None,              ///< nothing gives a step
};
/// The report's step_plan.kind.
inline QString stepPlanKindKey(StepPlanKind kind)
{
    switch (kind) {
    case StepPlanKind::CpuProfilerSteps:
        return QStringLiteral("cpu_profiler_steps");
    case StepPlanKind::MarkerRanges:
        return QStringLiteral("marker_ranges");
    case StepPlanKind::GpuAnnotations:
        return QStringLiteral("gpu_annotations");
    case StepPlanKind::OptimizerSteps:
        return QStringLiteral("optimizer_steps");
    case StepPlanKind::Metadata:
        return QStringLiteral("metadata");
    case StepPlanKind::KernelSpan:
        return QStringLiteral("kernel_span");
    case StepPlanKind::TraceSpan:
        return QStringLiteral("trace_span");
    case StepPlanKind::None:
        break;
    }
    return QStringLiteral("none");
}

/// The windows the plan takes from one trace file.
struct StepPlanFile {
    QString file;
    std::size_t fileIndex = 0;       ///< in the chosen timeline's files
    StepPlanKind kind = StepPlanKind::None;
    int windows = 0;
};

struct StepPlanFacts {
    StepPlanKind kind = StepPlanKind::None;
    /// The windows come from the torch traces' timeline (else the kernel traces'); meaningful
    /// when hasWindows().
    bool fromTorchTimeline = true;
    std::vector<StepPlanFile> files;  ///< the files that give windows, in timeline order
    /// The run's steps: windows of one name in one file are separate steps; a name is one step
    /// across files (ranks). 1 for KernelSpan and TraceSpan, 0 for Metadata and None.
    int steps = 0;
    /// The one step time (s): the mean of the steps' windows (a partial last step left out), the
    /// metadata's, or the span. 0 when None. The budget over the same windows gives the same value.
    double stepTimeS = 0.0;
    ValueState state = ValueState::Unknown;
    QString source;                  ///< in words: which windows, from which files
    /// What `--steps N` cuts into N equal steps (each file's kernel span); only for KernelSpan.
    bool cuttable = false;
    double kernelSpanS = 0.0;        ///< mean over the files of each file's kernel span (s)

    bool hasWindows() const { return kind <= StepPlanKind::OptimizerSteps; }
};

} // namespace goblin
