#include "rankresults.h"

#include "metrics.h"

#include <algorithm>
#include <cmath>

namespace goblin {

std::vector<RankResult> rankResults(const RankSet &set, const Thresholds &thresholds)
{
    std::vector<RankResult> out;
    out.reserve(set.ranks.size());
    for (const RankInputs &r : set.ranks) {
        RankResult x;
        x.inputs = &r;
        const StepTimeChoice step = stepTimeFor(r.analysis, thresholds);
        x.budget = computeMetrics(r.analysis, thresholds).wasteBudget;
        x.stepTimeS = step.stepTimeS;
        x.stepTimeSource = step.source;
        x.commExcessS = step.commExcessS;
        const auto perStep = [&](double ns) {
            return r.stepMarks ? ns / 1e9 : step.stepsCovered > 0.0 ? ns / 1e9 / step.stepsCovered : 0.0;
        };
        x.exposedCommSPerStep = perStep(r.exposedCommNs);
        x.computeSPerStep = perStep(r.computeNs);
        out.push_back(std::move(x));
    }
    return out;
}

std::optional<WasteBudget> meanRankBudget(const RankSet &set, const Thresholds &thresholds)
{
    if (!set.budgetIsMean || set.ranks.size() < 2)
        return std::nullopt;
    std::vector<WasteBudget> budgets;
    for (const RankResult &x : rankResults(set, thresholds))
        budgets.push_back(x.budget);
    return meanBudget(budgets);
}

std::optional<RankSpread> rankSpread(const std::vector<RankResult> &results)
{
    if (results.empty())
        return std::nullopt;
    RankSpread s;
    s.ranks = int(results.size());
    auto extreme = [&](auto value) {
        RankExtreme e;
        e.min = e.max = value(results.front());
        e.stragglerRank = results.front().inputs->rank;
        for (std::size_t i = 0; i < results.size(); ++i) {
            const RankResult &x = results[i];
            const double v = value(x);
            e.min = std::min(e.min, v);
            if (v > e.max || (v == e.max && x.inputs->rank < e.stragglerRank)) {
                e.max = v;
                e.stragglerRank = x.inputs->rank;
                e.stragglerIndex = int(i);
            }
        }
        return e;
    };
    s.stepTimeS = extreme([](const RankResult &x) { return x.stepTimeS; });
    s.exposedCommSPerStep = extreme([](const RankResult &x) { return x.exposedCommSPerStep; });
    s.computeSPerStep = extreme([](const RankResult &x) { return x.computeSPerStep; });
    s.ownWorkSPerStep = extreme([](const RankResult &x) { return x.ownWorkSPerStep(); });
    return s;
}

} // namespace goblin
