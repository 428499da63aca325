#include "telemetryplot.h"

// What the plot draws from the trace rather than from telemetry: GPU busy and memory series from
// the trace's own events, the steps' marks, and bars where a series has under two samples (a
// rocprofv3-only or Nsight run; one value per rank or GPU).

#include "formatting.h"
#include "plotstyle.h"
#include "run.h"
#include "traceranks.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>

namespace goblin {

void TelemetryPlot::clearBars()
{
    for (QCPBars *bars : std::as_const(m_utilBarItems))
        removePlottable(bars);
    for (QCPBars *bars : std::as_const(m_hbmBarItems))
        removePlottable(bars);
    m_utilBarItems.clear();
    m_hbmBarItems.clear();
    m_utilBars = m_hbmBars = false;
    m_utilRect->axis(QCPAxis::atBottom)->setTicker(m_utilTimeTicker);
    m_hbmRect->axis(QCPAxis::atBottom)->setTicker(m_hbmTimeTicker);
    for (QCPAxisRect *rect : {m_utilRect, m_hbmRect}) {
        rect->setRangeDrag(Qt::Horizontal);
        rect->setRangeZoom(Qt::Horizontal);
    }
}

namespace {

/// Samples of a graph with a value (NaN gaps and N/A samples are none), and its first value.
int finiteSamples(const QCPGraph *graph, double *first = nullptr)
{
    int count = 0;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        if (std::isfinite(it->value)) {
            if (count == 0 && first)
                *first = it->value;
            ++count;
        }
    return count;
}

/// Distinct times with a value: a step drawn as a flat segment is two points of one sample.
int distinctSampleTimes(const QCPGraph *graph, bool stepSegments)
{
    const int points = finiteSamples(graph);
    return stepSegments ? points / 2 : points;
}

} // namespace

void TelemetryPlot::buildBars()
{
    clearBars();
    struct Series {
        QString name;
        double value;
        int colorIndex;
    };
    const auto barsFor = [this](QCPAxisRect *rect, const std::vector<Series> &series, QList<QCPBars *> &out) {
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (std::size_t i = 0; i < series.size(); ++i) {
            auto *bars = new QCPBars(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            // A bar a few letters wide, not half the panel when there is one GPU.
            bars->setWidthType(QCPBars::wtAxisRectRatio);
            bars->setWidth(std::min(0.12, 0.6 / double(series.size())));
            bars->addData(double(i), series[i].value);
            bars->setName(series[i].name);
            bars->setProperty("colorIndex", series[i].colorIndex);
            bars->removeFromLegend();  // the axis names each bar
            ticker->addTick(double(i), series[i].name);
            out << bars;
        }
        rect->axis(QCPAxis::atBottom)->setTicker(ticker);
        rect->axis(QCPAxis::atBottom)->setRange(-0.6, double(series.size()) - 0.4);
        rect->setRangeDrag(Qt::Orientations());
        rect->setRangeZoom(Qt::Orientations());
    };

    // Utilisation: telemetry's one row per GPU, or the trace's one step per device.
    std::vector<Series> util;
    bool utilShort = true;
    const bool telemetry = !m_utilGraphs.isEmpty();
    const QVector<QCPGraph *> &utilSource = telemetry ? m_utilGraphs : m_traceBusyGraphs;
    for (int i = 0; i < utilSource.size(); ++i) {
        if (distinctSampleTimes(utilSource[i], !telemetry) >= 2)
            utilShort = false;
        double value = NAN;
        finiteSamples(utilSource[i], &value);
        util.push_back({utilSource[i]->name(), value, i});
    }
    // Memory: telemetry's one row per GPU, or the allocator's one event per device (reserved).
    std::vector<Series> hbm;
    bool hbmShort = true;
    if (telemetry) {
        for (int i = 0; i < m_hbmGraphs.size(); ++i) {
            double value = NAN;
            const int n = finiteSamples(m_hbmGraphs[i], &value);
            hbmShort = hbmShort && n < 2;
            if (n > 0)
                hbm.push_back({m_hbmGraphs[i]->name(), value, i});
        }
    } else {
        for (QCPGraph *g : std::as_const(m_traceMemoryGraphs)) {
            double value = NAN;
            const int n = finiteSamples(g, &value);
            hbmShort = hbmShort && n < 2;
            if (g->property("reserved").toBool() && n > 0)
                hbm.push_back({g->name(), value, g->property("deviceIndex").toInt()});
        }
    }
    m_utilBars = !util.empty() && utilShort;
    m_hbmBars = !hbm.empty() && hbmShort;
    if (m_utilBars) {
        barsFor(m_utilRect, util, m_utilBarItems);
        for (QCPGraph *g : utilSource)
            g->setVisible(false);
    }
    if (m_hbmBars) {
        barsFor(m_hbmRect, hbm, m_hbmBarItems);
        for (QCPGraph *g : telemetry ? m_hbmGraphs : m_traceMemoryGraphs)
            g->setVisible(false);
    }
}

void TelemetryPlot::addTraceBusy(const RunAnalysis &run)
{
    // The timeline the budget measures steps on: the torch trace's, else the kernel trace's.
    const TimelineAnalysis &timeline = !run.torchTimeline.devices.empty() ? run.torchTimeline : run.kernelTimeline;
    qint64 origin = std::numeric_limits<qint64>::max();
    for (const DeviceTimelineAnalysis &d : timeline.devices)
        if (!d.stepWindows.empty())
            origin = std::min(origin, d.stepWindows.front().startNs);
    if (origin == std::numeric_limits<qint64>::max())
        return;
    double tMin = INFINITY, tMax = -INFINITY;
    for (const DeviceTimelineAnalysis &d : timeline.devices) {
        if (d.stepWindows.empty() || d.perStep.size() != d.stepWindows.size())
            continue;
        std::vector<std::size_t> order(d.stepWindows.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return d.stepWindows[a].startNs < d.stepWindows[b].startNs;
        });
        // One flat segment per step at its busy / window, the measure the budget's utilisation is.
        QVector<double> xs, ys;
        double lastEnd = NAN;
        for (std::size_t i : order) {
            const TimelineStepValues &v = d.perStep[i];
            if (v.windowNs <= 0)
                continue;
            const double pct = 100.0 * double(v.busyNs) / double(v.windowNs);
            const double x0 = double(d.stepWindows[i].startNs - origin) / 1e9;
            const double x1 = double(d.stepWindows[i].endNs - origin) / 1e9;
            if (std::isfinite(lastEnd) && x0 > lastEnd) {
                xs << lastEnd;  // a gap between steps is no step: break the line
                ys << qQNaN();
            }
            xs << x0 << x1;
            ys << pct << pct;
            lastEnd = x1;
            tMin = std::min(tMin, x0);
            tMax = std::max(tMax, x1);
        }
        if (xs.isEmpty())
            continue;
        QCPGraph *g = addGraph(m_utilRect->axis(QCPAxis::atBottom), m_utilRect->axis(QCPAxis::atLeft));
        // The one device naming (devicefacts.h), as the timeline names the same device.
        const GpuTimeline &files = &timeline == &run.torchTimeline ? run.torch.timeline : run.kernels.timeline;
        const QString device = deviceDisplayName(
            d.fileIndex < files.files.size() ? gpuIndexInFile(files.files[d.fileIndex], d.device) : -1, d.device, true);
        g->setName(d.rank ? tr("r%1 · %2 busy").arg(*d.rank).arg(device) : tr("%1 busy").arg(device));
        g->setData(xs, ys, true);
        g->setProperty("device", d.device);
        m_traceBusyGraphs.push_back(g);
    }
    if (std::isfinite(tMin)) {
        m_timeMin = tMin;
        m_timeMax = tMax > tMin ? tMax : tMin + 1.0;
    }
}

void TelemetryPlot::addTraceMemory(const RunAnalysis &run, bool asCurves, int rankIndex)
{
    const TraceMemory *picked = traceMemoryOfRank(run, rankIndex);
    const std::vector<TraceRankChoice> choices = traceRankChoices(run);
    if (!picked || std::size_t(rankIndex) >= choices.size()) {
        picked = &run.torch.memory;
        rankIndex = 0;
    }
    const TraceMemory &memory = *picked;
    const std::ptrdiff_t fileIndex = choices.empty() ? 0 : choices[std::size_t(rankIndex)].timelineFile;
    const GpuTimelineFile *file = fileIndex >= 0 && std::size_t(fileIndex) < run.torch.timeline.files.size()
                                      ? &run.torch.timeline.files[std::size_t(fileIndex)]
                                      : nullptr;
    // The allocator's events are on the picked torch trace's clock: the same origin as its steps.
    qint64 origin = std::numeric_limits<qint64>::max();
    for (const DeviceTimelineAnalysis &d : run.torchTimeline.devices)
        if (std::ptrdiff_t(d.fileIndex) == fileIndex && !d.stepWindows.empty())
            origin = std::min(origin, d.stepWindows.front().startNs);
    for (const DeviceMemory &d : memory.devices)
        if (origin == std::numeric_limits<qint64>::max() && !d.curve.empty())
            origin = d.curve.front().timestampNs;
    bool anyPoint = false;
    double tMin = INFINITY, tMax = -INFINITY;
    for (const DeviceMemory &d : memory.devices) {
        m_traceMemoryPeakGb = std::max({m_traceMemoryPeakGb, double(d.peakReservedBytes) / 1e9,
                                        double(d.peakAllocatedBytes) / 1e9});
        if (!asCurves || d.curve.empty())
            continue;
        // The one device naming, its place counted among the trace's own devices.
        const QString deviceName =
            file ? deviceNameInFile(*file, d.deviceId, true) : deviceDisplayName(-1, d.deviceId, true);
        QVector<double> xs, allocated, reserved;
        for (const MemoryPoint &p : d.curve) {
            const double x = double(p.timestampNs - origin) / 1e9;
            xs << x;
            allocated << double(p.allocatedBytes) / 1e9;
            reserved << double(p.reservedBytes) / 1e9;
            tMin = std::min(tMin, x);
            tMax = std::max(tMax, x);
            m_maxHbmUsedGb = std::max({m_maxHbmUsedGb, allocated.back(), reserved.back()});
        }
        for (bool isReserved : {false, true}) {
            QCPGraph *g = addGraph(m_hbmRect->axis(QCPAxis::atBottom), m_hbmRect->axis(QCPAxis::atLeft));
            g->setName(isReserved ? tr("%1 reserved").arg(deviceName) : tr("%1 allocated").arg(deviceName));
            g->setData(xs, isReserved ? reserved : allocated);
            g->setLineStyle(QCPGraph::lsStepLeft);  // the allocator's level holds until its next event
            g->setProperty("reserved", isReserved);
            g->setProperty("deviceIndex", int(m_traceMemoryGraphs.size() / 2));
            g->removeFromLegend();
            m_traceMemoryGraphs.push_back(g);
        }
        anyPoint = true;
    }
    if (anyPoint && m_traceBusyGraphs.isEmpty()) {
        m_timeMin = tMin;
        m_timeMax = tMax > tMin ? tMax : tMin + 1.0;
    } else if (anyPoint) {
        m_timeMin = std::min(m_timeMin, tMin);
        m_timeMax = std::max(m_timeMax, tMax);
    }
}

void TelemetryPlot::clearStepMarks()
{
    for (QCPAbstractItem *item : std::as_const(m_stepLines))
        removeItem(item);
    for (QCPAbstractItem *item : std::as_const(m_stepShades))
        removeItem(item);
    m_stepLines.clear();
    m_stepShades.clear();
    m_stepTimes.clear();
}

void TelemetryPlot::addStepMarks(const RunAnalysis &run)
{
    // The analysis placed the samples on the steps: step k spans [zero + startS, + durationS) on
    // the telemetry's time axis (telemetrysteps.h).
    const double zero = run.smi.placement.stepZeroTimeS;
    if (!std::isfinite(zero))
        return;
    QCPLayer *previous = currentLayer();
    setCurrentLayer(m_stepLayer);
    const auto vertical = [this](QCPAxisRect *rect, double x) {
        // A segment from the panel's top to its bottom (a straight line ran on into the axis).
        auto *line = new QCPItemLine(this);
        line->setClipAxisRect(rect);
        for (QCPItemPosition *p : {line->start, line->end}) {
            p->setAxisRect(rect);
            p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            p->setTypeX(QCPItemPosition::ptPlotCoords);
            p->setTypeY(QCPItemPosition::ptAxisRectRatio);
        }
        line->start->setCoords(x, 0.0);
        line->end->setCoords(x, 1.0);
        line->setSelectable(false);
        m_stepLines.push_back(line);
    };
    const auto shade = [this](QCPAxisRect *rect, double x0, double x1) {
        auto *r = new QCPItemRect(this);
        r->setClipAxisRect(rect);
        for (QCPItemPosition *p : {r->topLeft, r->bottomRight}) {
            p->setAxisRect(rect);
            p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            p->setTypeX(QCPItemPosition::ptPlotCoords);
            p->setTypeY(QCPItemPosition::ptAxisRectRatio);
        }
        r->topLeft->setCoords(x0, 0.0);
        r->bottomRight->setCoords(x1, 1.0);
        r->setSelectable(false);
        m_stepShades.push_back(r);
    };
    std::vector<const StepInputs *> steps;
    for (const StepInputs &s : run.steps.steps)
        steps.push_back(&s);
    std::stable_sort(steps.begin(), steps.end(), [](const StepInputs *a, const StepInputs *b) { return a->startS < b->startS; });
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const double x0 = zero + steps[k]->startS, x1 = x0 + steps[k]->durationS;
        m_stepTimes.push_back(x0);
        for (QCPAxisRect *rect : {m_utilRect, m_hbmRect}) {
            vertical(rect, x0);
            if (k % 2 == 1)
                shade(rect, x0, x1);
        }
    }
    setCurrentLayer(previous);
}

double TelemetryPlot::stepMarkTimeS(int index) const
{
    return index >= 0 && index < m_stepTimes.size() ? m_stepTimes[index] : NAN;
}

} // namespace goblin
