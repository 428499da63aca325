#include "timeline.h"

#include <algorithm>

namespace goblin {

// ---------------------------------------------------------------------------------------------
// IntervalSet

IntervalSet IntervalSet::unionOf(std::vector<TimeInterval> intervals)
{
    std::sort(intervals.begin(), intervals.end(),
              [](const TimeInterval &a, const TimeInterval &b) { return a.startNs < b.startNs; });
    IntervalSet s;
    for (const TimeInterval &iv : intervals) {
        if (iv.endNs <= iv.startNs)
            continue;
        if (!s.m_intervals.empty() && iv.startNs <= s.m_intervals.back().endNs)
            s.m_intervals.back().endNs = std::max(s.m_intervals.back().endNs, iv.endNs);
        else
            s.m_intervals.push_back(iv);
    }
    s.finish();
    return s;
}

void IntervalSet::SortedBuilder::add(qint64 startNs, qint64 endNs)
{
    if (endNs <= startNs)
        return;
    if (!m_merged.empty() && startNs <= m_merged.back().endNs)
        m_merged.back().endNs = std::max(m_merged.back().endNs, endNs);
    else
        m_merged.push_back({startNs, endNs});
}

IntervalSet IntervalSet::SortedBuilder::build()
{
    IntervalSet s;
    s.m_intervals = std::move(m_merged);
    m_merged = {};
    s.finish();
    return s;
}

IntervalSet IntervalSet::difference(const IntervalSet &a, const IntervalSet &b)
{
    IntervalSet s;
    std::size_t j = 0;
    const auto &bi = b.m_intervals;
    for (TimeInterval iv : a.m_intervals) {
        while (j < bi.size() && bi[j].endNs <= iv.startNs)
            ++j;
        std::size_t k = j;
        qint64 cursor = iv.startNs;
        while (k < bi.size() && bi[k].startNs < iv.endNs) {
            if (bi[k].startNs > cursor)
                s.m_intervals.push_back({cursor, bi[k].startNs});
            cursor = std::max(cursor, bi[k].endNs);
            if (bi[k].endNs >= iv.endNs)
                break;
            ++k;
        }
        if (cursor < iv.endNs)
            s.m_intervals.push_back({cursor, iv.endNs});
    }
    s.finish();
    return s;
}

IntervalSet IntervalSet::intersection(const IntervalSet &a, const IntervalSet &b)
{
    IntervalSet s;
    std::size_t i = 0, j = 0;
    const auto &ai = a.m_intervals;
    const auto &bi = b.m_intervals;
    while (i < ai.size() && j < bi.size()) {
        const qint64 lo = std::max(ai[i].startNs, bi[j].startNs);
        const qint64 hi = std::min(ai[i].endNs, bi[j].endNs);
        if (lo < hi)
            s.m_intervals.push_back({lo, hi});
        if (ai[i].endNs < bi[j].endNs)
            ++i;
        else
            ++j;
    }
    s.finish();
    return s;
}

void IntervalSet::finish()
{
    m_intervals.shrink_to_fit();
    m_prefix.resize(m_intervals.size());
    qint64 sum = 0;
    for (std::size_t i = 0; i < m_intervals.size(); ++i) {
        sum += m_intervals[i].endNs - m_intervals[i].startNs;
        m_prefix[i] = sum;
    }
}

qint64 IntervalSet::measure(qint64 startNs, qint64 endNs) const
{
    if (endNs <= startNs || m_intervals.empty())
        return 0;
    // First interval ending after startNs, first interval starting at or after endNs.
    const auto first = std::upper_bound(m_intervals.begin(), m_intervals.end(), startNs,
                                        [](qint64 t, const TimeInterval &iv) { return t < iv.endNs; });
    const auto last = std::lower_bound(m_intervals.begin(), m_intervals.end(), endNs,
                                       [](const TimeInterval &iv, qint64 t) { return iv.startNs < t; });
    if (first >= last)
        return 0;
    const std::size_t i = std::size_t(first - m_intervals.begin());
    const std::size_t k = std::size_t(last - m_intervals.begin()) - 1;  // last one starting before endNs
    qint64 sum = m_prefix[k] - (i > 0 ? m_prefix[i - 1] : 0);
    sum -= std::max<qint64>(0, startNs - m_intervals[i].startNs);
    sum -= std::max<qint64>(0, m_intervals[k].endNs - endNs);
    return sum;
}

// ---------------------------------------------------------------------------------------------

QString timelineStepsKindName(TimelineStepsKind kind)
{
    switch (kind) {
    case TimelineStepsKind::CpuProfilerSteps:
        return QStringLiteral("ProfilerStep");
    case TimelineStepsKind::AlignedProfilerSteps:
        return QStringLiteral("ProfilerStep (torch trace, clock aligned)");
    case TimelineStepsKind::GpuAnnotations:
        return QStringLiteral("GPU annotations");
    case TimelineStepsKind::EqualSplit:
        return QStringLiteral("span / N");
    case TimelineStepsKind::WholeSpan:
        break;
    }
    return QStringLiteral("trace span");
}

double DeviceTimelineAnalysis::meanPerStepNs(qint64 TimelineStepValues::*member) const
{
    if (perStep.empty())
        return 0.0;
    qint64 sum = 0;
    for (const TimelineStepValues &v : perStep)
        sum += v.*member;
    return double(sum) / double(perStep.size());
}

bool TimelineAnalysis::hasKernels() const { return kernelCount() > 0; }

quint64 TimelineAnalysis::kernelCount() const
{
    quint64 n = 0;
    for (const DeviceTimelineAnalysis &d : devices)
        n += d.kernels;
    return n;
}

std::vector<TimeInterval> equalWindows(qint64 firstNs, qint64 lastNs, int n)
{
    std::vector<TimeInterval> out;
    if (n < 1 || lastNs <= firstNs)
        return out;
    const qint64 span = lastNs - firstNs;
    for (int i = 0; i < n; ++i) {
        // Integer boundaries: step i is [first + span*i/n, first + span*(i+1)/n).
        const qint64 a = firstNs + qint64((__int128(span) * i) / n);
        const qint64 b = firstNs + qint64((__int128(span) * (i + 1)) / n);
        out.push_back({a, b});
    }
    return out;
}

} // namespace goblin
