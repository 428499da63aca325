#include "telemetrysteps.h"

#include "formatting.h"
#include "run.h"

#include <QDateTime>
#include <QTimeZone>

#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

/// Unix ns after 2001-09-09: timestamps this large are Unix time, not time since a start or boot.
constexpr qint64 kUnixNsFloor = qint64(1'000'000'000) * 1'000'000'000;

/// The first step mark of the step-marked timeline, as analyzeSteps() takes it (perstep.cpp):
/// CPU-lane ProfilerSteps, else GPU-lane annotations, of the first file that has any.
struct FirstMark {
    const GpuTimelineFile *file = nullptr;
    qint64 startNs = 0;
};

FirstMark firstMark(const GpuTimeline &timeline)
{
    for (const GpuTimelineFile &f : timeline.files) {
        qint64 cpu = 0, gpu = 0;
        bool anyCpu = false, anyGpu = false;
        for (const StepWindow &w : f.steps) {
            if (w.endNs <= w.startNs)
                continue;
            qint64 &first = w.gpuLane ? gpu : cpu;
            bool &any = w.gpuLane ? anyGpu : anyCpu;
            if (!any || w.startNs < first)
                first = w.startNs;
            any = true;
        }
        if (anyCpu)
            return {&f, cpu};
        if (anyGpu)
            return {&f, gpu};
    }
    return {};
}

QString zoneText(double offsetS)
{
    const int minutes = int(std::lround(offsetS / 60.0));
    return QStringLiteral("UTC%1%2:%3")
        .arg(minutes < 0 ? QLatin1Char('-') : QLatin1Char('+'))
        .arg(std::abs(minutes) / 60, 2, 10, QLatin1Char('0'))
        .arg(std::abs(minutes) % 60, 2, 10, QLatin1Char('0'));
}

QString utcText(double epochS)
{
    return QDateTime::fromMSecsSinceEpoch(qint64(std::floor(epochS * 1000.0)), QTimeZone::utc())
        .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz 'UTC'"));
}

double overlap(double a0, double a1, double b0, double b1) { return std::max(0.0, std::min(a1, b1) - std::max(a0, b0)); }

} // namespace

