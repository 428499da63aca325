#include "budgetformula.h"

#include "formatting.h"

namespace goblin {

namespace {

QString num(double value, int decimals = 3)
{
    return formatNumber(value, decimals);
}

QString precisionSkips(Precision precision)
{
    return QStringLiteral("0: precision is %1, already on the fast path").arg(precisionName(precision));
}

} // namespace

QString bucketFormula(int index, const BudgetInputs &in, const Thresholds &t, const WasteBudget &b,
                      HeuristicsProfile profile)
{
    const double stepT = in.stepTimeS;
    const double util = in.gpuUtilPct / 100.0;
    const double hostBusy = in.hostBusyFraction;
    const QString step = formatSeconds(stepT);
    const QString result = formatSeconds(index == kStepTimeRow ? stepT : b.bucket(index));

    if (index == kStepTimeRow)
        return QStringLiteral("Step time %1 (%2 profile); every bucket is seconds per step")
            .arg(result, profileName(profile));
    if (!(stepT > 0.0))
        return QStringLiteral("0: no step time was found, so every bucket is 0");

    switch (index) {
    case 0: {
        const double spent = b.dataWait + b.hostGap + b.commExcess + b.kernelShape + b.precisionPath + b.memoryHeadroom;
        return QStringLiteral("step − all waste = %1 − %2 = %3 (never below 0)")
            .arg(step, formatSeconds(spent), result);
    }
    case 1:
        if (util < t.gpuUtilBelowPct / 100.0 && hostBusy > t.hostBusyAbove)
            return QStringLiteral("GPU util %1 < %2 and host busy %3 > %4, so step × (1 − util) × host busy = "
                                  "%5 × (1 − %6) × %3 = %7")
                .arg(formatPercent(in.gpuUtilPct), formatPercent(t.gpuUtilBelowPct), num(hostBusy, 2),
                     num(t.hostBusyAbove, 2), step, num(util), result);
        return QStringLiteral("0: counts only when GPU util < %1 (is %2) and host busy > %3 (is %4)")
            .arg(formatPercent(t.gpuUtilBelowPct), formatPercent(in.gpuUtilPct), num(t.hostBusyAbove, 2),
                 num(hostBusy, 2));
    case 2:
        return QStringLiteral("step × (1 − util) × (1 − host busy) = %1 × (1 − %2) × (1 − %3) = %4")
            .arg(step, num(util), num(hostBusy), result);
    case 3:
        return profile == HeuristicsProfile::Reference
            ? QStringLiteral("sum of all collective kernel time in the trace = %1").arg(result)
            : QStringLiteral("collective kernel time per step per GPU = %1").arg(result);
    case 4: {
        if (!in.hbmPeakGb || !(*in.hbmPeakGb > 0.0))
            return QStringLiteral("0: no HBM telemetry");
        if (!(t.hbmCapacityGb > 0.0))
            return QStringLiteral("0: HBM capacity is 0");
        const double used = *in.hbmPeakGb / t.hbmCapacityGb;
        const double target = t.hbmTargetPct / 100.0;
        if (!(used < target))
            return QStringLiteral("0: HBM peak %1 is %2 of %3, not below the %4 target")
                .arg(formatGb(*in.hbmPeakGb), formatPercent(used * 100.0), formatGb(t.hbmCapacityGb),
                     formatPercent(t.hbmTargetPct));
        const double slack = (target - used) / target;
        return QStringLiteral("slack × step × weight, slack = (target − peak / capacity) / target = "
                              "(%1 − %2 / %3) / %1 = %4; %4 × %5 × %6 = %7")
            .arg(num(target, 2), formatGb(*in.hbmPeakGb), formatGb(t.hbmCapacityGb), num(slack), step,
                 num(t.headroomWeight, 2), result);
    }
    case 5: {
        if (!(t.precision == Precision::None || t.precision == Precision::Fp16 || t.precision == Precision::Fp32))
            return precisionSkips(t.precision);
        const qint64 denom = in.fp16Ns + in.bf16Ns;
        if (denom <= 0)
            return QStringLiteral("0: no fp16- or bf16-tagged kernel time");
        return QStringLiteral("fp16 / (fp16 + bf16 time) × step × util × weight = %1 / %2 × %3 × %4 × %5 = %6")
            .arg(formatDurationNs(double(in.fp16Ns)), formatDurationNs(double(denom)), step, num(util),
                 num(t.precisionWeight, 2), result);
    }
    case 6:
        return QStringLiteral("generic GEMM / GEMM time × step × util = %1 / %2 × %3 × %4 = %5")
            .arg(formatDurationNs(double(in.genericGemmNs)),
                 in.gemmNs != 0 ? formatDurationNs(double(in.gemmNs)) : QStringLiteral("1 ns (no GEMM time)"), step,
                 num(util), result);
    }
    return {};
}

QString budgetVerdict(const WasteBudget &budget, double stepTimeS)
{
    if (!(stepTimeS > 0.0))
        return QStringLiteral("No step time was found, so there is no budget (see Diagnostics).");
    int worst = -1;
    for (int i = 1; i < WasteBudget::BucketCount; ++i)
        if (budget.bucket(i) > 0.0 && (worst < 0 || budget.bucket(i) > budget.bucket(worst)))
            worst = i;
    const QString useful = formatPercent(100.0 * budget.usefulGpu / stepTimeS);
    if (worst < 0)
        return QStringLiteral("No waste at these thresholds; useful GPU time is %1 of the step.").arg(useful);
    return QStringLiteral("Largest waste: %1, %2 per step (%3 of the step). Useful GPU time: %4.")
        .arg(WasteBudget::bucketLabel(worst), formatSeconds(budget.bucket(worst)),
             formatPercent(100.0 * budget.bucket(worst) / stepTimeS), useful);
}

} // namespace goblin
