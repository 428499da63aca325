#include "budgetformula.h"

#include "formatting.h"

#include <QStringList>

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

QString ms(double seconds) { return formatSeconds(seconds); }

/// Why memory headroom is 0 with an HBM peak known: no capacity, or the peak not below the target.
QString hbmGateText(const BudgetTerms &x, BucketGate gate)
{
    if (gate == BucketGate::NoHbmCapacity)
        return QStringLiteral("0: HBM capacity is 0");
    return QStringLiteral("0: HBM peak %1 is %2 of %3, not below the %4 target")
        .arg(formatGb(x.hbmPeakGb.value_or(0.0)), formatPercent(x.hbmUsed * 100.0), formatGb(x.hbmCapacityGb),
             formatPercent(x.hbmTargetPct));
}

/// The measured budget's rows, from its terms: what the timeline measured and where it went.
QString measuredFormula(int index, const WasteBudget &b)
{
    const BudgetTerms &x = b.terms;
    const QString result = formatSeconds(budgetRowSeconds(b, index));
    if (x.gates[0] == BucketGate::NoStepTime)
        return QStringLiteral("0: the step window is empty");
    const QString gate = QStringLiteral("GPU util %1 %2 %3 and host busy %4 %5 %6")
                             .arg(formatPercent(x.gpuUtilPct), x.gpuUtilPct < x.gpuUtilBelowPct ? QStringLiteral("<")
                                                                                                : QStringLiteral("≥"),
                                  formatPercent(x.gpuUtilBelowPct), num(x.hostBusy, 2),
                                  x.hostBusy > x.hostBusyAbove ? QStringLiteral(">") : QStringLiteral("≤"),
                                  num(x.hostBusyAbove, 2));
    switch (index) {
    case kStepTimeRow:
        return QStringLiteral("Step time %1: the measured step window; the buckets partition it").arg(result);
    case kUnattributedRow:
        return x.hostKnown
                   ? QStringLiteral("copies and memsets alone on the GPU that bring no input (not host-to-device) = %1")
                         .arg(result)
                   : QStringLiteral("copies alone on the GPU %1 + GPU idle %2 the trace cannot attribute: it shows no "
                                    "host activity to tell data wait from host gap%3 = %4")
                         .arg(ms(x.otherCopyS), ms(x.idleDataS + x.idleHostS + x.idleNothingS),
                              b.memoryHeadroom > 0.0 ? QStringLiteral(" − memory headroom %1").arg(ms(b.memoryHeadroom))
                                                     : QString(),
                              result);
    case 0:
        return QStringLiteral("busy compute − kernel shape − precision path = %1 − %2 − %3 = %4 (measured on the GPU "
                              "timeline; never more than the busy compute)")
            .arg(ms(x.computeS), ms(b.kernelShape), ms(b.precisionPath), result);
    case 1:
        if (!x.hostKnown)
            return QStringLiteral("host-to-device copies alone on the GPU = %1; idle is not split (no host activity "
                                  "in the trace, see Unattributed)")
                .arg(result);
        return x.dataWaitGateMet
                   ? QStringLiteral("GPU idle in data-loading ranges %1 + host-to-device copies alone %2 + idle while "
                                    "other host work runs %3 (%4, so the thresholds count it as data wait) = %5")
                         .arg(ms(x.idleDataS), ms(x.h2dCopyS), ms(x.idleHostS), gate, result)
                   : QStringLiteral("GPU idle in data-loading ranges %1 + host-to-device copies alone %2 = %3 (idle "
                                    "while other host work runs counts here when GPU util < %4 and host busy > %5; "
                                    "%6)")
                         .arg(ms(x.idleDataS), ms(x.h2dCopyS), result, formatPercent(x.gpuUtilBelowPct),
                              num(x.hostBusyAbove, 2), gate);
    case 2:
        if (!x.hostKnown)
            return QStringLiteral("unknown: the trace shows no host activity (its idle is in Unattributed)");
        return QStringLiteral("GPU idle with nothing running on the host %1%2%3 = %4")
            .arg(ms(x.idleNothingS),
                 x.dataWaitGateMet ? QString()
                                   : QStringLiteral(" + idle while other host work runs %1").arg(ms(x.idleHostS)),
                 b.memoryHeadroom > 0.0 ? QStringLiteral(" − memory headroom %1").arg(ms(b.memoryHeadroom)) : QString(),
                 result);
    case 3:
        return QStringLiteral("exposed communication: collective kernels no compute kernel overlaps = %1 (collective "
                              "time hidden under compute is not waste)")
            .arg(result);
    case 4:
        if (x.gates[4] == BucketGate::NoHbmTelemetry)
            return QStringLiteral("unknown: no HBM peak (no memory telemetry)");
        if (x.gates[4] == BucketGate::NoHbmCapacity || x.gates[4] == BucketGate::HbmNotBelowTarget)
            return hbmGateText(x, x.gates[4]);
        return QStringLiteral("the idle a larger batch could fill: slack × step × weight = %1 × %2 × %3 = %4, taken "
                              "from the %5 (at most all of it) = %6")
            .arg(num(x.hbmSlack), formatSeconds(x.stepS), num(x.headroomWeight, 2), ms(x.headroomWantedS),
                 x.hostKnown ? QStringLiteral("host gap") : QStringLiteral("unattributed idle"), result);
    case 5:
        if (x.gates[5] == BucketGate::PrecisionFastPath)
            return precisionSkips(x.precision);
        if (x.gates[5] == BucketGate::NoPrecisionTaggedTime)
            return QStringLiteral("0: no fp16- or bf16-tagged kernel time in the step");
        return QStringLiteral("fp16-tagged kernel time × precision weight = %1 × %2 = %3, carved out of busy compute")
            .arg(ms(x.fp16S), num(x.precisionWeight, 2), result);
    case 6:
        return QStringLiteral("untuned (generic/fallback) GEMM kernel time in the step = %1, carved out of busy compute")
            .arg(result);
    }
    return {};
}

} // namespace

