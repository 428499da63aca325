#include "measuredbudget.h"

#include "timeline.h"

#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

double seconds(qint64 ns) { return double(ns) / 1e9; }

} // namespace

MeasuredSlice MeasuredSlice::fromTimeline(const TimelineStepValues &v, bool hostKnown, double hostBusyFraction)
{
    MeasuredSlice s;
    s.windowNs = v.windowNs;
    s.busyNs = v.busyNs;
    s.computeNs = v.computeNs;
    s.exposedCommNs = v.exposedCommNs;
    s.h2dCopyOnlyNs = v.h2dCopyOnlyNs;
    s.otherCopyOnlyNs = v.copyOnlyNs - v.h2dCopyOnlyNs;
    s.idleDataLoadingNs = v.idleDataLoadingNs;
    s.idleHostOtherNs = v.idleHostBusyNs - v.idleDataLoadingNs;
    s.idleNothingNs = v.idleNothingNs;
    s.genericGemmNs = v.genericGemmNs;
    s.gemmNs = v.gemmNs;
    s.fp16Ns = v.fp16Ns;
    s.bf16Ns = v.bf16Ns;
    s.hostKnown = hostKnown;
    s.hostBusyFraction = hostKnown ? hostBusyFraction : 0.0;
    return s;
}

WasteBudget computeMeasuredBudget(const MeasuredSlice &in, std::optional<double> hbmPeakGb, const Thresholds &t)
{
    WasteBudget b;
    BudgetTerms &x = b.terms;
    x.measured = true;
    const double stepS = seconds(in.windowNs);
    x.stepS = stepS;
    x.gpuUtilPct = in.utilPct();
    x.util = x.gpuUtilPct / 100.0;
    x.hostBusy = in.hostBusyFraction;
    x.hostKnown = in.hostKnown;
    x.gpuUtilBelowPct = t.gpuUtilBelowPct;
    x.hostBusyAbove = t.hostBusyAbove;
    x.precision = t.precision;
    x.precisionWeight = t.precisionWeight;
    x.hbmPeakGb = hbmPeakGb;
    x.hbmCapacityGb = t.hbmCapacityGb;
    x.hbmTargetPct = t.hbmTargetPct;
    x.headroomWeight = t.headroomWeight;
    x.genericGemmNs = in.genericGemmNs;
    x.gemmNs = in.gemmNs;
    x.fp16Ns = in.fp16Ns;
    x.precisionDenomNs = in.fp16Ns + in.bf16Ns;
    x.computeS = seconds(in.computeNs);
    x.exposedCommS = seconds(in.exposedCommNs);
    x.h2dCopyS = seconds(in.h2dCopyOnlyNs);
    x.otherCopyS = seconds(in.otherCopyOnlyNs);
    x.idleDataS = seconds(in.idleDataLoadingNs);
    x.idleHostS = seconds(in.idleHostOtherNs);
    x.idleNothingS = seconds(in.idleNothingNs);
    x.genericGemmS = seconds(in.genericGemmNs);
    x.fp16S = seconds(in.fp16Ns);
    if (!(in.windowNs > 0)) {
        x.gates.fill(BucketGate::NoStepTime);
        return b;
    }

    // Busy compute: untuned GEMMs and fp16 kernels are carved out of it, the rest is useful.
    const double kernelShape = std::min(x.genericGemmS, x.computeS);
    double precision = 0.0;
    if (t.precision == Precision::Bf16 || t.precision == Precision::Fp8) {
        x.gates[5] = BucketGate::PrecisionFastPath;
    } else if (x.precisionDenomNs <= 0) {
        x.gates[5] = BucketGate::NoPrecisionTaggedTime;
    } else {
        precision = std::min(x.fp16S * t.precisionWeight, x.computeS - kernelShape);
    }
    b.kernelShape = kernelShape;
    b.precisionPath = precision;
    b.usefulGpu = x.computeS - kernelShape - precision;
    b.commExcess = x.exposedCommS;

    // Idle and copies: the thresholds decide only where idle during other host work goes.
    x.dataWaitGateMet = in.hostKnown && x.gpuUtilPct < t.gpuUtilBelowPct && in.hostBusyFraction > t.hostBusyAbove;
    double pool = 0.0;  // the idle memory headroom is taken from
    if (in.hostKnown) {
        b.dataWait = x.idleDataS + x.h2dCopyS + (x.dataWaitGateMet ? x.idleHostS : 0.0);
        b.hostGap = x.idleNothingS + (x.dataWaitGateMet ? 0.0 : x.idleHostS);
        b.unattributed = x.otherCopyS;
        pool = b.hostGap;
        if (!x.dataWaitGateMet)
            x.gates[1] = BucketGate::DataWaitNotMet;
    } else {
        b.dataWait = x.h2dCopyS;
        b.unattributed = x.otherCopyS + x.idleDataS + x.idleHostS + x.idleNothingS;
        pool = b.unattributed - x.otherCopyS;
        x.gates[1] = BucketGate::HostNotTraced;
        x.gates[2] = BucketGate::HostNotTraced;
    }

    if (!(hbmPeakGb && *hbmPeakGb > 0.0)) {
        x.gates[4] = BucketGate::NoHbmTelemetry;
    } else if (!(t.hbmCapacityGb > 0.0)) {
        x.gates[4] = BucketGate::NoHbmCapacity;
    } else {
        x.hbmUsed = *hbmPeakGb / t.hbmCapacityGb;
        x.hbmTarget = t.hbmTargetPct / 100.0;
        if (x.hbmUsed < x.hbmTarget) {
            x.hbmSlack = (x.hbmTarget - x.hbmUsed) / x.hbmTarget;
            x.headroomWantedS = x.hbmSlack * stepS * t.headroomWeight;
            b.memoryHeadroom = std::clamp(x.headroomWantedS, 0.0, pool);
            (in.hostKnown ? b.hostGap : b.unattributed) -= b.memoryHeadroom;
        } else {
            x.gates[4] = BucketGate::HbmNotBelowTarget;
        }
    }
    x.spentS = b.dataWait + b.hostGap + b.commExcess + b.memoryHeadroom + b.precisionPath + b.kernelShape;

    b.states[0] = kernelShape > 0.0 || precision > 0.0 ? ValueState::Estimated : ValueState::Measured;
    b.states[1] = in.hostKnown ? (x.dataWaitGateMet && x.idleHostS > 0.0 ? ValueState::Estimated : ValueState::Measured)
                               : ValueState::Unknown;
    b.states[2] = in.hostKnown ? ValueState::Measured : ValueState::Unknown;
    b.states[3] = ValueState::Measured;
    b.states[4] = x.gates[4] == BucketGate::NoHbmTelemetry ? ValueState::Unknown : ValueState::Estimated;
    b.states[5] = ValueState::Estimated;
    b.states[6] = ValueState::Estimated;
    b.states[WasteBudget::UnattributedIndex] = ValueState::Measured;
    return b;
}

