#pragma once
/// \file A loaded run: what the parsers read and what was derived from it once, per heuristics
/// profile. Value types only (the model's leaf, with the other domain headers): analysis/ makes
/// them at load, derived/ computes what a set of thresholds gives from them.

#include "results/smitelemetry.h"
#include "culprits.h"
#include "heuristics.h"
#include "kernelclasses.h"
#include "results/kerneltrace.h"
#include "runfacts.h"
#include "steps.h"
#include "timeline.h"
#include "results/torchtrace.h"
#include "traits.h"

#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace goblin {

struct RankSet;  // ranks.h

struct TopKernel {
    QString name;
    double pctTime = 0.0;
    std::size_t nameId = 0;
};

/// Kernel time per class (the `aggregates` section of the report).
struct ClassTotals {
    qint64 collectiveNs = 0, gemmNs = 0, genericGemmNs = 0, fp16Ns = 0, bf16Ns = 0, totalNs = 0;
    quint64 collectiveCalls = 0, gemmCalls = 0, genericGemmCalls = 0, fp16Calls = 0, bf16Calls = 0, totalCalls = 0;
};

/// Threshold-independent results of one profile, computed once at load.
struct ProfileAnalysis {
    HeuristicsProfile profile = HeuristicsProfile::Workbench;
    BudgetInputs budgetInputs;
    ClassTotals classTotals;
    KernelClasses classes;

    double tokensPerSec = 0.0;
    double mfuPct = 0.0;
    double hbmPeakGb = 0.0;
    double hbmAvgGb = 0.0;
    double gpuUtilPct = 0.0;
    QString gpuUtilSource;          ///< "amd_smi.csv column 'gfx' (mean of 812 samples)", "kernel time / step time"
    std::vector<TopKernel> topKernels;
    QString attentionKernelLoaded = QStringLiteral("unknown");
    QStringList warnings;           ///< RunMetrics.warnings (the reference's own strings in that profile)
    QJsonValue rocmVersion;         ///< string, or "unknown"
    QJsonValue pytorchVersion;      ///< usually a string; the reference passes other JSON through
    int defaultSteps = 10;          ///< --steps default: reference 10; workbench the ProfilerSteps found (10 if none)

    // aggregates
    int gpuAgents = 0;
    int stepsFound = 0;
    double stepTimeS = 0.0;
    QString stepTimeSource;
    double hostBusyFraction = 0.0;
    QString hostBusySource;
    double traceSpanS = 0.0;        ///< wall-clock span of the kernel trace
    double traceStepsCovered = 0.0; ///< traceSpanS / stepTimeS (workbench normaliser)
    double perStepPerGpuDivisor = 1.0;  ///< what trace-wide sums are divided by (1 in the reference)
    /// Workbench: the kernel span (s) that --steps N cuts into N equal steps when nothing else
    /// gave a step time (no metadata, no ProfilerStep, no GPU-lane step annotation); 0 otherwise.
    double stepCutSpanS = 0.0;
    bool gpuUtilFromTimeline = false;  ///< utilisation is the busy union of a GPU timeline
    /// Workbench: one budget input set per rank (ranks.h); with >= 2 ranks the budget
    /// computeMetrics() gives is their mean. Null in the reference profile.
    std::shared_ptr<const RankSet> ranks;
};

struct RunMetrics {
    int steps = 10;
    WasteBudget wasteBudget;
};

/// One loaded run folder. Immutable once built; shared between the GUI thread and exporters.
struct RunAnalysis {
    QString runDir;           ///< absolute path
    QString runDirAsGiven;    ///< as the user typed it (the reference's warnings quote it)
    QString runName;          ///< folder name, for titles
    KernelTrace kernels;
    TorchTrace torch;
    SmiTelemetry smi;
    ProfileAnalysis reference;
    ProfileAnalysis workbench;
    Diagnostics diagnostics;  ///< all parser diagnostics plus the engine's "profiles differ" notes
    TimelineAnalysis kernelTimeline;  ///< what kernels.timeline measured (rocpd / kernel-trace CSV)
    TimelineAnalysis torchTimeline;   ///< what torch.timeline measured (the torch trace's GPU events)
    /// Set by the loader when it measured a timeline on the thread that parsed it, overlapping the
    /// other parsers (prepareTimelines() then keeps it instead of measuring it again).
    bool kernelTimelineMeasured = false, torchTimelineMeasured = false;
    /// The workbench's kernel list (kernels.names / kernels.workbench) was built from the torch
    /// trace's kernel events because no kernel trace had any (the reference reads none).
    bool kernelsFromTorchTimeline = false;
    StepSeries steps;  ///< every profiled step's own budget inputs (workbench reading)
    /// The kernel trace's clock against the torch trace's; when aligned, the kernel trace's devices
    /// carry the torch trace's steps (moved onto their clock).
    ClockAlignment clockAlignment;
    /// Training or inference, graph replay, the timeline's own checks (runtraits.h).
    RunTraitsAnalysis traits;
    /// The ops and modules behind the generic GEMMs, fp16/fp32 GEMMs and collectives (the advice
    /// names them), from the torch trace's attribution.
    RunCulprits culprits;
    /// The job, the devices, the program and the step plan, decided once (analysis/decidefacts.h).
    RunFacts facts;

    const ProfileAnalysis &profile(HeuristicsProfile p) const
    {
        return p == HeuristicsProfile::Reference ? reference : workbench;
    }
};

enum class LoadOutcome { Finished, Failed, Cancelled };
struct LoadResult {
    LoadOutcome outcome = LoadOutcome::Failed;
    QString error;                         ///< for Failed: names the path and the reason
    std::shared_ptr<const RunAnalysis> run;  ///< set when Finished
    /// Failed because nothing in the source is readable: what the load read all the same (its
    /// diagnostics; the reference's reading, which Python would print) for callers that say why.
    /// Never a run to list or report.
    std::shared_ptr<const RunAnalysis> unreadableRun;
};

/// Stage and progress for the loading UI: fraction 0..1 of all bytes, or -1 while unknown.
using LoadProgressCallback = std::function<bool(double fraction, const QString &stage)>;

} // namespace goblin
