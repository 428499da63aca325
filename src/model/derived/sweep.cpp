#include "sweep.h"

#include "ranks.h"
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

std::vector<double> sweepCurveValues(SweepThreshold which)
{
    double minimum = 0.0, maximum = 0.0;
    sweepThresholdRange(which, &minimum, &maximum);
    return sweepValues(minimum, maximum, (maximum - minimum) / kSweepCurveSteps);
}

std::vector<SweepPoint> sweepRun(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &base,
                                 SweepThreshold which, const std::vector<double> &values)
{
    std::vector<SweepPoint> out;
    out.reserve(values.size());
    const StepPlan plan = planSteps(run, profile, base);  // no swept threshold changes the steps
    const Thresholds applied = appliedThresholds(run, profile, base);  // the trace's HBM capacity, as the budget
    for (double v : values) {
        Thresholds t = applied;
        setSweepThreshold(t, which, v);
        out.push_back({v, runMetrics(run, profile, t, plan).wasteBudget, profile});
    }
    return out;
}

std::vector<double> sweepBreakpoints(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &base,
                                     SweepThreshold which, const StepPlan *givenPlan)
{
    std::vector<double> out;
    const double capacityGb = appliedThresholds(run, profile, base).hbmCapacityGb;
    const auto hbmUsedPct = [&](std::optional<double> peakGb) {
        if (peakGb && *peakGb > 0.0 && capacityGb > 0.0)
            out.push_back(100.0 * *peakGb / capacityGb);
    };
    // The data-wait gate is "utilisation < util line and host busy > host line": along one line a
    // value flips it only where the other half holds at `base` (the sweep keeps the other line).
    const auto gateValue = [&](double utilPct, double hostBusy) {
        if (which == SweepThreshold::GpuUtilBelow && hostBusy > base.hostBusyAbove)
            out.push_back(utilPct);
        else if (which == SweepThreshold::HostBusyAbove && utilPct < base.gpuUtilBelowPct)
            out.push_back(hostBusy);
    };
    // The seed's formulas gate on the inputs' utilisation and host busy (heuristics.cpp).
    const auto seedInputs = [&](const BudgetInputs &in) {
        if (which == SweepThreshold::HbmTarget)
            hbmUsedPct(in.hbmPeakGb);
        else
            gateValue(in.gpuUtilPct, in.hostBusyFraction);
    };
    const StepPlan ownPlan = givenPlan ? StepPlan{} : planSteps(run, profile, base);
    const StepPlan &plan = givenPlan ? *givenPlan : ownPlan;
    if (plan.measured()) {
        // The measured budget gates each slice (a device in a step) on its own values
        // (measuredbudget.cpp); partial steps are out of the run's mean.
        for (const StepInputs &step : plan.series->steps) {
            if (step.partial)
                continue;
            for (const MeasuredSlice &slice : step.slices)
                if (slice.hostKnown && slice.windowNs > 0)
                    gateValue(slice.utilPct(), slice.hostBusyFraction);
            if (which == SweepThreshold::HbmTarget && step.hbmPlaced)
                hbmUsedPct(step.inputs.hbmPeakGb);  // the step's own peak gates its headroom
        }
        if (which == SweepThreshold::HbmTarget)
            hbmUsedPct(plan.series->hbmPeakGb);
    } else {
        const ProfileAnalysis &analysis = run.profile(profile);
        seedInputs(analysis.budgetInputs);
        if (analysis.ranks)
            for (const RankInputs &r : analysis.ranks->ranks)
                seedInputs(r.analysis.budgetInputs);
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](double v) { return !std::isfinite(v); }), out.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

namespace {

bool bucketOn(const SweepPoint &p, int bucket)
{
    return p.budget.bucket(bucket) > 0.0;
}

/// The first bucket whose on/off state differs between `a` and `b`, or -1.
int firstSwitchingBucket(const SweepPoint &a, const SweepPoint &b)
{
    for (int k = 0; k < WasteBudget::BucketCount; ++k)
        if (bucketOn(a, k) != bucketOn(b, k))
            return k;
    return -1;
}

bool sameBuckets(const WasteBudget &a, const WasteBudget &b)
{
    for (int k = 0; k < WasteBudget::BucketCount; ++k)
        if (a.bucket(k) != b.bucket(k))
            return false;
    return a.unattributed == b.unattributed;
}

/// How far beside a breakpoint its sides are evaluated: far enough that a gate computed on a
/// rescaled value (the seed compares util / 100 with threshold / 100) has flipped, far below
/// anything drawn or printed.
double sideOffset(double value)
{
    return 1e-9 * std::max(1.0, std::abs(value));
}

} // namespace

