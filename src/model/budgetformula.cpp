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

QString budgetRowLabel(int row)
{
    if (row == kUnattributedRow)
        return QStringLiteral("Not measured: no GPU util");
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

QString bucketFormula(int index, const WasteBudget &b, HeuristicsProfile profile)
{
    const BudgetTerms &x = b.terms;
    const QString step = formatSeconds(x.stepS);
    const QString result = formatSeconds(budgetRowSeconds(b, index));

    if (index == kStepTimeRow)
        return QStringLiteral("Step time %1 (%2 profile); every bucket is seconds per step")
            .arg(result, profileName(profile));
    if (index == kUnattributedRow)
        return b.hasUnattributed()
            ? QStringLiteral("not measured: no GPU utilisation in this run (no telemetry, no kernel timeline), so "
                             "the rest of the step is not booked as useful GPU: step − all waste = %1 − %2 = %3")
                  .arg(step, formatSeconds(x.spentS), result)
            : QStringLiteral("0: GPU utilisation was measured, so the rest of the step is useful GPU time");
    if (index < 0 || index >= WasteBudget::BucketCount)
        return {};

    switch (x.gates[std::size_t(index)]) {
    case BucketGate::NoStepTime:
        return QStringLiteral("0: no step time was found, so every bucket is 0");
    case BucketGate::UtilNotMeasured:
        return QStringLiteral("0: no GPU utilisation was measured in this run, so the rest of the step (%1) is "
                              "shown as “not measured” instead of useful GPU time")
            .arg(formatSeconds(b.unattributed));
    case BucketGate::DataWaitNotMet:
        return QStringLiteral("0: counts only when GPU util < %1 (is %2) and host busy > %3 (is %4)")
            .arg(formatPercent(x.gpuUtilBelowPct), formatPercent(x.gpuUtilPct), num(x.hostBusyAbove, 2),
                 num(x.hostBusy, 2));
    case BucketGate::NoHbmTelemetry:
        return QStringLiteral("0: no HBM telemetry");
    case BucketGate::NoHbmCapacity:
        return QStringLiteral("0: HBM capacity is 0");
    case BucketGate::HbmNotBelowTarget:
        return QStringLiteral("0: HBM peak %1 is %2 of %3, not below the %4 target")
            .arg(formatGb(x.hbmPeakGb.value_or(0.0)), formatPercent(x.hbmUsed * 100.0), formatGb(x.hbmCapacityGb),
                 formatPercent(x.hbmTargetPct));
    case BucketGate::PrecisionFastPath:
        return precisionSkips(x.precision);
    case BucketGate::NoPrecisionTaggedTime:
        return QStringLiteral("0: no fp16- or bf16-tagged kernel time");
    case BucketGate::Counted:
        break;
    }

    switch (index) {
    case 0:
        return QStringLiteral("step − all waste = %1 − %2 = %3 (never below 0)")
            .arg(step, formatSeconds(x.spentS), result);
    case 1:
        return QStringLiteral("GPU util %1 < %2 and host busy %3 > %4, so step × (1 − util) × host busy = "
                              "%5 × (1 − %6) × %3 = %7")
            .arg(formatPercent(x.gpuUtilPct), formatPercent(x.gpuUtilBelowPct), num(x.hostBusy, 2),
                 num(x.hostBusyAbove, 2), step, num(x.util), result);
    case 2:
        return QStringLiteral("step × (1 − util) × (1 − host busy) = %1 × (1 − %2) × (1 − %3) = %4")
            .arg(step, num(x.util), num(x.hostBusy), result);
    case 3:
        return profile == HeuristicsProfile::Reference
            ? QStringLiteral("sum of all collective kernel time in the trace = %1").arg(result)
            : QStringLiteral("collective kernel time per step per GPU = %1").arg(result);
    case 4:
        return QStringLiteral("slack × step × weight, slack = (target − peak / capacity) / target = "
                              "(%1 − %2 / %3) / %1 = %4; %4 × %5 × %6 = %7")
            .arg(num(x.hbmTarget, 2), formatGb(x.hbmPeakGb.value_or(0.0)), formatGb(x.hbmCapacityGb), num(x.hbmSlack),
                 step, num(x.headroomWeight, 2), result);
    case 5:
        return QStringLiteral("fp16 / (fp16 + bf16 time) × step × util × weight = %1 / %2 × %3 × %4 × %5 = %6")
            .arg(formatDurationNs(double(x.fp16Ns)), formatDurationNs(double(x.precisionDenomNs)), step, num(x.util),
                 num(x.precisionWeight, 2), result);
    case 6:
        return QStringLiteral("generic GEMM / GEMM time × step × util = %1 / %2 × %3 × %4 = %5")
            .arg(formatDurationNs(double(x.genericGemmNs)),
                 x.gemmNs != 0 ? formatDurationNs(double(x.gemmNs)) : QStringLiteral("1 ns (no GEMM time)"), step,
                 num(x.util), result);
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
    const QString useful = budget.hasUnattributed()
        ? QStringLiteral("not measured (no GPU utilisation in this run)")
        : formatPercent(100.0 * budget.usefulGpu / stepTimeS);
    if (worst < 0)
        return budget.hasUnattributed()
            ? QStringLiteral("No waste at these thresholds; useful GPU time is %1.").arg(useful)
            : QStringLiteral("No waste at these thresholds; useful GPU time is %1 of the step.").arg(useful);
    return QStringLiteral("Largest waste: %1, %2 per step (%3 of the step). Useful GPU time: %4.")
        .arg(WasteBudget::bucketLabel(worst), formatSeconds(budget.bucket(worst)),
             formatPercent(100.0 * budget.bucket(worst) / stepTimeS), useful);
}

} // namespace goblin
