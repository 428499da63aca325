#include "sweep.h"

#include "thresholds.h"

#include <QJsonArray>
#include <algorithm>
#include <cmath>

namespace goblin {

std::optional<SweepThreshold> sweepThresholdFromName(const QString &name)
{
    if (name == QLatin1String("gpu-util-below"))
        return SweepThreshold::GpuUtilBelow;
    if (name == QLatin1String("host-busy-above"))
        return SweepThreshold::HostBusyAbove;
    if (name == QLatin1String("hbm-target"))
        return SweepThreshold::HbmTarget;
    return std::nullopt;
}

QString sweepThresholdName(SweepThreshold which)
{
    switch (which) {
    case SweepThreshold::GpuUtilBelow:
        return QStringLiteral("gpu-util-below");
    case SweepThreshold::HostBusyAbove:
        return QStringLiteral("host-busy-above");
    case SweepThreshold::HbmTarget:
        return QStringLiteral("hbm-target");
    }
    return {};
}

/// The knob in the one threshold table: its range and member are those of every other place.
static const ThresholdDescriptor &descriptorOf(SweepThreshold which)
{
    const QString name = sweepThresholdName(which);
    for (const ThresholdDescriptor &d : thresholdDescriptors())
        if (d.cliNameText() == name)
            return d;
    Q_UNREACHABLE();
}

void sweepThresholdRange(SweepThreshold which, double *minimum, double *maximum)
{
    const ThresholdDescriptor &d = descriptorOf(which);
    *minimum = d.minimum;
    *maximum = d.maximum;
}

void setSweepThreshold(Thresholds &thresholds, SweepThreshold which, double value)
{
    thresholds.*(descriptorOf(which).member) = value;
}

std::vector<double> sweepValues(double from, double to, double by, int maxPoints)
{
    if (!std::isfinite(from) || !std::isfinite(to) || !std::isfinite(by) || by <= 0.0 || to < from)
        return {};
    const double steps = std::floor((to - from) / by + 1e-9);
    if (steps + 1.0 > double(maxPoints))
        return {};
    std::vector<double> out;
    for (int i = 0; i <= int(steps); ++i)
        out.push_back(std::min(from + double(i) * by, to));
    return out;
}

std::vector<SweepPoint> sweepRun(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &base,
                                 SweepThreshold which, const std::vector<double> &values)
{
    std::vector<SweepPoint> out;
    out.reserve(values.size());
    const StepPlan plan = planSteps(run, profile, base);  // no swept threshold changes the steps
    for (double v : values) {
        Thresholds t = base;
        setSweepThreshold(t, which, v);
        out.push_back({v, runMetrics(run, profile, t, plan).wasteBudget, profile});
    }
    return out;
}

std::vector<SwitchPoint> switchPoints(const std::vector<SweepPoint> &points)
{
    std::vector<SwitchPoint> out;
    for (std::size_t i = 1; i < points.size(); ++i)
        for (int b = 0; b < WasteBudget::BucketCount; ++b) {
            const bool before = points[i - 1].budget.bucket(b) > 0.0;
            const bool now = points[i].budget.bucket(b) > 0.0;
            if (before != now)
                out.push_back({WasteBudget::bucketKey(b), points[i].value, now});
        }
    return out;
}

} // namespace goblin
