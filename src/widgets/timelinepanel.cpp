#include "timelinepanel.h"

#include "plotstyle.h"
#include "runanalysis.h"

#include <QHelpEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

constexpr double kMs = 1e3;  // the bars and the strip are drawn in ms

QString ms(double seconds) { return QString::number(seconds * kMs, 'g', 4) + QStringLiteral(" ms"); }

/// "torch_profile.json" → "torch_prof…", "trace.csv" → "trace": short enough for an axis label.
QString shortFileName(const QString &file)
{
    QString stem = file.section(QLatin1Char('/'), -1).section(QLatin1Char('.'), 0, 0);
    if (stem.size() > 10)
        stem = stem.left(9) + QChar(0x2026);
    return stem;
}

} // namespace

int TimelinePanel::gpuIndexOf(const GpuTimelineFile &file, qint64 device)
{
    // The n-th device of the file in device order is GPU n: the trace numbers devices its own way
    // (ROCm Kineto traces from 2 or 1), amd-smi and the Telemetry tab from 0.
    std::vector<qint64> ids;
    for (const GpuDeviceTimeline &d : file.devices)
        ids.push_back(d.device);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const auto it = std::lower_bound(ids.begin(), ids.end(), device);
    return it != ids.end() && *it == device ? int(it - ids.begin()) : -1;
}

QString TimelinePanel::deviceLabel(int deviceIndex, bool shortForm) const
{
    if (deviceIndex < 0 || deviceIndex >= int(m_devices.size()))
        return {};
    const DeviceRef &ref = m_devices[std::size_t(deviceIndex)];
    const DeviceTimelineAnalysis &d = *ref.analysis;
    const int gpu = gpuIndexOf(ref.timeline->files[d.fileIndex], d.device);
    if (shortForm)
        return gpu >= 0 ? tr("GPU %1 (d%2)").arg(gpu).arg(d.device) : tr("d%1").arg(d.device);
    return gpu >= 0 ? tr("GPU %1 (trace device %2)").arg(gpu).arg(d.device) : tr("trace device %1").arg(d.device);
}

QString TimelinePanel::partLabel(int part)
{
    switch (part) {
    case Compute: return tr("compute");
    case ExposedComm: return tr("exposed comm");
    case OtherBusy: return tr("memcpy/memset");
    case IdleHostBusy: return tr("idle, host busy");
    case IdleNothing: return tr("idle, nothing");
    default: return {};
    }
}

QString TimelinePanel::partDefinition(int part)
{
    switch (part) {
    case Compute: return tr("union of the non-collective kernels of the device, all streams");
    case ExposedComm: return tr("collective kernels not overlapped by any compute kernel of the same device");
    case OtherBusy: return tr("memcpy/memset not under any kernel (busy minus compute minus exposed comm)");
    case IdleHostBusy: return tr("no GPU event on any stream while a CPU op of the process runs");
    case IdleNothing: return tr("no GPU event and no CPU op: launch gaps");
    default: return {};
    }
}

