#pragma once
/// \file Everything one set of thresholds gives for a loaded run, computed in one place: the step
/// plan (the one `--steps N` rule), the run's budget, every step's budget, the ranks' budgets and
/// spread, the timeline's cut, the advice and the sweep curve. The window's live recompute, the report, the exports, the sweep and the compare view
/// all read a `Derived`; none of them computes a budget of its own. Arithmetic on aggregates
/// fixed at load, except cutting the span into N steps, which happens once per N (a plan is
/// reused while N stays).

#include "adviceitem.h"
#include "quantities.h"
#include "runanalysis.h"
#include "perstep.h"
#include "rankresults.h"
#include "sweeppoint.h"
#include "timelinecut.h"

#include <memory>
#include <optional>
#include <vector>

namespace goblin {

/// Which steps the budget is over.
struct StepPlan {
    enum class Kind {
        None,       ///< no GPU timeline covers the steps (or the reference profile): the seed's formulas
        Marked,     ///< the trace's step marks (ProfilerStep#N, GPU-lane step annotations)
        Cut,        ///< no marks: the kernel span cut into N equal steps (--steps N)
        WholeSpan,  ///< no marks, no N: the kernel span as one step
    };
    Kind kind = Kind::None;
    int cutSteps = 0;                             ///< N for Cut (1 for WholeSpan)
    const StepSeries *series = nullptr;           ///< Marked: the run's; Cut/WholeSpan: `owned`
    std::shared_ptr<const StepSeries> owned;
    QString source;                               ///< in words, for the report and tooltips

    bool measured() const { return series && series->measured(); }
    /// The steps are shown one by one (step strip, per_step): marked or cut by the user's N.
    bool showsSteps() const { return series && (kind == Kind::Marked || kind == Kind::Cut); }
};

/// The plan for `thresholds`: marks when a timeline has them; else, when nothing but the
/// timeline gives a step time (no metadata, or several ranks), the kernel span cut into
/// `--steps N` (or 1) steps; else none. `previous` is reused when it cut the same N of the same run.
StepPlan planSteps(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                   const StepPlan *previous = nullptr);

struct Derived {
    HeuristicsProfile profile = HeuristicsProfile::Workbench;
    Thresholds thresholds;
    StepPlan plan;
    RunMetrics metrics;                    ///< the run's budget and step label
    bool budgetMeasured = false;           ///< the run's budget is built on the GPU timeline
    QString budgetSource;                  ///< how the run's budget was made, in words
    std::vector<WasteBudget> stepBudgets;  ///< parallel to plan.series->steps when plan.showsSteps()
    /// The workbench's ranks, in either profile (the reference's budget ignores them); empty
    /// without ranks.
    std::vector<RankResult> ranks;
    std::optional<RankSpread> spread;
    Quantities quantities;                 ///< the headline numbers, each with its state and source
    /// What the trace could not measure, said before the verdict ("HIP graph replay: kernels
    /// recorded for 1 replay in 8 — idle not measured"); empty when nothing.
    QString caveat;
    /// The budget rows (WasteBudget::states order) whose state the caveat lowered; their source is
    /// the caveat.
    std::array<bool, WasteBudget::BucketCount + 1> caveated{};
    /// N when the workbench's plan cuts unmarked spans into N steps (the timeline's per-step
    /// values follow it), else 0.
    int timelineCutSteps = 0;
    /// The unmarked devices cut into timelineCutSteps steps (null when the plan cuts nothing): the
    /// Timeline view and the report's timeline read it.
    std::shared_ptr<const TimelineCut> timelineCut;
    /// The advice for this budget (advice.h), largest bucket first: the Advice view, the headline
    /// and the report read it.
    std::vector<Advice> advice;
    /// The sweep curve along `sweepThreshold` over its whole range (sweepCurve over
    /// sweepCurveValues, at these thresholds), when deriveResults() was asked for one; else empty.
    std::optional<SweepThreshold> sweepThreshold;
    std::vector<SweepPoint> sweep;

    const StepSeries *steps() const { return plan.showsSteps() ? plan.series : nullptr; }
    double stepTimeS() const { return metrics.wasteBudget.terms.stepS; }
};

/// The thresholds the budget applies for `given`: the same, except the defaults the run gives
/// itself — in the workbench profile without memory telemetry, the HBM capacity at its default is
/// the trace's own (deviceProperties' totalGlobalMem); a typed value wins (docs/memory.md).
/// Derived::thresholds holds it; controls and threshold lines show it.
Thresholds appliedThresholds(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &given);

/// Everything above for one profile and set of thresholds. `previous` (the last result for the
/// same run) lets a threshold drag skip cutting the span again.
/// `sweep`: also the sweep curve along that threshold (the window's Sweep view asks for it).
Derived deriveResults(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                      const Derived *previous = nullptr, std::optional<SweepThreshold> sweep = std::nullopt);

/// The run's budget alone under `thresholds` with a plan already made (the sweep's inner loop).
RunMetrics runMetrics(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                      const StepPlan &plan);

} // namespace goblin