TelemetryPlacement placeTelemetryOnSteps(const RunAnalysis &run, const StepSeries &steps)
{
    TelemetryPlacement p;
    const SmiTelemetry &smi = run.smi;
    const QString log = smi.file.relativePath.isEmpty() ? QStringLiteral("the telemetry") : smi.file.relativePath;
    if (smi.samples.empty() || steps.empty())
        return p;  // nothing to place, or nowhere to place it: nothing to say either
    p.steps.assign(steps.steps.size(), TelemetryStepValues{});
    if (std::isnan(smi.startEpochS)) {
        p.how = smi.tool == QLatin1String("dcgmi dmon") || smi.tool == QLatin1String("rocm-smi")
                    ? QStringLiteral("%1: %2 writes no time, so its samples cannot be placed on the steps (only the "
                                     "run's means are used)")
                          .arg(log, smi.tool)
                    : QStringLiteral("%1 has no timestamp column (amd-smi writes one only in watch mode; nvidia-smi "
                                     "when the query has timestamp), so its samples cannot be placed on the steps")
                          .arg(log);
        return p;
    }

    // The steps' wall clock: the torch trace's base time, directly or through the alignment of
    // the kernel trace (boot clock) to the torch trace.
    const GpuTimeline &timeline = steps.fromTorchTimeline ? run.torch.timeline : run.kernels.timeline;
    const FirstMark mark = firstMark(timeline);
    if (!mark.file) {
        p.how = QStringLiteral("the steps have no mark on a trace clock: the samples cannot be placed");
        return p;
    }
    qint64 torchNs = mark.startNs;
    QString via;
    if (!steps.fromTorchTimeline) {
        if (!run.clockAlignment.aligned) {
            p.how = QStringLiteral("the steps are marks of the kernel trace %1, on rocprofv3's boot clock, which has no "
                                   "wall clock (and the kernel trace is not aligned to a torch trace): %2's samples "
                                   "cannot be placed on the steps")
                        .arg(mark.file->file, log);
            return p;
        }
        torchNs = mark.startNs - run.clockAlignment.offsetNs;  // kernel = torch + offset
        via = QStringLiteral(", the kernel trace's boot clock moved onto the torch trace's by the kernel alignment");
    }
    const TraceWallClock &wall = smi.traceClock;
    double stepZeroEpochS = NAN;
    if (torchNs >= kUnixNsFloor) {
        stepZeroEpochS = double(torchNs) / 1e9;
        via = QStringLiteral("the torch trace's timestamps are Unix time") + via;
    } else if (wall.baseTimeNs) {
        stepZeroEpochS = double(*wall.baseTimeNs) / 1e9 + double(torchNs) / 1e9;
        via = QStringLiteral("baseTimeNanoseconds of %1").arg(wall.file) + via;
    } else {
        p.how = QStringLiteral("%1; its timestamps are not Unix time either: %2's samples cannot be placed on the steps")
                    .arg(wall.note.isEmpty() ? QStringLiteral("no torch trace wall clock was found") : wall.note, log);
        return p;
    }

    // The spans on the Unix clock; local-time logs shifted by the zone that fits.
    double stepsEnd = 0.0, samplesEnd = 0.0;
    for (const StepInputs &s : steps.steps)
        stepsEnd = std::max(stepsEnd, s.startS + s.durationS);
    for (const TelemetrySample &s : smi.samples)
        samplesEnd = std::max(samplesEnd, s.timeS);
    const double resolution = std::max(smi.timestampResolutionS, 0.0);
    const double a0 = stepZeroEpochS, a1 = stepZeroEpochS + stepsEnd;
    double zone = 0.0;
    if (smi.wallClockLocal) {
        double best = -1.0;
        for (int quarter = -48; quarter <= 56; ++quarter) {
            const double z = quarter * 900.0;
            const double b0 = smi.startEpochS - z, b1 = b0 + samplesEnd + resolution;
            const double o = overlap(a0, a1, b0, b1);
            if (o > best + 1e-9 || (std::fabs(o - best) <= 1e-9 && std::fabs(z) < std::fabs(zone))) {
                best = o;
                zone = z;
            }
        }
    }
    const double b0 = smi.startEpochS - zone, b1 = b0 + samplesEnd + resolution;
    if (overlap(a0, a1, b0, b1) <= 0.0) {
        p.how = QStringLiteral("%1's samples (%2 to %3) and the steps (%4 to %5, %6) do not overlap%7: they cannot be "
                               "placed")
                    .arg(log, utcText(b0), utcText(b1), utcText(a0), utcText(a1), via,
                         smi.wallClockLocal ? QStringLiteral(" in any time zone") : QString());
        return p;
    }
    p.placed = true;
    p.zoneOffsetS = zone;
    p.stepZeroTimeS = stepZeroEpochS - b0;

    // Each sample to the step whose window holds it.
    std::vector<std::size_t> order(steps.steps.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return steps.steps[a].startS < steps.steps[b].startS; });
    std::vector<double> utilSum(order.size(), 0.0), powerSum(order.size(), 0.0);
    std::vector<int> utilN(order.size(), 0), powerN(order.size(), 0);
    for (const TelemetrySample &s : smi.samples) {
        const double t = s.timeS - p.stepZeroTimeS;  // on the steps' axis (startS)
        auto it = std::upper_bound(order.begin(), order.end(), t,
                                   [&](double v, std::size_t i) { return v < steps.steps[i].startS; });
        if (it == order.begin())
            continue;
        const std::size_t k = *(it - 1);
        const StepInputs &step = steps.steps[k];
        // A stamp stands for [t, t + resolution) (amd-smi writes whole seconds): the sample is the
        // step's only when all of that lies inside the step, never a guess at the boundary.
        if (t + resolution > step.startS + step.durationS)
            continue;
        TelemetryStepValues &v = p.steps[k];
        ++v.samples;
        ++p.samplesInSteps;
        if (!std::isnan(s.utilPct)) {
            utilSum[k] += s.utilPct;
            ++utilN[k];
        }
        if (!std::isnan(s.powerW)) {
            powerSum[k] += s.powerW;
            ++powerN[k];
        }
        if (!std::isnan(s.hbmUsedGb))
            v.hbmPeakGb = std::isnan(v.hbmPeakGb) ? s.hbmUsedGb : std::max(v.hbmPeakGb, s.hbmUsedGb);
    }
    int stepsWithSamples = 0;
    double meanDuration = 0.0;
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        if (utilN[k] > 0)
            p.steps[k].utilMeanPct = utilSum[k] / utilN[k];
        if (powerN[k] > 0)
            p.steps[k].powerMeanW = powerSum[k] / powerN[k];
        stepsWithSamples += p.steps[k].samples > 0 ? 1 : 0;
        meanDuration += steps.steps[k].durationS / double(p.steps.size());
    }
    const double interval = smi.measuredIntervalS > 0.0 ? smi.measuredIntervalS : smi.intervalS;
    p.how = QStringLiteral("%1's samples placed on the steps: %2 of %3 fall inside %4 of %5 step(s); clocks: %6 "
                           "timestamps%7 against %8")
                .arg(log)
                .arg(p.samplesInSteps)
                .arg(smi.samples.size())
                .arg(stepsWithSamples)
                .arg(p.steps.size())
                .arg(smi.tool,
                     smi.wallClockLocal ? QStringLiteral(" (local time, no zone written; read as %1, the zone that puts "
                                                         "the samples over the steps)")
                                              .arg(zoneText(zone))
                                        : QStringLiteral(" (Unix time)"),
                     via);
    if (meanDuration < resolution)
        p.how += QStringLiteral("; the steps last %1 on average, shorter than the %2 resolution of the timestamps, so "
                                "no sample can be given to one step")
                     .arg(formatSeconds(meanDuration), formatSeconds(resolution));
    else if (meanDuration < interval)
        p.how += QStringLiteral("; the steps last %1 on average, shorter than the samples' %2 spacing, so most steps "
                                "have no sample or one")
                     .arg(formatSeconds(meanDuration), formatSeconds(interval));
    return p;
}