QString bucketFormula(int index, const WasteBudget &b, HeuristicsProfile profile)
{
    const BudgetTerms &x = b.terms;
    const QString step = formatSeconds(x.stepS);
    const QString result = formatSeconds(budgetRowSeconds(b, index));

    if (index == kStepTimeRow)
        return QStringLiteral("Step time %1 (%2 profile); every bucket is seconds per step")
            .arg(result, profileName(profile));
    if (x.measured)
        return measuredFormula(index, b);
    if (index == kUnattributedRow)
        return x.gates[1] == BucketGate::HostNotTraced
            ? QStringLiteral("step × (1 − util) = %1 × (1 − %2) = %3: the GPU's idle share, which nothing traced "
                             "on the host can split into data wait and host gap")
                  .arg(step, num(x.util), result)
            : b.hasUnattributed()
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
        if (index != 0)
            return QStringLiteral("unknown: no GPU utilisation was measured in this run, so this formula has no "
                                  "input; its share of the step is unattributed");
        return QStringLiteral("0: no GPU utilisation was measured in this run, so the rest of the step (%1) is "
                              "shown as unattributed instead of useful GPU time")
            .arg(formatSeconds(b.unattributed));
    case BucketGate::HostNotTraced:
        return QStringLiteral("unknown: nothing traced the host (no CPU operators, no metadata), so the GPU's idle "
                              "share (%1) is unattributed, not split into data wait and host gap")
            .arg(formatSeconds(b.unattributed));
    case BucketGate::DataWaitNotMet:
        return QStringLiteral("0: counts only when GPU util < %1 (is %2) and host busy > %3 (is %4)")
            .arg(formatPercent(x.gpuUtilBelowPct), formatPercent(x.gpuUtilPct), num(x.hostBusyAbove, 2),
                 num(x.hostBusy, 2));
    case BucketGate::NoHbmTelemetry:
        return QStringLiteral("0: no HBM telemetry");
    case BucketGate::NoHbmCapacity:
    case BucketGate::HbmNotBelowTarget:
        return hbmGateText(x, x.gates[std::size_t(index)]);
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
        return QStringLiteral("No budget: no step time was found (see Diagnostics).");
    int worst = -1;
    QStringList unknown;
    for (int i = 1; i < WasteBudget::BucketCount; ++i) {
        if (budget.state(i) == ValueState::Unknown) {
            unknown << WasteBudget::bucketLabel(i).toLower();
            continue;
        }
        if (budget.bucket(i) > 0.0 && (worst < 0 || budget.bucket(i) > budget.bucket(worst)))
            worst = i;
    }
    const QString useful = budget.state(0) == ValueState::Unknown
                               ? QStringLiteral("unknown (nothing measured the GPU)")
                               : formatPercent(100.0 * budget.usefulGpu / stepTimeS);
    QString unknownNote =
        unknown.isEmpty() ? QString() : QStringLiteral(" Unknown: %1.").arg(unknown.join(QStringLiteral(", ")));
    if (budget.unattributed > 0.0 && budget.unattributed >= 0.01 * stepTimeS)
        unknownNote += QStringLiteral(" Unattributed: %1 (%2 of the step).")
                           .arg(formatSeconds(budget.unattributed), formatPercent(100.0 * budget.unattributed / stepTimeS));
    if (worst < 0)
        return unknown.isEmpty()
                   ? QStringLiteral("No waste at these thresholds; useful GPU time is %1 of the step.").arg(useful)
                   : QStringLiteral("No waste measured at these thresholds; useful GPU time: %1.%2").arg(useful, unknownNote);
    return QStringLiteral("Largest waste: %1, %2 per step (%3 of the step). Useful GPU time: %4.%5")
        .arg(WasteBudget::bucketLabel(worst), formatSeconds(budget.bucket(worst)),
             formatPercent(100.0 * budget.bucket(worst) / stepTimeS), useful, unknownNote);
}

