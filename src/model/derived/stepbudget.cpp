#include "stepbudget.h"

namespace goblin {

WasteBudget stepBudget(const StepSeries &series, int index, const Thresholds &thresholds)
{
    if (index < 0 || index >= series.size())
        return {};
    const StepInputs &step = series.steps[std::size_t(index)];
    if (step.slices.empty())
        return computeWasteBudget(step.inputs, thresholds, HeuristicsProfile::Workbench);
    std::vector<WasteBudget> devices;
    devices.reserve(step.slices.size());
    for (const MeasuredSlice &slice : step.slices)
        devices.push_back(computeMeasuredBudget(slice, series.hbmPeakGbOf(step), thresholds));
    return meanBudget(devices);
}

std::optional<WasteBudget> measuredRunBudget(const StepSeries &series, const Thresholds &thresholds)
{
    if (!series.measured())
        return std::nullopt;
    std::vector<WasteBudget> steps;
    for (int i = 0; i < series.size(); ++i)
        if (!series.steps[std::size_t(i)].partial && !series.steps[std::size_t(i)].slices.empty())
            steps.push_back(stepBudget(series, i, thresholds));
    if (steps.empty())
        return std::nullopt;
    return meanBudget(steps);
}

} // namespace goblin