void applyTelemetryToSteps(const TelemetryPlacement &placement, const SmiTelemetry &smi, StepSeries &steps)
{
    if (!placement.placed || placement.steps.size() != steps.steps.size())
        return;
    int hbm = 0, util = 0;
    for (std::size_t k = 0; k < steps.steps.size(); ++k) {
        const TelemetryStepValues &v = placement.steps[k];
        BudgetInputs &in = steps.steps[k].inputs;
        if (!std::isnan(v.hbmPeakGb)) {
            in.hbmPeakGb = v.hbmPeakGb;
            steps.steps[k].hbmPlaced = true;
            ++hbm;
        }
        if (!steps.steps[k].utilMeasured && !std::isnan(v.utilMeanPct)) {
            in.gpuUtilPct = v.utilMeanPct;
            in.gpuUtilKnown = true;
            ++util;
        }
    }
    if (hbm == 0 && util == 0)
        return;
    const QString log = smi.file.relativePath;
    steps.source += QStringLiteral("; telemetry (%1): HBM peak of the samples inside the step for %2 step(s)%3")
                        .arg(log)
                        .arg(hbm)
                        .arg(util > 0 ? QStringLiteral(", their mean utilisation for %1 step(s) without GPU events")
                                            .arg(util)
                                      : QString());
}

void placeTelemetry(RunAnalysis &run)
{
    run.smi.placement = placeTelemetryOnSteps(run, run.steps);
    applyTelemetryToSteps(run.smi.placement, run.smi, run.steps);
    if (!run.smi.placement.how.isEmpty())
        run.diagnostics.push_back({Severity::Info, run.smi.file.relativePath,
                                   0, run.smi.placement.how});
}

} // namespace goblin