QString runVerdict(const Derived &derived)
{
    const QString verdict = budgetVerdict(derived.metrics.wasteBudget, derived.stepTimeS());
    return derived.caveat.isEmpty() ? verdict : derived.caveat + QStringLiteral(". ") + verdict;
}

QString formatBucketSeconds(const WasteBudget &budget, int row)
{
    if (row >= 0 && row <= kUnattributedRow && budget.state(row) == ValueState::Unknown)
        return QStringLiteral("—");
    return formatSeconds(budgetRowSeconds(budget, row));
}

QString bucketSource(int index, const WasteBudget &b, HeuristicsProfile profile)
{
    const BudgetTerms &x = b.terms;
    if (x.gates[0] == BucketGate::NoStepTime)
        return QStringLiteral("no budget: no step time");
    if (profile == HeuristicsProfile::Reference)
        return QStringLiteral("the gpu-goblin reference's formula");
    if (!x.measured) {
        if (b.state(index) == ValueState::Unknown)
            return index == 4 ? QStringLiteral("unknown: no HBM peak (no memory telemetry)")
                   : index == 0 || index == kUnattributedRow ? QStringLiteral("unknown: nothing measured GPU utilisation")
                   : index == 3 || index >= 5                ? QStringLiteral("unknown: no kernel list")
                                                             : QStringLiteral("unknown: nothing traced the host");
        switch (index) {
        case 0:
            return QStringLiteral("estimated: the step less the waste buckets (no GPU timeline covers the steps)");
        case 1:
        case 2:
            return QStringLiteral("estimated: step × (1 − GPU util) split by host busy (the seed's formula)");
        case 3:
            return QStringLiteral("estimated: collective kernel time per step per GPU");
        case 4:
            return QStringLiteral("estimated: HBM slack × step × headroom weight");
        case 5:
            return QStringLiteral("estimated: fp16 share of tagged kernel time × busy time × precision weight");
        case 6:
            return QStringLiteral("estimated: untuned share of GEMM time × busy time");
        case kUnattributedRow:
            return QStringLiteral("estimated: the step less the waste buckets, utilisation not measured");
        }
        return {};
    }
    switch (index) {
    case 0:
        return b.state(0) == ValueState::Measured
                   ? QStringLiteral("measured: busy compute on the GPU timeline")
                   : QStringLiteral("measured busy compute less the kernel-shape and precision estimates");
    case 1:
        if (!x.hostKnown)
            return b.dataWait > 0.0 ? QStringLiteral("measured host-to-device copies; the idle is not split (no host activity traced)")
                                    : QStringLiteral("unknown: the trace shows no host activity");
        return x.dataWaitGateMet && x.idleHostS > 0.0
                   ? QStringLiteral("measured idle in data-loading ranges and input copies, plus host-busy idle the "
                                    "thresholds book as data wait")
                   : QStringLiteral("measured: GPU idle inside data-loading ranges + host-to-device copies alone");
    case 2:
        return x.hostKnown ? QStringLiteral("measured: GPU idle while the host runs nothing traced, or other host work")
                           : QStringLiteral("unknown: the trace shows no host activity");
    case 3:
        return QStringLiteral("measured: exposed communication (collectives no compute overlaps)");
    case 4:
        return b.state(4) == ValueState::Unknown ? QStringLiteral("unknown: no HBM peak (no memory telemetry)")
                                                 : QStringLiteral("estimated: HBM slack × step × weight, taken from idle");
    case 5:
        return QStringLiteral("estimated: fp16-tagged kernel time × precision weight");
    case 6:
        return QStringLiteral("estimated: untuned GEMM kernel time (name pattern)");
    case kUnattributedRow:
        return x.hostKnown ? QStringLiteral("measured: copies and memsets alone on the GPU, not host-to-device")
                           : QStringLiteral("measured idle and copies no bucket can claim (no host activity traced)");
    }
    return {};
}

