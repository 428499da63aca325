#include "timelinepanel.h"

#include "kernelclassifier.h"
#include "plotstyle.h"
#include "runanalysis.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace goblin {

namespace {

constexpr double kMs = 1e3;  // the bars and the strip are drawn in ms
constexpr double kBarWidth = 0.8;
constexpr double kDeviceGap = 1.0;  // keys between the last step of a device and the next device's first

QString ms(double seconds) { return QString::number(seconds * kMs, 'g', 4) + QStringLiteral(" ms"); }

/// "torch_profile.json" → "torch_prof…", "trace.csv" → "trace": short enough for a label.
QString shortFileName(const QString &file)
{
    QString stem = file.section(QLatin1Char('/'), -1).section(QLatin1Char('.'), 0, 0);
    if (stem.size() > 10)
        stem = stem.left(9) + QChar(0x2026);
    return stem;
}

QString sourceName(int source) { return source == 0 ? TimelinePanel::tr("kernel trace") : TimelinePanel::tr("torch trace"); }

/// The strip's lane classes: each drawn in the colour of the bar part it makes.
enum LaneClass { LaneCompute, LaneCollective, LaneCopy, LaneClassCount };
constexpr int kLanePart[LaneClassCount] = {TimelinePanel::Compute, TimelinePanel::ExposedComm, TimelinePanel::OtherBusy};

/// Smallest of 1, 2, 5, 10, 20, 50, … that is at least `x`.
int niceStride(double x)
{
    if (x <= 1.0)
        return 1;
    for (int decade = 1;; decade *= 10)
        for (int m : {1, 2, 5})
            if (m * decade >= x)
                return m * decade;
}

} // namespace

int TimelinePanel::gpuIndexOf(const GpuTimelineFile &file, qint64 device)
{
    return gpuIndexInFile(file, device);  // the one device naming (devicefacts.h)
}

QString TimelinePanel::deviceLabel(int deviceIndex, bool shortForm) const
{
    if (deviceIndex < 0 || deviceIndex >= int(m_devices.size()))
        return {};
    const DeviceRef &ref = m_devices[std::size_t(deviceIndex)];
    const DeviceTimelineAnalysis &d = *ref.analysis;
    return deviceDisplayName(gpuIndexOf(ref.timeline->files[d.fileIndex], d.device), d.device, shortForm);
}