TimelinePanel::TimelinePanel(QWidget *parent)
    : QCustomPlot(parent)
    , m_barsRect(axisRect(0))
    , m_stripRect(new QCPAxisRect(this))
{
    setMouseTracking(true);
    setMinimumSize(320, 100);  // it lives in the bottom tabs, which must not squeeze the budget chart
    // Bars and strip side by side: the panel lives in the bottom tabs, which are wide and short.
    plotLayout()->addElement(0, 1, m_stripRect);
    auto *margins = new QCPMarginGroup(this);
    m_barsRect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_stripRect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_barsRect->axis(QCPAxis::atLeft)->setLabel(tr("ms / step"));
    m_barsRect->axis(QCPAxis::atLeft)->ticker()->setTickCount(3);  // the tab is short: more labels overlap
    m_barsRect->axis(QCPAxis::atBottom)->setLabel(tr("GPU (trace device) · step (double-click a bar: its kernels →)"));
    m_stripRect->axis(QCPAxis::atLeft)->setLabel(tr("stream"));
    m_stripRect->axis(QCPAxis::atBottom)->setLabel(tr("time in the step (ms)"));
    m_stripRect->setRangeDrag(Qt::Horizontal);
    m_stripRect->setRangeZoom(Qt::Horizontal);
    m_barsRect->setRangeDrag(Qt::Horizontal);
    m_barsRect->setRangeZoom(Qt::Horizontal);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    QCPBars *below = nullptr;
    for (int p = 0; p < PartCount; ++p) {
        auto *bars = new QCPBars(m_barsRect->axis(QCPAxis::atBottom), m_barsRect->axis(QCPAxis::atLeft));
        bars->setName(partLabel(p));
        bars->setWidth(0.8);
        const QColor c = p == IdleNothing ? QColor(0xcc, 0xcc, 0xcc) : seriesColor(p);
        bars->setBrush(c);
        bars->setPen(QPen(c.darker(130)));
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_parts[p] = bars;
    }
    // The legend gets its own row above the bars: inside the bars rect it covered the tallest ones.
    legend->setVisible(true);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(PartCount);
    m_barsRect->insetLayout()->take(legend);
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, legend);
    plotLayout()->setRowStretchFactor(0, 0.001);
    legend->setMargins(QMargins(4, 1, 4, 1));
    legend->setRowSpacing(0);
    QFont small = legend->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    legend->setFont(small);
    applyPalette(this, palette());
}

int TimelinePanel::barCount() const { return int(m_bars.size()); }

double TimelinePanel::barValue(int bar, int part) const
{
    if (bar < 0 || bar >= barCount() || part < 0 || part >= PartCount)
        return 0.0;
    const QCPBarsDataContainer &data = *m_parts[part]->data();
    return bar < data.size() ? (data.constBegin() + bar)->value / kMs : 0.0;
}

void TimelinePanel::setRun(const RunAnalysis *run)
{
    m_run = run;
    m_devices.clear();
    if (run) {
        for (const DeviceTimelineAnalysis &d : run->kernelTimeline.devices)
            m_devices.push_back({&d, &run->kernels.timeline, &run->kernelTimeline.files[d.fileIndex], d.stepWindows, d.perStep});
        for (const DeviceTimelineAnalysis &d : run->torchTimeline.devices)
            m_devices.push_back({&d, &run->torch.timeline, &run->torchTimeline.files[d.fileIndex], d.stepWindows, d.perStep});
    }
    applyEqualSteps();
}

void TimelinePanel::setEqualSteps(std::optional<int> steps)
{
    if (steps && *steps < 1)
        steps.reset();
    if (steps == m_equalSteps)
        return;
    m_equalSteps = steps;
    applyEqualSteps();
}

void TimelinePanel::applyEqualSteps()
{
    // Devices without step marks are cut into N equal steps of their file's kernel span, as the
    // report's --steps N does; devices with marks keep them.
    for (DeviceRef &ref : m_devices) {
        const DeviceTimelineAnalysis &d = *ref.analysis;
        ref.windows = d.stepWindows;
        ref.steps = d.perStep;
        if (m_equalSteps && d.stepsKind == TimelineStepsKind::WholeSpan) {
            std::vector<TimeInterval> windows = equalWindows(ref.file->kernelFirstNs, ref.file->kernelLastNs, *m_equalSteps);
            std::vector<TimelineStepValues> steps = recutSteps(*ref.timeline, d, windows);
            if (!steps.empty()) {
                ref.windows = std::move(windows);
                ref.steps = std::move(steps);
            }
        }
    }
    rebuildBars();
    showStrip(m_bars.empty() ? -1 : m_bars.front().device, m_bars.empty() ? -1 : m_bars.front().step);
}