QString bucketDefinition(int index, HeuristicsProfile profile, bool measured)
{
    if (profile == HeuristicsProfile::Reference) {
        static const char *reference[] = {
            "the step less every waste bucket (never below 0)",
            "step × (1 − GPU util) × host busy, when GPU util < 30 % and host busy > 0.5",
            "step × (1 − GPU util) × (1 − host busy)",
            "sum of every collective kernel's time in the trace (not per step)",
            "(0.7 − HBM peak / 192 GB) / 0.7 × step × 0.05, when the peak is below 70 %",
            "fp16 / (fp16 + bf16 kernel time) × step × GPU util × 0.1, unless the workload runs bf16/fp8",
            "generic GEMM time / GEMM time × step × GPU util",
            "not used: the reference books the rest of the step as useful GPU",
        };
        return index >= 0 && index <= kUnattributedRow ? QString::fromUtf8(reference[index]) : QString();
    }
    if (!measured) {
        static const char *seed[] = {
            "the step less every waste bucket; unattributed instead when nothing measured GPU utilisation",
            "step × (1 − GPU util) × host busy, when GPU util is below its threshold and host busy above its threshold",
            "step × (1 − GPU util) × (1 − host busy)",
            "collective kernel time per step per GPU",
            "HBM slack below the target × step × headroom weight",
            "fp16 share of tagged kernel time × step × GPU util × precision weight (not for bf16/fp8 workloads)",
            "untuned share of GEMM time × step × GPU util",
            "the rest of the step when nothing measured GPU utilisation",
        };
        return index >= 0 && index <= kUnattributedRow ? QString::fromUtf8(seed[index]) : QString();
    }
    static const char *timeline[] = {
        "busy compute (the union of the non-collective kernels on the device) less kernel shape and precision path; "
        "never more than the busy compute the timeline measured",
        "GPU idle inside data-loading ranges (enumerate(DataLoader)#…) + host-to-device copies alone on the GPU; and "
        "the idle while other host work runs, when the step's GPU util is below its threshold and its host busy "
        "above its threshold",
        "GPU idle while the host runs nothing traced (launch gaps), and idle while other host work runs when the "
        "thresholds do not call it data wait; less memory headroom",
        "exposed communication: collective kernel time no compute kernel overlaps on the same device",
        "HBM slack below the target × step × headroom weight: the idle a larger batch could fill, taken from the "
        "host gap and at most all of it",
        "fp16-tagged kernel time × precision weight (the share bf16 would save), carved out of busy compute",
        "untuned (generic/fallback) GEMM kernel time, carved out of busy compute",
        "time no bucket can claim: copies and memsets alone on the GPU that bring no input, and the idle when the "
        "trace shows no host activity",
    };
    return index >= 0 && index <= kUnattributedRow ? QString::fromUtf8(timeline[index]) : QString();
}

} // namespace goblin