QString TimelinePanel::deviceGroupLabel(int deviceIndex, bool compact) const
{
    if (deviceIndex < 0 || deviceIndex >= int(m_devices.size()))
        return {};
    const DeviceRef &ref = m_devices[std::size_t(deviceIndex)];
    const DeviceTimelineAnalysis &d = *ref.analysis;
    // The file's name only when the devices of one source come from several files without ranks.
    bool severalFiles = false;
    for (const DeviceRef &other : m_devices)
        severalFiles = severalFiles || (other.source == ref.source && other.file != ref.file);
    QStringList parts;
    if (d.rank)
        parts << QStringLiteral("r%1").arg(*d.rank);
    else if (severalFiles)
        parts << shortFileName(d.file);
    parts << (compact ? QStringLiteral("d%1").arg(d.device) : deviceLabel(deviceIndex, true));
    return parts.join(QStringLiteral(" · "));
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

QColor TimelinePanel::partColor(int part, const QPalette &palette)
{
    // Muted, dark tones (indigo, wine, olive, greys): the budget's buckets are the bright
    // Okabe–Ito hues, and a timeline bar must never read as one of them.
    const bool dark = isDarkPalette(palette);
    switch (part) {
    case Compute: return dark ? QColor(0x8a, 0x86, 0xd0) : QColor(0x3b, 0x37, 0x7a);
    case ExposedComm: return dark ? QColor(0xa8, 0x4d, 0x6c) : QColor(0x7a, 0x1f, 0x43);
    case OtherBusy: return dark ? QColor(0xa8, 0x98, 0x5a) : QColor(0x7d, 0x6e, 0x2e);
    case IdleHostBusy: return dark ? QColor(0x6b, 0x6b, 0x7e) : QColor(0xc8, 0xc4, 0xe0);
    case IdleNothing: return dark ? QColor(0x45, 0x45, 0x45) : QColor(0xdd, 0xdd, 0xdd);
    default: return palette.color(QPalette::Mid);
    }
}

TimelinePanel::TimelinePanel(QWidget *parent)
    : QCustomPlot(parent)
    , m_groupsGrid(new QCPLayoutGrid)
    , m_stripRect(axisRect(0))
{
    setMouseTracking(true);
    setMinimumSize(320, 200);
    // Rows: the legend, the bar groups side by side, the strip's title, the strip (as wide as the
    // panel: the time axis needs the room).
    m_stripRect->insetLayout()->take(legend);
    plotLayout()->take(m_stripRect);
    plotLayout()->simplify();
    plotLayout()->addElement(0, 0, legend);
    plotLayout()->addElement(1, 0, m_groupsGrid);
    m_stripTitle = new QCPTextElement(this, QString());
    plotLayout()->addElement(2, 0, m_stripTitle);
    plotLayout()->addElement(3, 0, m_stripRect);
    plotLayout()->setRowStretchFactor(0, 0.001);
    plotLayout()->setRowStretchFactor(1, 1.0);
    plotLayout()->setRowStretchFactor(2, 0.001);
    plotLayout()->setRowStretchFactor(3, 1.0);
    plotLayout()->setRowSpacing(2);
    m_groupsGrid->setColumnSpacing(8);

    m_stripRect->axis(QCPAxis::atLeft)->setLabel(tr("stream"));
    m_stripRect->axis(QCPAxis::atBottom)->setLabel(
        tr("time in the step (ms) · lanes in the bars' colours: compute kernel, collective, copy"));
    m_stripRect->axis(QCPAxis::atLeft)->grid()->setVisible(false);
    m_stripRect->setRangeDrag(Qt::Horizontal);
    m_stripRect->setRangeZoom(Qt::Horizontal);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

    // The legend is the timeline's own: its parts, in its own colours (the strip's lanes use them
    // too: a compute kernel in the compute colour, a collective in the comm colour, a copy in the
    // copy colour).
    legend->setVisible(true);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(PartCount);
    legend->setMargins(QMargins(4, 1, 4, 1));
    legend->setRowSpacing(0);
    QFont small = legend->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    legend->setFont(small);
    m_stripTitle->setFont(small);

    connect(this, &QCustomPlot::afterReplot, this, [this] {
        if (relabel())
            replot(QCustomPlot::rpQueuedReplot);
    });
    rebuildBars();
    applyColours();
}

int TimelinePanel::barCount() const { return int(m_bars.size()); }

double TimelinePanel::barValue(int bar, int part) const
{
    if (bar < 0 || bar >= barCount() || part < 0 || part >= PartCount)
        return 0.0;
    return m_bars[std::size_t(bar)].values[part] / kMs;
}

int TimelinePanel::barDevice(int bar) const { return bar >= 0 && bar < barCount() ? m_bars[std::size_t(bar)].device : -1; }
int TimelinePanel::barStep(int bar) const { return bar >= 0 && bar < barCount() ? m_bars[std::size_t(bar)].step : -1; }
int TimelinePanel::groupOfBar(int bar) const { return bar >= 0 && bar < barCount() ? m_bars[std::size_t(bar)].group : -1; }

QCPAxisRect *TimelinePanel::groupRect(int group) const
{
    return group >= 0 && group < groupCount() ? m_groups[std::size_t(group)].rect : nullptr;
}

QString TimelinePanel::groupTitle(int group) const
{
    return group >= 0 && group < groupCount() ? m_groups[std::size_t(group)].title : QString();
}

QString TimelinePanel::stripTitle() const { return m_stripTitle->text(); }

void TimelinePanel::setRun(const RunAnalysis *run)
{
    m_run = run;
    m_devices.clear();
    if (run) {
        for (std::size_t i = 0; i < run->kernelTimeline.devices.size(); ++i) {
            const DeviceTimelineAnalysis &d = run->kernelTimeline.devices[i];
            m_devices.push_back({&d, &run->kernels.timeline, &run->kernelTimeline.files[d.fileIndex], 0, i,
                                 d.stepWindows, d.perStep});
        }
        for (std::size_t i = 0; i < run->torchTimeline.devices.size(); ++i) {
            const DeviceTimelineAnalysis &d = run->torchTimeline.devices[i];
            m_devices.push_back({&d, &run->torch.timeline, &run->torchTimeline.files[d.fileIndex], 1, i,
                                 d.stepWindows, d.perStep});
        }
    }
    applyEqualSteps();
}

void TimelinePanel::setTimelineCut(std::shared_ptr<const TimelineCut> cut)
{
    if (cut == m_cut)
        return;
    m_cut = std::move(cut);
    applyEqualSteps();
}

void TimelinePanel::applyEqualSteps()
{
    // Devices without step marks show the plan's cut (Derived's, as the report's --steps N);
    // devices with marks keep them.
    for (DeviceRef &ref : m_devices) {
        const DeviceTimelineAnalysis &d = *ref.analysis;
        const TimelineDeviceCut *recut = m_cut ? m_cut->device(ref.source == 1, ref.index) : nullptr;
        ref.windows = recut ? recut->windows : d.stepWindows;
        ref.steps = recut ? recut->steps : d.perStep;
    }
    rebuildBars();
    // The first bar is shown, not picked: no stepPicked (a new run or cut is no user's choice).
    m_quietPick = true;
    if (m_bars.empty())
        showStrip(-1, -1);
    else
        showStrip(m_bars.front().device, m_bars.front().step);
    m_quietPick = false;
}

void TimelinePanel::clearGroups()
{
    if (m_selection) {
        removeItem(m_selection);
        m_selection = nullptr;
    }
    for (Group &g : m_groups) {
        for (QCPBars *bars : g.parts)
            removePlottable(bars);
        m_groupsGrid->remove(g.rect);  // deletes the rect and its axes
    }
    m_groups.clear();
    m_groupsGrid->simplify();
}

TimelinePanel::Group &TimelinePanel::addGroup(const QString &title)
{
    Group g;
    g.title = title;
    g.rect = new QCPAxisRect(this);
    m_groupsGrid->addElement(0, int(m_groups.size()), g.rect);
    QCPAxis *x = g.rect->axis(QCPAxis::atBottom), *y = g.rect->axis(QCPAxis::atLeft), *top = g.rect->axis(QCPAxis::atTop);
    x->setLabel(title);
    // Wide enough for its title (the label is centred under the bars and would be cut), less the
    // left axis' room.
    const double titlePx = QFontMetricsF(x->labelFont()).horizontalAdvance(title);
    g.rect->setMinimumSize(std::max(60, int(titlePx) - 40), 40);
    x->grid()->setVisible(false);
    x->setSubTicks(false);
    y->setLabel(tr("ms / step"));
    y->ticker()->setTickCount(4);
    // The top axis carries the device names, no ticks and no line.
    top->setVisible(true);
    top->setTicks(true);
    top->setTickLength(0, 0);
    top->setSubTicks(false);
    top->setBasePen(Qt::NoPen);
    top->grid()->setVisible(false);
    g.rect->setRangeDrag(Qt::Horizontal);
    g.rect->setRangeZoom(Qt::Horizontal);
    // Zoom and drag move the device names along with the bars.
    connect(x, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), top, qOverload<const QCPRange &>(&QCPAxis::setRange));
    QCPBars *below = nullptr;
    for (int p = 0; p < PartCount; ++p) {
        auto *bars = new QCPBars(x, y);
        bars->setName(partLabel(p));
        bars->setWidth(kBarWidth);
        bars->setAntialiased(false);
        if (below)
            bars->moveAbove(below);
        below = bars;
        g.parts[p] = bars;
        if (!m_groups.empty())
            bars->removeFromLegend();  // one legend entry per part, from the first group
    }
    m_groups.push_back(g);
    return m_groups.back();
}

