#include "quantities.h"
#include "tracememoryfigures.h"

#include "derived.h"
#include "formatting.h"
#include "metrics.h"

namespace goblin {

namespace {

Quantity known(double value, ValueState state, const QString &source, const QString &scope)
{
    return Quantity{value, state, source, scope};
}

Quantity unknown(const QString &why)
{
    return Quantity{std::nullopt, ValueState::Unknown, why, QString()};
}

/// Steps and devices the measured budget averaged, for the scope of its quantities.
QString measuredScope(const Derived &d, const RunAnalysis &run)
{
    const StepSeries &series = *d.plan.series;
    int steps = 0;
    std::size_t devices = 0;
    for (const StepInputs &s : series.steps)
        if (!s.partial && !s.slices.empty()) {
            ++steps;
            devices = std::max(devices, s.slices.size());
        }
    const RankSet *ranks = run.workbench.ranks.get();
    if (ranks && ranks->budgetIsMean && series.fromTorchTimeline)
        return QStringLiteral("mean of %1 ranks, each over its steps and devices").arg(ranks->ranks.size());
    return QStringLiteral("mean of %1 step(s) × %2 device(s)").arg(steps).arg(devices);
}

QString stepWindowsPhrase(const Derived &d, const RunAnalysis &run)
{
    const StepSeries &series = *d.plan.series;
    int counted = 0, partial = 0;
    for (const StepInputs &s : series.steps)
        (s.partial ? partial : counted) += 1;
    const RankSet *ranks = run.workbench.ranks.get();
    if (ranks && ranks->budgetIsMean && series.fromTorchTimeline)
        return QStringLiteral("mean of the %1 ranks' step times (the budget is the mean of theirs), each: %2")
            .arg(ranks->ranks.size())
            .arg(d.plan.kind == StepPlan::Kind::Marked ? QStringLiteral("the mean of its measured step windows")
                 : d.plan.kind == StepPlan::Kind::Cut  ? QStringLiteral("its kernel span / %1").arg(d.plan.cutSteps)
                                                       : QStringLiteral("its kernel span as one step"));
    switch (d.plan.kind) {
    case StepPlan::Kind::Marked:
        return QStringLiteral("mean of %1 measured step window(s)%2")
            .arg(counted)
            .arg(partial > 0 ? QStringLiteral(" (a last, partial step left out)") : QString());
    case StepPlan::Kind::Cut:
        return QStringLiteral("the kernel span / %1 (--steps %1; the trace has no step marks)").arg(d.plan.cutSteps);
    case StepPlan::Kind::WholeSpan:
        return QStringLiteral("the kernel span as one step (no step marks; --steps N cuts it into N)");
    case StepPlan::Kind::None:
        break;
    }
    return QString();
}

/// The seed path's state of the step time: the step plan's, unless --steps N cut the span.
ValueState stateOfPlan(const RunAnalysis &run, const QString &source)
{
    return source == run.workbench.stepTimeSource ? run.facts.stepPlan.state : ValueState::Estimated;
}

} // namespace

Quantities runQuantities(const RunAnalysis &run, const Derived &d)
{
    Quantities q;
    const ProfileAnalysis &a = run.profile(d.profile);
    const BudgetInputs &in = a.budgetInputs;
    const BudgetTerms &terms = d.metrics.wasteBudget.terms;

    if (d.profile == HeuristicsProfile::Reference) {
        // What the agent saw: the reference's numbers, its misreadings included.
        const QString scope = QStringLiteral("as the gpu-goblin reference reads the folder");
        const auto ref = [&](double value, const QString &source) {
            return known(value, ValueState::Estimated, QStringLiteral("the reference's reading: %1").arg(source), scope);
        };
        q[QuantityKey::GpuUtilPct] = ref(a.gpuUtilPct, a.gpuUtilSource);
        q[QuantityKey::HostBusyFraction] = ref(a.hostBusyFraction, a.hostBusySource);
        q[QuantityKey::StepTimeS] = ref(a.stepTimeS, a.stepTimeSource);
        q[QuantityKey::HbmPeakGb] = ref(a.hbmPeakGb, QStringLiteral("peak of amd_smi.csv's VRAM column"));
        q[QuantityKey::TokensPerSec] = ref(a.tokensPerSec, QStringLiteral("torch_profile.json metadata"));
        q[QuantityKey::MfuPct] = ref(a.mfuPct, QStringLiteral("torch_profile.json metadata"));
    } else if (d.budgetMeasured) {
        const QString scope = measuredScope(d, run);
        const QString file = d.plan.series->fromTorchTimeline ? QStringLiteral("torch trace") : QStringLiteral("kernel trace");
        QString util = QStringLiteral("busy union of the GPU events (all streams) / step window, on the %1's GPU timeline")
                           .arg(file);
        if (run.workbench.budgetInputs.gpuUtilKnown && !run.workbench.gpuUtilFromTimeline && run.smi.workbench.gpuUtilPct)
            util += QStringLiteral(" (telemetry: %1)").arg(formatPercent(*run.smi.workbench.gpuUtilPct));
        q[QuantityKey::GpuUtilPct] = known(terms.gpuUtilPct, ValueState::Measured, util, scope);
        if (terms.hostKnown) {
            QString host = d.plan.series->fromTorchTimeline
                               ? QStringLiteral("CPU operators of the training process (waits for the GPU excluded) "
                                                "inside the step window / its length")
                               : QStringLiteral("HIP / CUDA runtime calls of the API trace (the host is busy while it "
                                                "runs one) inside the step window / its length");
            if (a.hostBusySource.contains(QLatin1String("written by the training script")))
                host += QStringLiteral(" (the trace's metadata says %1)").arg(formatNumber(a.hostBusyFraction, 3));
            q[QuantityKey::HostBusyFraction] = known(terms.hostBusy, ValueState::Measured, host, scope);
        } else {
            q[QuantityKey::HostBusyFraction] =
                unknown(d.plan.series->fromTorchTimeline
                            ? QStringLiteral("the trace shows no CPU activity of the process (no CPU operators)")
                            : QStringLiteral("no HIP / CUDA runtime API trace beside the kernel trace: the host's "
                                             "activity was not recorded"));
        }
        q[QuantityKey::StepTimeS] = known(terms.stepS,
                                          d.plan.kind == StepPlan::Kind::Marked ? ValueState::Measured
                                                                                : ValueState::Estimated,
                                          stepWindowsPhrase(d, run), scope);
    } else {
        const QString scope = QStringLiteral("the run (%1)").arg(a.stepTimeSource);
        if (!in.gpuUtilKnown)
            q[QuantityKey::GpuUtilPct] = unknown(a.gpuUtilSource);
        else
            q[QuantityKey::GpuUtilPct] =
                known(a.gpuUtilPct,
                      a.gpuUtilSource.startsWith(QLatin1String("kernel time per step")) ? ValueState::Estimated
                                                                                         : ValueState::Measured,
                      a.gpuUtilSource, QStringLiteral("the run"));
        if (!in.hostBusyKnown)
            q[QuantityKey::HostBusyFraction] = unknown(QStringLiteral("no CPU operators and no metadata in the trace"));
        else
            q[QuantityKey::HostBusyFraction] =
                known(a.hostBusyFraction, ValueState::Measured, a.hostBusySource, QStringLiteral("the run"));
        // The budget's step, the one step time of the report (with several ranks the mean of theirs).
        const StepTimeChoice step = stepTimeFor(a, d.thresholds);
        const bool rankMean = run.workbench.ranks && run.workbench.ranks->budgetIsMean;
        if (!(terms.stepS > 0.0))
            q[QuantityKey::StepTimeS] = unknown(QStringLiteral("no step time was found: %1").arg(step.source));
        else if (rankMean && terms.stepS != step.stepTimeS)
            q[QuantityKey::StepTimeS] = known(terms.stepS, ValueState::Estimated,
                                              QStringLiteral("mean of the %1 ranks' step times (each: its own steps)")
                                                  .arg(run.workbench.ranks->ranks.size()),
                                              scope);
        else
            q[QuantityKey::StepTimeS] = known(terms.stepS,
                                              step.fromSteps ? ValueState::Estimated : stateOfPlan(run, step.source),
                                              step.source, scope);
    }

    const TraceMemoryFigures traceMemory = traceMemoryFigures(run.torch);
    if (d.profile == HeuristicsProfile::Workbench) {
        const SmiReading &smi = run.smi.workbench;
        const QString smiScope = QStringLiteral("telemetry, %1 GPU(s), inside the job window").arg(run.smi.gpuCount);
        if (smi.hbmPeakGb)
            q[QuantityKey::HbmPeakGb] = known(*smi.hbmPeakGb, ValueState::Measured,
                                              QStringLiteral("peak VRAM used in %1").arg(run.smi.file.relativePath), smiScope);
        else if (traceMemory.peakReservedGb)
            // The budget's peak without telemetry (runanalysis.cpp): the allocator's reserve.
            q[QuantityKey::HbmPeakGb] = known(*traceMemory.peakReservedGb, ValueState::Estimated,
                                              traceMemory.peakSource(), QStringLiteral("the trace, 1 device"));
        else
            q[QuantityKey::HbmPeakGb] = unknown(traceMemory.noPeakReason);
        const TorchReading &torch = run.torch.workbench;
        const QString metadata = QStringLiteral("the trace's metadata (written by the training script)");
        q[QuantityKey::TokensPerSec] = torch.tokensPerSec
                                           ? known(*torch.tokensPerSec, ValueState::Measured, metadata, QStringLiteral("the run"))
                                           : unknown(QStringLiteral("no tokens_per_sec in the trace's metadata"));
        q[QuantityKey::MfuPct] = torch.mfuPct ? known(*torch.mfuPct, ValueState::Measured, metadata, QStringLiteral("the run"))
                                              : unknown(QStringLiteral("no mfu_pct in the trace's metadata"));
    }
    // deriveResults() applied the run's capacity when the threshold is at its default (appliedThresholds).
    const double capacity = d.thresholds.hbmCapacityGb;
    const DeviceFacts &devices = run.facts.devices;
    const bool fromRun = d.profile == HeuristicsProfile::Workbench && capacity == devices.capacityGb &&
                         (devices.capacityFromRun || capacity == Thresholds{}.hbmCapacityGb);
    q[QuantityKey::HbmCapacityGb] =
        known(capacity, fromRun ? devices.capacityState : ValueState::Estimated,
              fromRun ? QStringLiteral("%1 (the HBM capacity threshold's default for this run)").arg(devices.capacitySource)
              : capacity == Thresholds{}.hbmCapacityGb
                  ? QStringLiteral("the HBM capacity threshold at its default (an MI300X's 192 GB)")
                  : QStringLiteral("the HBM capacity threshold, as set"),
              QStringLiteral("per GPU"));
    return q;
}

} // namespace goblin
