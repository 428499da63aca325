#include "derived.h"

#include "advice.h"
#include "metrics.h"
#include "programcaveat.h"
#include "stepbudget.h"
#include "sweep.h"
#include "timelineinputs.h"
#include "thresholds.h"
#include "tracememoryfigures.h"

namespace goblin {

namespace {

/// The measured budget of one rank: the mean over its steps (partial ones left out) of the mean
/// over its devices in that step; with the rank's compute time per step (the straggler's measure).
struct RankMeasure {
    std::optional<WasteBudget> budget;
    double computeSPerStep = 0.0;
    double exposedCommSPerStep = 0.0;
    double stepTimeS = 0.0;
    int steps = 0;
};

RankMeasure measureRank(const StepSeries &series, const RankInputs &rank, bool chromeTraces, const Thresholds &t)
{
    RankMeasure out;
    std::vector<WasteBudget> steps;
    double computeS = 0.0, exposedS = 0.0, stepS = 0.0;
    for (const StepInputs &step : series.steps) {
        if (step.partial)
            continue;
        std::vector<WasteBudget> devices;
        double stepCompute = 0.0, stepExposed = 0.0;
        for (const MeasuredSlice &slice : step.slices) {
            const bool ours = std::size_t(slice.file) == rank.fileIndex && (chromeTraces || slice.pid == rank.pid);
            if (!ours)
                continue;
            devices.push_back(computeMeasuredBudget(slice, series.hbmPeakGbOf(step), t));
            stepCompute += double(slice.computeNs) / 1e9;
            stepExposed += double(slice.exposedCommNs) / 1e9;
        }
        if (devices.empty())
            continue;
        const WasteBudget b = meanBudget(devices);
        stepS += b.terms.stepS;
        computeS += stepCompute / double(devices.size());
        exposedS += stepExposed / double(devices.size());
        steps.push_back(b);
    }
    if (steps.empty())
        return out;
    const double n = double(steps.size());
    out.budget = meanBudget(steps);
    out.computeSPerStep = computeS / n;
    out.exposedCommSPerStep = exposedS / n;
    out.stepTimeS = stepS / n;
    out.steps = int(steps.size());
    return out;
}

/// Graph replays whose kernels the trace recorded only in part: the GPU ran the others' kernels in
/// what the timeline shows as idle, so no idle-based bucket is known and useful GPU is a lower bound.
void lowerStatesForUnrecordedReplays(WasteBudget &b, std::array<bool, WasteBudget::BucketCount + 1> *caveated)
{
    if (!b.terms.measured)
        return;
    for (int row : {1, 2, WasteBudget::UnattributedIndex}) {
        b.states[std::size_t(row)] = ValueState::Unknown;
        if (caveated)
            (*caveated)[std::size_t(row)] = true;
    }
    b.states[0] = weakerState(b.states[0], ValueState::Estimated);
    if (caveated)
        (*caveated)[0] = true;
}

} // namespace

StepPlan planSteps(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                   const StepPlan *previous)
{
    StepPlan plan;
    if (profile != HeuristicsProfile::Workbench)
        return plan;
    if (!run.steps.empty()) {
        plan.kind = StepPlan::Kind::Marked;
        plan.series = &run.steps;
        plan.source = run.steps.source;
        return plan;
    }
    // Without marks the timeline covers the steps only when the step plan takes the kernel span:
    // a metadata step time over an unmarked span stays with the seed's formulas.
    if (!kernelSourceTimeline(run) || !run.facts.stepPlan.cuttable)
        return plan;
    const bool given = thresholds.steps && *thresholds.steps > 0;
    plan.kind = given ? StepPlan::Kind::Cut : StepPlan::Kind::WholeSpan;
    plan.cutSteps = given ? *thresholds.steps : 1;
    if (previous && previous->owned && previous->kind == plan.kind && previous->cutSteps == plan.cutSteps) {
        plan.owned = previous->owned;
    } else {
        plan.owned = std::make_shared<const StepSeries>(cutSteps(run, plan.cutSteps));
    }
    plan.series = plan.owned.get();
    plan.source = plan.owned->source;
    return plan;
}

RunMetrics runMetrics(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                      const StepPlan &plan)
{
    if (plan.measured()) {
        RunMetrics m;
        m.steps = thresholds.steps.value_or(run.profile(profile).defaultSteps);
        const RankSet *ranks = run.workbench.ranks.get();
        const bool rankMean = ranks && ranks->budgetIsMean && plan.series->fromTorchTimeline;
        if (rankMean) {
            // Several ranks (one chrome trace each): the mean of the ranks' budgets, as the
            // Ranks tab shows them, so that no rank weighs more for having more devices.
            std::vector<WasteBudget> budgets;
            for (const RankInputs &r : ranks->ranks)
                if (const RankMeasure rm = measureRank(*plan.series, r, true, thresholds); rm.budget)
                    budgets.push_back(*rm.budget);
            if (!budgets.empty()) {
                m.wasteBudget = meanBudget(budgets);
                return m;
            }
        }
        if (std::optional<WasteBudget> b = measuredRunBudget(*plan.series, thresholds)) {
            m.wasteBudget = *b;
            return m;
        }
    }
    return computeMetrics(run.profile(profile), thresholds);
}

Thresholds appliedThresholds(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &given)
{
    // The HBM capacity at its default becomes what the run says the device holds (a value the user
    // set wins; the reference keeps its 192 GB): the run's facts decided it once (devicefacts.cpp).
    Thresholds thresholds = given;
    if (profile == HeuristicsProfile::Workbench && run.facts.devices.capacityFromRun &&
        given.hbmCapacityGb == Thresholds{}.hbmCapacityGb)
        thresholds.hbmCapacityGb = run.facts.devices.capacityGb;
    return thresholds;
}

Derived deriveResults(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &given,
                      const Derived *previous, std::optional<SweepThreshold> sweep)
{
    const Thresholds thresholds = appliedThresholds(run, profile, given);
    Derived d;
    d.profile = profile;
    d.thresholds = thresholds;
    d.plan = planSteps(run, profile, thresholds, previous ? &previous->plan : nullptr);
    d.metrics = runMetrics(run, profile, thresholds, d.plan);
    d.budgetMeasured = d.metrics.wasteBudget.terms.measured;
    d.budgetSource = d.budgetMeasured
                         ? QStringLiteral("measured on the GPU timeline: %1").arg(d.plan.source)
                         : profile == HeuristicsProfile::Reference
                             ? QStringLiteral("the gpu-goblin reference's formulas on its readings")
                             : QStringLiteral("the seed's formulas (no GPU timeline covers the steps)");
    if (const StepSeries *series = d.steps()) {
        d.stepBudgets.reserve(series->steps.size());
        for (int i = 0; i < series->size(); ++i)
            d.stepBudgets.push_back(stepBudget(*series, i, thresholds));
    }
    // The ranks and the timeline's cut are the workbench's reading, shown in either profile.
    const StepPlan workbenchPlan = profile == HeuristicsProfile::Workbench
                                       ? d.plan
                                       : planSteps(run, HeuristicsProfile::Workbench, thresholds,
                                                   previous ? &previous->plan : nullptr);
    d.timelineCutSteps = workbenchPlan.kind == StepPlan::Kind::Cut ? workbenchPlan.cutSteps : 0;
    d.timelineCut = previous && previous->timelineCut && previous->timelineCut->steps == d.timelineCutSteps
                        ? previous->timelineCut
                        : cutTimelines(run, d.timelineCutSteps);
    if (run.workbench.ranks && !run.workbench.ranks->ranks.empty()) {
        const RankSet &set = *run.workbench.ranks;
        d.ranks = rankResults(set, thresholds);
        const bool chromeTraces = set.kind == QLatin1String("chrome traces");
        const bool sameTimeline = workbenchPlan.measured() && workbenchPlan.series->fromTorchTimeline == chromeTraces;
        for (RankResult &r : d.ranks) {
            if (!sameTimeline)
                continue;
            const RankMeasure m = measureRank(*workbenchPlan.series, *r.inputs, chromeTraces, thresholds);
            if (!m.budget)
                continue;
            r.budget = *m.budget;
            r.stepTimeS = m.stepTimeS;
            r.stepTimeSource = QStringLiteral("mean of %1 measured step window(s)").arg(m.steps);
            r.computeSPerStep = m.computeSPerStep;
            r.exposedCommSPerStep = m.exposedCommSPerStep;
            r.measured = true;
        }
        if (set.ranks.size() == 1 && !d.ranks.empty() && profile == HeuristicsProfile::Workbench)
            d.ranks.front().budget = d.metrics.wasteBudget;  // one rank is the run
        d.spread = rankSpread(d.ranks);
    }
    if (profile == HeuristicsProfile::Workbench && run.traits.graphs.replayIdleUnmeasured) {
        d.caveat = run.traits.graphs.headline;
        lowerStatesForUnrecordedReplays(d.metrics.wasteBudget, &d.caveated);
        for (WasteBudget &b : d.stepBudgets)
            lowerStatesForUnrecordedReplays(b, nullptr);
        for (RankResult &r : d.ranks)
            lowerStatesForUnrecordedReplays(r.budget, nullptr);
    }
    applyProgramFacts(run, d);  // the program's own words and states (a capture, host-busy idle)
    d.quantities = runQuantities(run, d);
    d.advice = adviseRun(run, d);
    if (sweep) {
        d.sweepThreshold = sweep;
        d.sweep = sweepCurve(run, profile, given, *sweep, sweepCurveValues(*sweep));
    }
    return d;
}

} // namespace goblin