void TimelinePanel::rebuildBars()
{
    clearGroups();
    m_bars.clear();
    m_selectedBar = -1;

    // Display order: by source, stepped before unstepped (each its own group and scale), then rank
    // and device. The device indices (deviceLabel(), showStrip()) stay in analysis order.
    std::vector<int> order(m_devices.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = int(i);
    const auto unstepped = [this](int i) {
        const DeviceRef &r = m_devices[std::size_t(i)];
        return r.analysis->stepsKind == TimelineStepsKind::WholeSpan && r.windows.size() <= 1;
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const DeviceRef &ra = m_devices[std::size_t(a)], &rb = m_devices[std::size_t(b)];
        const auto key = [&](const DeviceRef &r, int i) {
            return std::tuple(r.source, unstepped(i), r.analysis->rank.value_or(std::numeric_limits<int>::max()),
                              r.analysis->fileIndex, r.analysis->device);
        };
        return key(ra, a) < key(rb, b);
    });

    int groupKey = -1;
    double x = 0.0;
    for (int di : order) {
        const DeviceRef &ref = m_devices[std::size_t(di)];
        if (ref.steps.empty())
            continue;
        const int key = ref.source * 2 + (unstepped(di) ? 1 : 0);
        if (key != groupKey) {
            groupKey = key;
            const TimelineStepsKind kind = ref.analysis->stepsKind;
            addGroup(unstepped(di) ? tr("%1 · no steps: the whole span").arg(sourceName(ref.source))
                                   : tr("%1 · %2").arg(sourceName(ref.source), timelineStepsKindName(kind)));
            m_groups.back().firstBar = int(m_bars.size());
            x = 0.0;
        }
        Group &g = m_groups.back();
        Group::DeviceSpan span{di, x, x};
        for (int s = 0; s < int(ref.steps.size()); ++s) {
            const TimelineStepValues &v = ref.steps[std::size_t(s)];
            BarRef bar;
            bar.device = di;
            bar.step = s;
            bar.group = int(m_groups.size()) - 1;
            bar.key = x;
            bar.values[Compute] = double(v.computeNs) / 1e9 * kMs;
            bar.values[ExposedComm] = double(v.exposedCommNs) / 1e9 * kMs;
            bar.values[OtherBusy] = double(std::max<qint64>(0, v.busyNs - v.computeNs - v.exposedCommNs)) / 1e9 * kMs;
            bar.values[IdleHostBusy] = double(v.idleHostBusyNs) / 1e9 * kMs;
            bar.values[IdleNothing] = double(v.idleNothingNs) / 1e9 * kMs;
            m_bars.push_back(bar);
            span.lastKey = x;
            x += 1.0;
            ++g.bars;
        }
        g.devices.push_back(span);
        x += kDeviceGap;
    }
    if (m_groups.empty())
        addGroup(m_run ? tr("no GPU timeline in this run") : tr("open a run to see its GPU timeline"));

    for (Group &g : m_groups) {
        QVector<double> keys, values[PartCount];
        double top = 0.0;
        for (int b = g.firstBar; b < g.firstBar + g.bars; ++b) {
            const BarRef &bar = m_bars[std::size_t(b)];
            keys << bar.key;
            double sum = 0.0;
            for (int p = 0; p < PartCount; ++p) {
                values[p] << bar.values[p];
                sum += bar.values[p];
            }
            top = std::max(top, sum);
        }
        for (int p = 0; p < PartCount; ++p)
            g.parts[p]->setData(keys, values[p], true);
        const double last = g.bars > 0 ? m_bars[std::size_t(g.firstBar + g.bars - 1)].key : 0.0;
        // At least three bars' room: one unstepped span alone would otherwise be drawn as a slab.
        double low = -0.7, high = std::max(0.7, last + 0.7);
        if (constexpr double kMinSpan = 3.0; high - low < kMinSpan) {
            const double pad = (kMinSpan - (high - low)) / 2.0;
            low -= pad;
            high += pad;
        }
        g.rect->axis(QCPAxis::atBottom)->setRange(low, high);
        g.rect->axis(QCPAxis::atTop)->setRange(g.rect->axis(QCPAxis::atBottom)->range());
        g.rect->axis(QCPAxis::atLeft)->setRange(0.0, top > 0.0 ? top * 1.05 : 1.0);
    }
    // Each group's width follows its bars (a one-bar group still gets room for its labels).
    for (int i = 0; i < groupCount(); ++i)
        m_groupsGrid->setColumnStretchFactor(i, double(m_groups[std::size_t(i)].bars) + 3.0);
    if (m_groups.size() > 1) {
        auto *margins = new QCPMarginGroup(this);
        for (Group &g : m_groups)
            g.rect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    }
    m_labelState.clear();
    applyColours();
    relabel();
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePanel::applyColours()
{
    const QPalette &pal = palette();
    applyPalette(this, pal);
    for (Group &g : m_groups)
        for (int p = 0; p < PartCount; ++p) {
            const QColor c = partColor(p, pal);
            g.parts[p]->setBrush(c);
            g.parts[p]->setPen(QPen(isDarkPalette(pal) ? c.lighter(125) : c.darker(125), 1));
        }
    for (QCPGraph *g : m_lanes) {
        QPen pen = g->pen();
        pen.setColor(partColor(g->property("goblinPart").toInt(), pal));
        g->setPen(pen);
    }
    m_stripTitle->setTextColor(pal.color(QPalette::WindowText));
    for (Group &g : m_groups)
        g.rect->axis(QCPAxis::atTop)->setTickLabelColor(pal.color(QPalette::WindowText));
    markSelection();
}

void TimelinePanel::changeEvent(QEvent *e)
{
    if (e->type() == QEvent::PaletteChange) {
        applyColours();
        replot(QCustomPlot::rpQueuedReplot);
    }
    QCustomPlot::changeEvent(e);
}

bool TimelinePanel::relabel()
{
    QString state;
    for (Group &g : m_groups) {
        QCPAxis *x = g.rect->axis(QCPAxis::atBottom), *top = g.rect->axis(QCPAxis::atTop);
        const QFontMetricsF fm(x->tickLabelFont());
        const QFontMetricsF topFm(top->tickLabelFont());
        const double pxPerKey = std::abs(x->coordToPixel(1.0) - x->coordToPixel(0.0));
        const double gap = fm.horizontalAdvance(QStringLiteral("  "));
        // Steps: every k-th label so the widest fits its slot with a gap.
        double widest = 0.0;
        for (int b = g.firstBar; b < g.firstBar + g.bars; ++b)
            widest = std::max(widest, fm.horizontalAdvance(QStringLiteral("s%1").arg(m_bars[std::size_t(b)].step)));
        const int stride = pxPerKey > 0.0 ? niceStride((widest + gap) / pxPerKey) : 1;
        QSharedPointer<QCPAxisTickerText> steps(new QCPAxisTickerText);
        double lastKey = -std::numeric_limits<double>::infinity();
        for (int b = g.firstBar; b < g.firstBar + g.bars; ++b) {
            const BarRef &bar = m_bars[std::size_t(b)];
            // A device's s0 may follow the last device's last label closer than the stride: skip it then.
            if (bar.step % stride == 0 && bar.key - lastKey >= stride) {
                steps->addTick(bar.key, QStringLiteral("s%1").arg(bar.step));
                lastKey = bar.key;
            }
        }
        x->setTicker(steps);
        // Devices: the long name where it fits over the device's bars, else "r3 · d7", elided to
        // the room; a device too narrow for even "r…" shows none (its tooltip names it).
        QSharedPointer<QCPAxisTickerText> devices(new QCPAxisTickerText);
        for (const Group::DeviceSpan &span : g.devices) {
            const double room = (span.lastKey - span.firstKey + 1.0 + kDeviceGap * 0.8) * pxPerKey - gap;
            QString text = deviceGroupLabel(span.device, false);
            if (topFm.horizontalAdvance(text) > room) {
                text = topFm.elidedText(deviceGroupLabel(span.device, true), Qt::ElideRight, std::max(0.0, room));
                if (text.size() <= 2)  // "…" or "r…": says nothing
                    text.clear();
            }
            if (!text.isEmpty())
                devices->addTick((span.firstKey + span.lastKey) / 2.0, text);
            state += text + QLatin1Char('|');
        }
        top->setTicker(devices);
        state += QString::number(stride) + QLatin1Char(';');
    }
    // The strip: lanes as thick as their room allows, labels thinned when lanes are lower than a line.
    QCPAxis *laneAxis = m_stripRect->axis(QCPAxis::atLeft);
    const int lanes = int(m_laneNames.size());
    const double lanePx = lanes > 0 ? std::abs(laneAxis->coordToPixel(1.0) - laneAxis->coordToPixel(0.0)) : 0.0;
    const double penPx = std::clamp(lanePx * 0.65, 2.0, 14.0);
    for (QCPGraph *g : m_lanes) {
        QPen pen = g->pen();
        pen.setWidthF(penPx);
        g->setPen(pen);
    }
    const double lineHeight = QFontMetricsF(laneAxis->tickLabelFont()).height();
    const int laneStride = lanePx > 0.0 ? niceStride(lineHeight / lanePx) : 1;
    QSharedPointer<QCPAxisTickerText> laneTicks(new QCPAxisTickerText);
    for (int lane = 0; lane < lanes; ++lane)
        if (lane % laneStride == 0)
            laneTicks->addTick(double(lane), m_laneNames.at(lane));
    laneAxis->setTicker(laneTicks);
    state += QStringLiteral("lanes %1 %2").arg(laneStride).arg(penPx);

    const bool changed = state != m_labelState;
    m_labelState = state;
    return changed;
}

QVector<QPair<double, QString>> TimelinePanel::stepLabels(int group) const
{
    QVector<QPair<double, QString>> out;
    if (QCPAxisRect *r = groupRect(group))
        if (auto t = r->axis(QCPAxis::atBottom)->ticker().dynamicCast<QCPAxisTickerText>())
            for (auto it = t->ticks().constBegin(); it != t->ticks().constEnd(); ++it)
                out << qMakePair(it.key(), it.value());
    return out;
}

QVector<QPair<double, QString>> TimelinePanel::deviceLabels(int group) const
{
    QVector<QPair<double, QString>> out;
    if (QCPAxisRect *r = groupRect(group))
        if (auto t = r->axis(QCPAxis::atTop)->ticker().dynamicCast<QCPAxisTickerText>())
            for (auto it = t->ticks().constBegin(); it != t->ticks().constEnd(); ++it)
                out << qMakePair(it.key(), it.value());
    return out;
}

QStringList TimelinePanel::laneLabels() const
{
    QStringList out;
    if (auto t = m_stripRect->axis(QCPAxis::atLeft)->ticker().dynamicCast<QCPAxisTickerText>())
        for (auto it = t->ticks().constBegin(); it != t->ticks().constEnd(); ++it)
            out << it.value();
    return out;
}

void TimelinePanel::showStrip(int deviceIndex, int step)
{
    for (QCPGraph *g : m_lanes)
        removeGraph(g);
    m_lanes.clear();
    m_laneNames.clear();
    m_strip.clear();
    m_stripDevice = deviceIndex;
    m_stripStep = step;
    m_stripEvents = 0;
    m_selectedBar = -1;
    for (int b = 0; b < barCount(); ++b)
        if (m_bars[std::size_t(b)].device == deviceIndex && m_bars[std::size_t(b)].step == step)
            m_selectedBar = b;
    const auto finish = [this](const QString &title) {
        m_stripTitle->setText(title);
        markSelection();
        m_labelState.clear();
        relabel();
        replot(QCustomPlot::rpQueuedReplot);
    };
    if (deviceIndex < 0 || deviceIndex >= int(m_devices.size())) {
        finish(m_devices.empty() ? QString() : tr("Click a bar to see its step's GPU events here"));
        return;
    }
    const DeviceRef &ref = m_devices[std::size_t(deviceIndex)];
    const DeviceTimelineAnalysis &d = *ref.analysis;
    if (step < 0 || step >= int(ref.windows.size())) {
        finish(tr("Click a bar to see its step's GPU events here"));
        return;
    }
    const TimeInterval w = ref.windows[std::size_t(step)];
    const GpuTimelineFile &file = ref.timeline->files[d.fileIndex];
    const GpuDeviceTimeline *dev = d.deviceIndex < file.devices.size() ? &file.devices[d.deviceIndex] : nullptr;
    if (!dev || dev->device != d.device) {
        dev = nullptr;
        for (const GpuDeviceTimeline &x : file.devices)
            if (x.device == d.device)
                dev = &x;
    }
    if (!dev) {
        finish(QString());
        return;
    }
    // Lanes by stream number, bottom to top.
    std::vector<int> laneOf(dev->streams.size());
    {
        std::vector<int> byNumber(dev->streams.size());
        for (std::size_t i = 0; i < byNumber.size(); ++i)
            byNumber[i] = int(i);
        std::stable_sort(byNumber.begin(), byNumber.end(),
                         [&](int a, int b) { return dev->streams[std::size_t(a)] < dev->streams[std::size_t(b)]; });
        for (std::size_t lane = 0; lane < byNumber.size(); ++lane) {
            laneOf[std::size_t(byNumber[lane])] = int(lane);
            m_laneNames << QString::number(dev->streams[std::size_t(byNumber[lane])]);
        }
    }
    const KernelClasses classes = classifyKernels(file.names, KernelPatternTable::forProfile(HeuristicsProfile::Workbench));
    const std::size_t lanes = std::max<std::size_t>(1, dev->streams.size());
    std::vector<QVector<double>> xs(lanes * LaneClassCount), ys(lanes * LaneClassCount);
    for (const GpuEvent &e : dev->events) {
        // Inside the window; a zero-length event on its start counts.
        if ((e.endNs <= w.startNs && e.endNs > e.startNs) || e.endNs < w.startNs || e.startNs >= w.endNs)
            continue;
        const int lane = e.stream < laneOf.size() ? laneOf[e.stream] : 0;
        const int cls = e.kind != GpuEventKind::Kernel ? LaneCopy
            : e.nameId < classes.flags.size() && (classes.flags[e.nameId] & FlagCollective) ? LaneCollective
                                                                                              : LaneCompute;
        const double a = double(e.startNs - w.startNs) / 1e9 * kMs, b = double(e.endNs - w.startNs) / 1e9 * kMs;
        const std::string &n = e.nameId < file.names.size() ? file.names[e.nameId] : std::string();
        m_strip.push_back({a / kMs, b / kMs, lane, QString::fromStdString(n)});
        const std::size_t slot = std::size_t(lane) * LaneClassCount + std::size_t(cls);
        xs[slot] << a << b << b;
        ys[slot] << lane << lane << qQNaN();  // NaN: a gap between events
        ++m_stripEvents;
    }
    for (std::size_t slot = 0; slot < xs.size(); ++slot) {
        if (xs[slot].isEmpty())
            continue;
        QCPGraph *g = addGraph(m_stripRect->axis(QCPAxis::atBottom), m_stripRect->axis(QCPAxis::atLeft));
        g->setData(xs[slot], ys[slot], true);
        const int part = kLanePart[slot % LaneClassCount];
        g->setProperty("goblinPart", part);
        g->setPen(QPen(partColor(part, palette()), 10, Qt::SolidLine, Qt::FlatCap));
        g->setAdaptiveSampling(false);
        g->setVisible(m_stripShown);
        g->removeFromLegend();
        m_lanes.push_back(g);
    }
    m_stripRect->axis(QCPAxis::atBottom)->setRange(0.0, double(w.endNs - w.startNs) / 1e9 * kMs);
    m_stripRect->axis(QCPAxis::atLeft)->setRange(-0.7, double(lanes) - 0.3);
    const QString stepName = d.stepsKind == TimelineStepsKind::CpuProfilerSteps || d.stepsKind == TimelineStepsKind::AlignedProfilerSteps
                                 || d.stepsKind == TimelineStepsKind::GpuAnnotations
                             ? [&] {
                                   for (const StepWindow &sw : file.steps)
                                       if (sw.startNs == w.startNs && sw.endNs == w.endNs)
                                           return QStringLiteral(" (%1)").arg(sw.name);
                                   return QString();
                               }()
                             : QString();
    if (!m_quietPick)
        emit stepPicked(deviceIndex, step);
    finish((dev->streams.size() == 1 ? tr("s%1%2 of %3, %4 · %5 ms · %6 GPU events on %7 stream")
                                     : tr("s%1%2 of %3, %4 · %5 ms · %6 GPU events on %7 streams"))
               .arg(step)
               .arg(stepName, deviceGroupLabel(deviceIndex, false), sourceName(ref.source))
               .arg(QString::number(double(w.endNs - w.startNs) / 1e6, 'f', 1))
               .arg(m_stripEvents)
               .arg(dev->streams.size()));
}

std::optional<TimeInterval> TimelinePanel::stepWindow(int deviceIndex, int step) const
{
    if (deviceIndex < 0 || deviceIndex >= int(m_devices.size()))
        return std::nullopt;
    const DeviceRef &ref = m_devices[std::size_t(deviceIndex)];
    if (step < 0 || step >= int(ref.windows.size()))
        return std::nullopt;
    return ref.windows[std::size_t(step)];
}

bool TimelinePanel::fromTorchTrace(int deviceIndex) const
{
    return deviceIndex >= 0 && deviceIndex < int(m_devices.size()) && m_devices[std::size_t(deviceIndex)].source == 1;
}

void TimelinePanel::setStripShown(bool shown)
{
    if (shown == m_stripShown)
        return;
    m_stripShown = shown;
    // Out of the layout, and none of its parts drawn (an element outside the layout keeps its
    // last geometry).
    if (shown) {
        plotLayout()->addElement(2, 0, m_stripTitle);
        plotLayout()->addElement(3, 0, m_stripRect);
        plotLayout()->setRowStretchFactor(2, 0.001);
        plotLayout()->setRowStretchFactor(3, 1.0);
    } else {
        plotLayout()->take(m_stripTitle);
        plotLayout()->take(m_stripRect);
        plotLayout()->simplify();
    }
    m_stripTitle->setVisible(shown);
    m_stripRect->setVisible(shown);
    for (QCPAxis *axis : m_stripRect->axes()) {
        axis->setVisible(shown && (axis->axisType() == QCPAxis::atLeft || axis->axisType() == QCPAxis::atBottom));
        axis->grid()->setVisible(shown && axis->axisType() == QCPAxis::atBottom);
    }
    for (QCPGraph *g : m_lanes)
        g->setVisible(shown);
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePanel::markSelection()
{
    if (m_selection) {
        removeItem(m_selection);
        m_selection = nullptr;
    }
    if (m_selectedBar < 0 || m_selectedBar >= barCount())
        return;
    const BarRef &bar = m_bars[std::size_t(m_selectedBar)];
    QCPAxisRect *rect = groupRect(bar.group);
    if (!rect)
        return;
    double sum = 0.0;
    for (double v : bar.values)
        sum += v;
    // Outlined in the text colour (black or white): no hue that a part or a bucket has.
    m_selection = new QCPItemRect(this);
    m_selection->setClipAxisRect(rect);
    for (QCPItemPosition *p : {m_selection->topLeft, m_selection->bottomRight}) {
        p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        p->setAxisRect(rect);
    }
    m_selection->topLeft->setCoords(bar.key - kBarWidth / 2 - 0.03, sum * 1.02);
    m_selection->bottomRight->setCoords(bar.key + kBarWidth / 2 + 0.03, 0.0);
    m_selection->setPen(QPen(palette().color(QPalette::WindowText), 2.5));
    m_selection->setBrush(Qt::NoBrush);
}

int TimelinePanel::barAt(const QPointF &pos) const
{
    for (const Group &g : m_groups) {
        if (!g.rect->rect().contains(pos.toPoint()))
            continue;
        const double key = g.rect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x());
        for (int b = g.firstBar; b < g.firstBar + g.bars; ++b)
            if (std::fabs(m_bars[std::size_t(b)].key - key) <= kBarWidth / 2)
                return b;
    }
    return -1;
}

QString TimelinePanel::toolTipAt(const QPointF &pos) const
{
    const int b = barAt(pos);
    if (b >= 0) {
        const BarRef &bar = m_bars[std::size_t(b)];
        const QCPAxisRect *rect = m_groups[std::size_t(bar.group)].rect;
        const double value = rect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y());
        double top = 0.0;
        for (int p = 0; p < PartCount; ++p) {
            top += bar.values[p];
            if (value <= top || p == PartCount - 1) {
                const DeviceRef &ref = m_devices[std::size_t(bar.device)];
                const DeviceTimelineAnalysis &d = *ref.analysis;
                return tr("%1 (%2), %3%4, step %5\n%6: %7 of %8\n%9\nClick: its GPU events below")
                    .arg(d.file, sourceName(ref.source))
                    .arg(d.rank ? tr("rank %1, ").arg(*d.rank) : QString(), deviceLabel(bar.device, false))
                    .arg(bar.step)
                    .arg(partLabel(p), ms(bar.values[p] / kMs), ms(double(ref.steps[std::size_t(bar.step)].windowNs) / 1e9),
                         partDefinition(p));
            }
        }
        return {};
    }
    for (const Group &g : m_groups)
        if (g.rect->rect().contains(pos.toPoint()))
            return {};
    if (m_stripShown && m_stripRect->rect().contains(pos.toPoint())) {
        const double t = m_stripRect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x()) / kMs;
        const int lane = int(std::lround(m_stripRect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y())));
        // A pixel's worth of slack: sub-pixel kernels are still found.
        const double slack = std::abs(m_stripRect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x() + 2.0) / kMs - t);
        for (const StripEvent &e : m_strip)
            if (e.lane == lane && t >= e.start - slack && t <= e.end + slack)
                return tr("%1\n%2 from the step start, %3 long · stream %4")
                    .arg(e.name, ms(e.start), ms(e.end - e.start), m_laneNames.value(lane));
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

void TimelinePanel::mousePressEvent(QMouseEvent *e)
{
    m_pressPos = e->pos();
    QCustomPlot::mousePressEvent(e);
}

void TimelinePanel::mouseReleaseEvent(QMouseEvent *e)
{
    // A click (not a drag) on a bar shows its events in the strip.
    const bool click = e->button() == Qt::LeftButton && (e->pos() - m_pressPos).manhattanLength() <= 3;
    QCustomPlot::mouseReleaseEvent(e);
    if (click) {
        const int b = barAt(e->pos());
        if (b >= 0)
            showStrip(m_bars[std::size_t(b)].device, m_bars[std::size_t(b)].step);
    }
}

void TimelinePanel::mouseDoubleClickEvent(QMouseEvent *e)
{
    const int b = barAt(e->pos());
    if (b >= 0) {
        showStrip(m_bars[std::size_t(b)].device, m_bars[std::size_t(b)].step);
        return;
    }
    QCustomPlot::mouseDoubleClickEvent(e);
}

} // namespace goblin
