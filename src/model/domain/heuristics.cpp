#include "heuristics.h"

#include <algorithm>

namespace goblin {

QString profileName(HeuristicsProfile profile)
{
    return profile == HeuristicsProfile::Reference ? QStringLiteral("reference") : QStringLiteral("workbench");
}

std::optional<HeuristicsProfile> profileFromName(const QString &name)
{
    if (name == QLatin1String("reference"))
        return HeuristicsProfile::Reference;
    if (name == QLatin1String("workbench"))
        return HeuristicsProfile::Workbench;
    return std::nullopt;
}

QString precisionName(Precision precision)
{
    switch (precision) {
    case Precision::None:
        return QStringLiteral("none");
    case Precision::Fp32:
        return QStringLiteral("fp32");
    case Precision::Fp16:
        return QStringLiteral("fp16");
    case Precision::Bf16:
        return QStringLiteral("bf16");
    case Precision::Fp8:
        return QStringLiteral("fp8");
    }
    return QStringLiteral("none");
}

std::optional<Precision> precisionFromName(const QString &name)
{
    for (Precision p : {Precision::None, Precision::Fp32, Precision::Fp16, Precision::Bf16, Precision::Fp8})
        if (precisionName(p) == name)
            return p;
    return std::nullopt;
}

QString valueStateName(ValueState state)
{
    switch (state) {
    case ValueState::Measured:
        return QStringLiteral("measured");
    case ValueState::Estimated:
        return QStringLiteral("estimated");
    case ValueState::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

ValueState weakerState(ValueState a, ValueState b)
{
    return quint8(a) > quint8(b) ? a : b;
}

QString budgetRowLabel(int row)
{
    if (row == kUnattributedRow)
        return QStringLiteral("Unattributed");
    if (row == kStepTimeRow)
        return QStringLiteral("Step time");
    return WasteBudget::bucketLabel(row);
}

double budgetRowSeconds(const WasteBudget &budget, int row)
{
    if (row == kUnattributedRow)
        return budget.unattributed;
    if (row == kStepTimeRow)
        return budget.terms.stepS;
    return budget.bucket(row);
}

double WasteBudget::bucket(int index) const
{
    switch (index) {
    case 0:
        return usefulGpu;
    case 1:
        return dataWait;
    case 2:
        return hostGap;
    case 3:
        return commExcess;
    case 4:
        return memoryHeadroom;
    case 5:
        return precisionPath;
    case 6:
        return kernelShape;
    }
    return 0.0;
}

QString WasteBudget::bucketKey(int index)
{
    static const char *keys[BucketCount] = {"useful_gpu",      "data_wait",      "host_gap",    "comm_excess",
                                            "memory_headroom", "precision_path", "kernel_shape"};
    return index >= 0 && index < BucketCount ? QString::fromLatin1(keys[index]) : QString();
}

QString WasteBudget::bucketLabel(int index)
{
    static const char *labels[BucketCount] = {"Useful GPU",      "Data wait",      "Host gap",    "Collective comm",
                                              "Memory headroom", "Precision path", "Kernel shape"};
    return index >= 0 && index < BucketCount ? QString::fromLatin1(labels[index]) : QString();
}

namespace {

/// The seed's formulas estimate every bucket; a bucket whose inputs nothing measured is unknown
/// (workbench profile; the reference profile shows the reference's estimates as they are).
void seedStates(WasteBudget &b, const BudgetInputs &in, HeuristicsProfile profile)
{
    b.states.fill(ValueState::Estimated);
    b.states[WasteBudget::UnattributedIndex] = b.unattributed > 0.0 ? ValueState::Estimated : ValueState::Measured;
    if (profile == HeuristicsProfile::Reference)
        return;
    const ValueState util = in.gpuUtilKnown ? ValueState::Estimated : ValueState::Unknown;
    const ValueState host = in.hostBusyKnown ? ValueState::Estimated : ValueState::Unknown;
    const ValueState kernels = in.kernelsKnown ? ValueState::Estimated : ValueState::Unknown;
    b.states[0] = util;
    b.states[1] = weakerState(util, host);
    b.states[2] = weakerState(util, host);
    b.states[3] = kernels;
    b.states[4] = b.terms.gates[4] == BucketGate::NoHbmTelemetry ? ValueState::Unknown : ValueState::Estimated;
    b.states[5] = b.terms.gates[5] == BucketGate::PrecisionFastPath ? ValueState::Estimated : weakerState(util, kernels);
    b.states[6] = weakerState(util, kernels);
}

} // namespace

WasteBudget computeWasteBudget(const BudgetInputs &in, const Thresholds &t, HeuristicsProfile profile)
{
    // Operation order follows the reference exactly so the reference profile stays bit-exact.
    // Every gate is decided here once and recorded in b.terms; budgetformula.cpp only prints it.
    WasteBudget b;
    BudgetTerms &x = b.terms;
    const double stepT = in.stepTimeS;
    x.stepS = stepT;
    x.gpuUtilPct = in.gpuUtilPct;
    x.gpuUtilKnown = in.gpuUtilKnown;
    x.hostBusy = in.hostBusyFraction;
    x.gpuUtilBelowPct = t.gpuUtilBelowPct;
    x.hostBusyAbove = t.hostBusyAbove;
    x.genericGemmNs = in.genericGemmNs;
    x.gemmNs = in.gemmNs;
    x.fp16Ns = in.fp16Ns;
    x.precisionDenomNs = in.fp16Ns + in.bf16Ns;
    x.precisionWeight = t.precisionWeight;
    x.precision = t.precision;
    x.hbmPeakGb = in.hbmPeakGb;
    x.hbmCapacityGb = t.hbmCapacityGb;
    x.hbmTargetPct = t.hbmTargetPct;
    x.headroomWeight = t.headroomWeight;
    if (!(stepT > 0.0)) {
        x.gates.fill(BucketGate::NoStepTime);
        return b;  // every state stays Unknown: there is no budget
    }
    const double gpuUtil = in.gpuUtilPct / 100.0;
    const double hostBusy = in.hostBusyFraction;
    x.util = gpuUtil;

    if (gpuUtil < t.gpuUtilBelowPct / 100.0 && hostBusy > t.hostBusyAbove)
        b.dataWait = stepT * (1.0 - gpuUtil) * hostBusy;
    else
        x.gates[1] = BucketGate::DataWaitNotMet;
    b.hostGap = stepT * (1.0 - gpuUtil) * (1.0 - hostBusy);
    b.commExcess = in.commExcessS;

    const double gemmTotalNs = in.gemmNs != 0 ? double(in.gemmNs) : 1.0;
    b.kernelShape = (double(in.genericGemmNs) / gemmTotalNs) * stepT * gpuUtil;

    if (t.precision == Precision::None || t.precision == Precision::Fp16 || t.precision == Precision::Fp32) {
        const qint64 denom = in.fp16Ns + in.bf16Ns;
        if (denom > 0)
            b.precisionPath = (double(in.fp16Ns) / double(denom)) * stepT * gpuUtil * t.precisionWeight;
        else
            x.gates[5] = BucketGate::NoPrecisionTaggedTime;
    } else {
        x.gates[5] = BucketGate::PrecisionFastPath;
    }

    if (!(in.hbmPeakGb && *in.hbmPeakGb > 0.0)) {
        x.gates[4] = BucketGate::NoHbmTelemetry;
    } else if (!(t.hbmCapacityGb > 0.0)) {
        x.gates[4] = BucketGate::NoHbmCapacity;
    } else {
        const double utilisation = *in.hbmPeakGb / t.hbmCapacityGb;
        const double target = t.hbmTargetPct / 100.0;
        x.hbmUsed = utilisation;
        x.hbmTarget = target;
        if (utilisation < target) {
            const double slack = (target - utilisation) / target;
            x.hbmSlack = slack;
            b.memoryHeadroom = slack * stepT * t.headroomWeight;
        } else {
            x.gates[4] = BucketGate::HbmNotBelowTarget;
        }
    }

    if (profile == HeuristicsProfile::Workbench) {
        // A formula fed an input nothing measured gives a made-up number: those buckets are 0 and
        // unknown, and their share of the step is unattributed, not useful GPU.
        if (!in.gpuUtilKnown) {
            b.dataWait = b.hostGap = b.kernelShape = b.precisionPath = 0.0;
            x.gates[1] = x.gates[2] = BucketGate::UtilNotMeasured;
        } else if (!in.hostBusyKnown) {
            b.dataWait = b.hostGap = 0.0;
            b.unattributed = stepT * (1.0 - gpuUtil);  // the idle share, which no host reading splits
            x.gates[1] = x.gates[2] = BucketGate::HostNotTraced;
        }
    }
    const double spent = b.dataWait + b.hostGap + b.commExcess + b.kernelShape + b.precisionPath + b.memoryHeadroom;
    x.spentS = spent;
    const double leftover = std::max(0.0, stepT - spent - b.unattributed);
    if (profile == HeuristicsProfile::Workbench && !in.gpuUtilKnown) {
        b.unattributed = leftover;
        x.gates[0] = BucketGate::UtilNotMeasured;
    } else {
        b.usefulGpu = leftover;
    }
    seedStates(b, in, profile);
    return b;
}

WasteBudget computeWasteBudget(const BudgetInputs &inputs, const Thresholds &thresholds)
{
    return computeWasteBudget(inputs, thresholds, HeuristicsProfile::Workbench);
}

} // namespace goblin
