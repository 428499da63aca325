#include "programcaveat.h"

#include "formatting.h"

namespace goblin {

namespace {

bool loaderSeen(const RunAnalysis &run, const WasteBudget &budget)
{
    return run.facts.program.dataLoadingSeen || budget.terms.idleDataS > 0.0;
}

/// A graph capture's GPU idle is the capture (kernels captured do not run): neither data wait nor
/// a launch gap can be read from it.
void lowerStatesForCapture(WasteBudget &b, std::array<bool, WasteBudget::BucketCount + 1> *caveated)
{
    for (int row : {1, 2}) {
        b.states[std::size_t(row)] = ValueState::Unknown;
        if (caveated)
            (*caveated)[std::size_t(row)] = true;
    }
}

void lowerDataWait(WasteBudget &b, std::array<bool, WasteBudget::BucketCount + 1> *caveated)
{
    b.states[1] = weakerState(b.states[1], ValueState::Estimated);
    if (caveated)
        (*caveated)[1] = true;
}

void append(QString &caveat, const QString &sentence)
{
    if (sentence.isEmpty())
        return;
    caveat = caveat.isEmpty() ? sentence : caveat + QStringLiteral(". ") + sentence;
}

} // namespace

bool dataWaitIsHostBusyIdle(const RunAnalysis &run, const WasteBudget &budget)
{
    if (!(budget.dataWait > 0.0) || loaderSeen(run, budget))
        return false;
    const BudgetTerms &t = budget.terms;
    // Measured: the share of idle during host work the gate moved into data wait. The seed's
    // formula: all of its data wait is idle split by host busy.
    return t.measured ? t.dataWaitGateMet && t.idleHostS > 0.0 : t.gates[1] == BucketGate::Counted;
}

void applyProgramFacts(const RunAnalysis &run, Derived &d)
{
    if (d.profile != HeuristicsProfile::Workbench)
        return;
    const ProgramFacts &program = run.facts.program;
    if (program.kind == ProgramKind::RangeProfile) {
        append(d.caveat, QStringLiteral("A CUPTI range-profiler capture (%1 cuda_profiler_range events, no kernel): it "
                                        "records counters per range and times no kernel, so no second of this budget "
                                        "is measured")
                             .arg(program.profilerRanges));
        return;
    }
    if (program.kind == ProgramKind::GraphCapture && d.metrics.wasteBudget.terms.measured) {
        lowerStatesForCapture(d.metrics.wasteBudget, &d.caveated);
        for (WasteBudget &b : d.stepBudgets)
            lowerStatesForCapture(b, nullptr);
        for (RankResult &r : d.ranks)
            lowerStatesForCapture(r.budget, nullptr);
        append(d.caveat, QStringLiteral("A graph capture: kernels launched while a stream is captured do not run, so "
                                        "the GPU idles while the graph is recorded; that idle is neither data wait nor "
                                        "a launch gap"));
        return;
    }
    if (dataWaitIsHostBusyIdle(run, d.metrics.wasteBudget)) {
        lowerDataWait(d.metrics.wasteBudget, &d.caveated);
        for (WasteBudget &b : d.stepBudgets)
            if (dataWaitIsHostBusyIdle(run, b))
                lowerDataWait(b, nullptr);
        for (RankResult &r : d.ranks)
            if (dataWaitIsHostBusyIdle(run, r.budget))
                lowerDataWait(r.budget, nullptr);
        append(d.caveat, QStringLiteral("Data wait (estimated): no data-loading op was seen, so it is GPU idle while "
                                        "the host ran other work, which the thresholds book as data wait"));
    }
}

} // namespace goblin