std::vector<SweepPoint> sweepCurve(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &base,
                                   SweepThreshold which, const std::vector<double> &values)
{
    std::vector<SweepPoint> curve;
    if (values.empty())
        return curve;
    const StepPlan plan = planSteps(run, profile, base);  // no swept threshold changes the steps
    const Thresholds applied = appliedThresholds(run, profile, base);  // the run's HBM capacity, as the budget
    const auto at = [&](double v, int side) {
        Thresholds t = applied;
        setSweepThreshold(t, which, v);
        return SweepPoint{v, runMetrics(run, profile, t, plan).wasteBudget, profile, side};
    };
    for (double v : values)
        curve.push_back(at(v, 0));
    const double from = values.front(), to = values.back();

    // Both sides of each breakpoint in range; breakpoints closer than their sides are one.
    std::vector<double> breaks;
    for (double c : sweepBreakpoints(run, profile, base, which, &plan))
        if (c >= from && c <= to && (breaks.empty() || c - breaks.back() > 4.0 * sideOffset(c)))
            breaks.push_back(c);
    const auto addSides = [&](double c) {
        // The side is evaluated off the breakpoint but drawn at it: the step is vertical there.
        if (c > from) {
            SweepPoint below = at(std::max(from, c - sideOffset(c)), -1);
            below.value = c;
            curve.push_back(below);
        }
        if (c < to) {
            SweepPoint above = at(std::min(to, c + sideOffset(c)), +1);
            above.value = c;
            curve.push_back(above);
        }
    };
    // Each gate is monotone along its line (a slice once gated stays gated as the line moves on),
    // so between two samples with the same buckets no breakpoint changes anything.
    const std::size_t sampleCount = curve.size();
    std::vector<char> selected(breaks.size(), 0);
    std::size_t inChanged = 0;
    for (std::size_t i = 1; i < sampleCount; ++i) {
        if (sameBuckets(curve[i - 1].budget, curve[i].budget))
            continue;
        const auto lo = std::lower_bound(breaks.begin(), breaks.end(), curve[i - 1].value);
        const auto hi = std::upper_bound(breaks.begin(), breaks.end(), curve[i].value);
        for (auto it = lo; it < hi; ++it) {
            char &mark = selected[std::size_t(it - breaks.begin())];
            inChanged += mark ? 0 : 1;
            mark = 1;
        }
    }
    // Every breakpoint is a step while that stays cheap (two evaluations each); past that, on a
    // run of thousands of steps and devices, only the on/off switches get their exact step (found
    // by binary search over the breakpoints in between) and the rest of a curve runs between
    // samples, so a threshold drag stays within a frame.
    constexpr std::size_t kAllStepsUpTo = 256;
    if (inChanged <= kAllStepsUpTo) {
        for (std::size_t b = 0; b < breaks.size(); ++b)
            if (selected[b])
                addSides(breaks[b]);
    } else {
        for (std::size_t i = 1; i < sampleCount; ++i) {
            const SweepPoint &a = curve[i - 1];
            const SweepPoint &z = curve[i];
            const auto lo = std::lower_bound(breaks.begin(), breaks.end(), a.value);
            const auto hi = std::upper_bound(breaks.begin(), breaks.end(), z.value);
            for (int k = 0; k < WasteBudget::BucketCount; ++k) {
                if (lo == hi || (a.budget.bucket(k) > 0.0) == (z.budget.bucket(k) > 0.0))
                    continue;
                const bool later = z.budget.bucket(k) > 0.0;
                // The first breakpoint whose upper side has the later state.
                auto first = lo, last = hi;
                while (first < last) {
                    const auto mid = first + (last - first) / 2;
                    if ((at(std::min(to, *mid + sideOffset(*mid)), 0).budget.bucket(k) > 0.0) == later)
                        last = mid;
                    else
                        first = mid + 1;
                }
                if (first != hi)
                    addSides(*first);
            }
        }
    }
    std::stable_sort(curve.begin(), curve.end(), [](const SweepPoint &a, const SweepPoint &b) {
        return a.value < b.value || (a.value == b.value && a.side < b.side);
    });

    // A switch between two different values that no breakpoint explains: bisect to the last bit.
    // Bounded: each insertion settles one bucket's switch between two points.
    int insertions = 0;
    for (std::size_t i = 1; i < curve.size() && insertions < 1000; ++i) {
        if (!(curve[i - 1].value < curve[i].value))
            continue;
        const int k = firstSwitchingBucket(curve[i - 1], curve[i]);
        if (k < 0)
            continue;
        SweepPoint lo = curve[i - 1], hi = curve[i];
        const bool loState = bucketOn(lo, k);
        for (int iteration = 0; iteration < 200; ++iteration) {
            const double mid = lo.value + (hi.value - lo.value) / 2.0;
            if (!(mid > lo.value && mid < hi.value))
                break;
            SweepPoint m = at(mid, 0);
            (bucketOn(m, k) == loState ? lo : hi) = m;
        }
        lo.side = -1;
        lo.value = hi.value;
        hi.side = +1;
        curve.insert(curve.begin() + std::ptrdiff_t(i), {lo, hi});
        ++insertions;
        --i;  // re-examine up to the new lower side: another bucket may switch between the same points
    }
    return curve;
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

std::vector<SweepPoint> sampledPoints(const std::vector<SweepPoint> &curve)
{
    std::vector<SweepPoint> out;
    for (const SweepPoint &p : curve)
        if (p.side == 0)
            out.push_back(p);
    return out;
}

ThresholdSpan thresholdSpanAround(const std::vector<double> &sortedSwitches, double value, bool gatesOnly)
{
    ThresholdSpan span;
    const auto above = std::upper_bound(sortedSwitches.begin(), sortedSwitches.end(), value);
    if (above != sortedSwitches.end())
        span.switchAbove = *above;
    const auto below = std::lower_bound(sortedSwitches.begin(), sortedSwitches.end(), value);
    if (below != sortedSwitches.begin())
        span.switchBelow = *std::prev(below);
    const bool atSwitch = below != sortedSwitches.end() && *below == value;
    span.flat = !atSwitch && (gatesOnly || !span.switchBelow);
    return span;
}

} // namespace goblin
