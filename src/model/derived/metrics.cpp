#include "metrics.h"

#include "ranks.h"
#include "rankresults.h"

namespace goblin {

StepTimeChoice stepTimeFor(const ProfileAnalysis &analysis, const Thresholds &thresholds)
{
    StepTimeChoice c;
    c.stepTimeS = analysis.stepTimeS;
    c.source = analysis.stepTimeSource;
    c.stepsCovered = analysis.traceStepsCovered;
    c.perStepPerGpuDivisor = analysis.perStepPerGpuDivisor;
    c.commExcessS = analysis.budgetInputs.commExcessS;
    if (analysis.profile != HeuristicsProfile::Workbench || analysis.stepCutSpanS <= 0.0 || !thresholds.steps
        || *thresholds.steps < 1)
        return c;
    // The kernel span cut into N equal steps: per-step-per-GPU sums are divided by agents × N.
    const int n = *thresholds.steps;
    c.fromSteps = true;
    c.stepTimeS = analysis.stepCutSpanS / n;
    c.source = QStringLiteral("kernel timeline span / %1 (--steps %1; no metadata, ProfilerStep or GPU-lane step "
                              "annotation)")
                   .arg(n);
    c.stepsCovered = n;
    c.perStepPerGpuDivisor = double(analysis.gpuAgents) * n;
    c.commExcessS = double(analysis.classTotals.collectiveNs) / 1e9 / c.perStepPerGpuDivisor;
    return c;
}

RunMetrics computeMetrics(const ProfileAnalysis &analysis, const Thresholds &thresholds)
{
    RunMetrics m;
    m.steps = thresholds.steps.value_or(analysis.defaultSteps);
    if (analysis.ranks)
        if (std::optional<WasteBudget> mean = meanRankBudget(*analysis.ranks, thresholds)) {
            m.wasteBudget = *mean;  // several ranks: the mean of their budgets (timeline/ranks.h)
            return m;
        }
    const StepTimeChoice step = stepTimeFor(analysis, thresholds);
    if (!step.fromSteps) {
        m.wasteBudget = computeWasteBudget(analysis.budgetInputs, thresholds, analysis.profile);
        return m;
    }
    BudgetInputs in = analysis.budgetInputs;
    in.stepTimeS = step.stepTimeS;
    in.commExcessS = step.commExcessS;
    m.wasteBudget = computeWasteBudget(in, thresholds, analysis.profile);
    return m;
}

} // namespace goblin