void TimelinePanel::rebuildBars()
{
    m_bars.clear();
    QVector<double> keys, values[PartCount];
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double x = 0.0;
    // The file's name only when the devices come from more than one file.
    bool severalFiles = false;
    for (const DeviceRef &ref : m_devices)
        severalFiles = severalFiles || ref.file != m_devices.front().file;
    for (int di = 0; di < int(m_devices.size()); ++di) {
        const DeviceTimelineAnalysis &d = *m_devices[std::size_t(di)].analysis;
        const std::vector<TimelineStepValues> &steps = m_devices[std::size_t(di)].steps;
        for (int s = 0; s < int(steps.size()); ++s) {
            const TimelineStepValues &v = steps[std::size_t(s)];
            m_bars.push_back({di, s});
            keys << x;
            values[Compute] << double(v.computeNs) / 1e9 * kMs;
            values[ExposedComm] << double(v.exposedCommNs) / 1e9 * kMs;
            values[OtherBusy] << double(std::max<qint64>(0, v.busyNs - v.computeNs - v.exposedCommNs)) / 1e9 * kMs;
            values[IdleHostBusy] << double(v.idleHostBusyNs) / 1e9 * kMs;
            values[IdleNothing] << double(v.idleNothingNs) / 1e9 * kMs;
            // The step on the first line, the device under its first step only: a long file
            // name then runs under the neighbouring bars' empty second line, not into their labels.
            // (The file's whole name is in the bar's tooltip.)
            ticker->addTick(x, s == 0 ? QStringLiteral("s0\n%1%2%3")
                                            .arg(d.rank ? QStringLiteral("r%1 ").arg(*d.rank) : QString())
                                            .arg(severalFiles ? shortFileName(d.file) + QLatin1Char(' ') : QString())
                                            .arg(deviceLabel(di, true))
                                      : QStringLiteral("s%1").arg(s));
            x += 1.0;
        }
        x += 1.5;  // a gap between devices
    }
    for (int p = 0; p < PartCount; ++p)
        m_parts[p]->setData(keys, values[p], true);
    m_barsRect->axis(QCPAxis::atBottom)->setTicker(ticker);
    m_barsRect->axis(QCPAxis::atBottom)->setRange(-0.8, std::max(1.0, x - 0.2));
    m_parts[IdleNothing]->rescaleValueAxis(false, true);
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePanel::showStrip(int deviceIndex, int step)
{
    for (QCPGraph *g : m_lanes)
        removeGraph(g);
    m_lanes.clear();
    m_strip.clear();
    m_stripDevice = deviceIndex;
    m_stripStep = step;
    m_stripEvents = 0;
    if (deviceIndex < 0 || deviceIndex >= int(m_devices.size())) {
        replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const DeviceTimelineAnalysis &d = *m_devices[std::size_t(deviceIndex)].analysis;
    const std::vector<TimeInterval> &windows = m_devices[std::size_t(deviceIndex)].windows;
    if (step < 0 || step >= int(windows.size())) {
        replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const TimeInterval w = windows[std::size_t(step)];
    const GpuTimelineFile &file = m_devices[std::size_t(deviceIndex)].timeline->files[d.fileIndex];
    const GpuDeviceTimeline *dev = nullptr;
    for (const GpuDeviceTimeline &x : file.devices)
        if (x.device == d.device)
            dev = &x;
    if (!dev)
        return;
    std::vector<QVector<double>> xs(dev->streams.size() + 1), ys(dev->streams.size() + 1);
    for (const GpuEvent &e : dev->events) {
        // Inside the window; a zero-length event on its start counts.
        if ((e.endNs <= w.startNs && e.endNs > e.startNs) || e.endNs < w.startNs || e.startNs >= w.endNs)
            continue;
        const int lane = int(e.stream);
        const double a = double(e.startNs - w.startNs) / 1e9 * kMs, b = double(e.endNs - w.startNs) / 1e9 * kMs;
        const std::string &n = e.nameId < file.names.size() ? file.names[e.nameId] : std::string();
        m_strip.push_back({a / kMs, b / kMs, lane, QString::fromStdString(n)});
        auto &vx = xs[std::size_t(std::min<int>(lane, int(xs.size()) - 1))];
        auto &vy = ys[std::size_t(std::min<int>(lane, int(ys.size()) - 1))];
        vx << a << b << b;
        vy << lane << lane << qQNaN();  // NaN: a gap between events
        ++m_stripEvents;
    }
    for (std::size_t lane = 0; lane < xs.size(); ++lane) {
        if (xs[lane].isEmpty())
            continue;
        QCPGraph *g = addGraph(m_stripRect->axis(QCPAxis::atBottom), m_stripRect->axis(QCPAxis::atLeft));
        g->setData(xs[lane], ys[lane], true);
        g->setPen(QPen(seriesColor(int(lane)), 10, Qt::SolidLine, Qt::FlatCap));
        g->setName(lane < dev->streams.size() ? tr("stream %1").arg(dev->streams[lane]) : QString());
        g->removeFromLegend();
        m_lanes.push_back(g);
    }
    // One tick per lane, labelled with the stream id as the trace writes it (not 0.5, 1.5, …).
    QSharedPointer<QCPAxisTickerText> laneTicks(new QCPAxisTickerText);
    for (std::size_t lane = 0; lane < dev->streams.size(); ++lane)
        laneTicks->addTick(double(lane), QString::number(dev->streams[lane]));
    m_stripRect->axis(QCPAxis::atLeft)->setTicker(laneTicks);
    m_stripRect->axis(QCPAxis::atBottom)->setRange(0.0, double(w.endNs - w.startNs) / 1e9 * kMs);
    m_stripRect->axis(QCPAxis::atLeft)->setRange(-0.8, double(std::max<std::size_t>(1, dev->streams.size())) - 0.2);
    replot(QCustomPlot::rpQueuedReplot);
}

QString TimelinePanel::toolTipAt(const QPointF &pos) const
{
    if (m_barsRect->rect().contains(pos.toPoint())) {
        const double key = m_barsRect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x());
        const double value = m_barsRect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y());
        const QCPBarsDataContainer &data = *m_parts[0]->data();
        for (int i = 0; i < data.size(); ++i) {
            if (std::fabs((data.constBegin() + i)->key - key) > 0.4)
                continue;
            const BarRef &b = m_bars[std::size_t(i)];
            double top = 0.0;
            for (int p = 0; p < PartCount; ++p) {
                top += barValue(i, p) * kMs;
                if (value <= top || p == PartCount - 1) {
                    const DeviceTimelineAnalysis &d = *m_devices[std::size_t(b.device)].analysis;
                    return tr("%1, %2, step %3\n%4: %5 of %6\n%7")
                        .arg(d.file)
                        .arg(deviceLabel(b.device, false))
                        .arg(b.step)
                        .arg(partLabel(p), ms(barValue(i, p)),
                             ms(double(m_devices[std::size_t(b.device)].steps[std::size_t(b.step)].windowNs) / 1e9),
                             partDefinition(p));
                }
            }
        }
        return {};
    }
    if (m_stripRect->rect().contains(pos.toPoint())) {
        const double t = m_stripRect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x()) / kMs;
        const int lane = int(std::lround(m_stripRect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y())));
        for (const StripEvent &e : m_strip)
            if (e.lane == lane && t >= e.start && t <= e.end)
                return tr("%1\n%2 from the step start, %3 long").arg(e.name, ms(e.start), ms(e.end - e.start));
    }
    return {};
}

bool TimelinePanel::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QCustomPlot::event(e);
}

void TimelinePanel::mouseDoubleClickEvent(QMouseEvent *e)
{
    if (m_barsRect->rect().contains(e->pos())) {
        const double key = m_barsRect->axis(QCPAxis::atBottom)->pixelToCoord(e->pos().x());
        const QCPBarsDataContainer &data = *m_parts[0]->data();
        for (int i = 0; i < data.size(); ++i)
            if (std::fabs((data.constBegin() + i)->key - key) <= 0.4) {
                showStrip(m_bars[std::size_t(i)].device, m_bars[std::size_t(i)].step);
                return;
            }
    }
    QCustomPlot::mouseDoubleClickEvent(e);
}

} // namespace goblin