WasteBudget meanBudget(const std::vector<WasteBudget> &budgets)
{
    if (budgets.empty())
        return {};
    if (budgets.size() == 1)
        return budgets.front();
    const double n = double(budgets.size());
    WasteBudget mean = budgets.front();
    BudgetTerms &t = mean.terms;
    auto avg = [&](auto member) {
        double sum = 0.0;
        for (const WasteBudget &b : budgets)
            sum += double(b.*member);
        return sum / n;
    };
    auto avgTerm = [&](auto member) {
        double sum = 0.0;
        for (const WasteBudget &b : budgets)
            sum += double(b.terms.*member);
        return sum / n;
    };
    auto avgTermNs = [&](qint64 BudgetTerms::*member) { return qint64(std::llround(avgTerm(member))); };
    mean.usefulGpu = avg(&WasteBudget::usefulGpu);
    mean.dataWait = avg(&WasteBudget::dataWait);
    mean.hostGap = avg(&WasteBudget::hostGap);
    mean.commExcess = avg(&WasteBudget::commExcess);
    mean.memoryHeadroom = avg(&WasteBudget::memoryHeadroom);
    mean.precisionPath = avg(&WasteBudget::precisionPath);
    mean.kernelShape = avg(&WasteBudget::kernelShape);
    mean.unattributed = avg(&WasteBudget::unattributed);
    for (double BudgetTerms::*member :
         {&BudgetTerms::stepS, &BudgetTerms::gpuUtilPct, &BudgetTerms::util, &BudgetTerms::hostBusy,
          &BudgetTerms::spentS, &BudgetTerms::hbmUsed, &BudgetTerms::hbmSlack, &BudgetTerms::computeS,
          &BudgetTerms::exposedCommS, &BudgetTerms::h2dCopyS, &BudgetTerms::otherCopyS, &BudgetTerms::idleDataS,
          &BudgetTerms::idleHostS, &BudgetTerms::idleNothingS, &BudgetTerms::genericGemmS, &BudgetTerms::fp16S,
          &BudgetTerms::headroomWantedS})
        t.*member = avgTerm(member);
    for (qint64 BudgetTerms::*member : {&BudgetTerms::genericGemmNs, &BudgetTerms::gemmNs, &BudgetTerms::fp16Ns,
                                        &BudgetTerms::precisionDenomNs})
        t.*member = avgTermNs(member);
    for (const WasteBudget &b : budgets) {
        for (int i = 0; i < BudgetTerms::BucketCount; ++i)
            if (b.terms.gates[std::size_t(i)] != t.gates[std::size_t(i)])
                t.gates[std::size_t(i)] = BucketGate::Counted;
        for (std::size_t i = 0; i < mean.states.size(); ++i)
            mean.states[i] = weakerState(mean.states[i], b.states[i]);
        t.measured = t.measured && b.terms.measured;
        t.hostKnown = t.hostKnown && b.terms.hostKnown;
        t.dataWaitGateMet = t.dataWaitGateMet || b.terms.dataWaitGateMet;
    }
    return mean;
}

} // namespace goblin
