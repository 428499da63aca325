#include "telemetryplot.h"

#include "results/smitelemetry.h"
#include "formatting.h"
#include "plotstyle.h"
#include "run.h"
#include "sweep.h"

#include <QHelpEvent>
#include <QResizeEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>

namespace goblin {

namespace {
constexpr double kGrabTolerancePx = 6.0;
constexpr double kUtilAxisMax = 105.0;
} // namespace

TelemetryPlot::TelemetryPlot(QWidget *parent)
    : QCustomPlot(parent)
    , m_utilRect(axisRect(0))
    , m_hbmRect(new QCPAxisRect(this))
    , m_panelGrid(new QCPLayoutGrid)
    , m_marginGroup(new QCPMarginGroup(this))
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setNoAntialiasingOnDrag(true);
    setMinimumSize(320, minimumPlotHeight(true));

    // The panels live in a grid of their own (stacked, or side by side on a short screen), under
    // the legend's row and over the note's.
    plotLayout()->take(m_utilRect);
    plotLayout()->simplify();
    plotLayout()->addElement(0, 0, m_panelGrid);
    m_panelGrid->addElement(0, 0, m_utilRect);
    m_panelGrid->addElement(1, 0, m_hbmRect);
    // On the background layer like the default axis rect: drawn on "main", its background covered
    // whatever lies on the layers below (the step marks).
    m_hbmRect->setLayer(QStringLiteral("background"));
    m_utilRect->setMarginGroup(QCP::msLeft | QCP::msRight, m_marginGroup);
    m_hbmRect->setMarginGroup(QCP::msLeft | QCP::msRight, m_marginGroup);

    for (QCPAxisRect *rect : {m_utilRect, m_hbmRect}) {
        rect->setRangeDrag(Qt::Horizontal);
        rect->setRangeZoom(Qt::Horizontal);
        rect->axis(QCPAxis::atBottom)->setRange(0.0, 1.0);
    }
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_utilRect->axis(QCPAxis::atLeft)->setLabel(tr("GPU utilisation (%)"));
    m_utilRect->axis(QCPAxis::atLeft)->setRange(0.0, kUtilAxisMax);
    m_hbmRect->axis(QCPAxis::atLeft)->setLabel(tr("HBM used (GB)"));
    m_hbmRect->axis(QCPAxis::atBottom)->setLabel(tr("time (s)"));
    m_utilTimeTicker = m_utilRect->axis(QCPAxis::atBottom)->ticker();
    m_hbmTimeTicker = m_hbmRect->axis(QCPAxis::atBottom)->ticker();
    linkTimeAxes();

    // The legend in a row of its own above the panels: inside the util panel it covered the
    // samples (and a dragged line's label) once the panel is short or the node has eight GPUs.
    legend->setVisible(true);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(8);
    legend->setColumnSpacing(12);
    m_utilRect->insetLayout()->take(legend);
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, legend);
    plotLayout()->setRowStretchFactor(0, 0.001);
    legend->setMargins(QMargins(4, 1, 4, 1));
    legend->setRowSpacing(0);
    legend->setBorderPen(Qt::NoPen);
    // A column is as narrow as its narrowest element's maximum, and an empty legend's is its
    // margins: without this, a run without telemetry squeezed both panels into a corner.
    legend->setMaximumSize(100000, QWIDGETSIZE_MAX);  // below QWIDGETSIZE_MAX even with the margins added

    addLayer(QStringLiteral("levels"), layer(QStringLiteral("main")), QCustomPlot::limAbove);
    // Step marks under the curves (a shaded step must not veil the samples), over the grid.
    addLayer(QStringLiteral("steps"), layer(QStringLiteral("grid")), QCustomPlot::limAbove);
    m_stepLayer = layer(QStringLiteral("steps"));
    addLayer(QStringLiteral("thresholds"), layer(QStringLiteral("levels")), QCustomPlot::limAbove);
    m_thresholdLayer = layer(QStringLiteral("thresholds"));
    m_thresholdLayer->setMode(QCPLayer::lmBuffered);

    setCurrentLayer(QStringLiteral("levels"));
    m_meanUtilLine = createLevelLine(m_utilRect, m_meanUtilLabel);
    m_hbmPeakLine = createLevelLine(m_hbmRect, m_hbmPeakLabel);
    m_capacityLine = createLevelLine(m_hbmRect, m_capacityLabel);
    m_emptyText = new QCPItemText(this);
    m_emptyText->setClipToAxisRect(false);
    m_emptyText->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_emptyText->position->setAxisRect(m_utilRect);
    m_emptyText->position->setCoords(0.5, 0.5);
    m_emptyText->setText(tr("No telemetry"));
    m_emptyText->setVisible(false);  // the note below says what is missing
    m_traceMemoryPeakLine = createLevelLine(m_hbmRect, m_traceMemoryPeakLabel);
    m_note = new QCPTextElement(this);
    m_note->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    m_note->setMargins(QMargins(6, 2, 6, 2));

    setCurrentLayer(QStringLiteral("thresholds"));
    createThresholdItems(m_utilRect, m_utilLine, m_utilShade, m_utilLabel);
    createThresholdItems(m_hbmRect, m_hbmLine, m_hbmShade, m_hbmLabel);
    setCurrentLayer(QStringLiteral("main"));
    connect(this, &QCustomPlot::beforeReplot, this, [this] {
        // As many legend columns as the width takes (an export's width is not the window's).
        fitLegendToWidth(legend, width());
        for (QCPItemText *label : levelLabels())
            if (QCPAxisRect *rect = label->position->axisRect())
                fitLabel(label, rect);
    });

    applyPalette(palette());
    relayoutPanels();
    setRunLevels(NAN, std::nullopt);
    updateHbmRange();
    placeThresholdItems();
}

void TelemetryPlot::linkTimeAxes()
{
    // One time axis in effect: panning or zooming either panel moves both, while both are time
    // axes (a panel of bars has GPUs on its axis).
    QCPAxis *utilTime = m_utilRect->axis(QCPAxis::atBottom);
    QCPAxis *hbmTime = m_hbmRect->axis(QCPAxis::atBottom);
    connect(utilTime, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this, hbmTime](const QCPRange &r) {
        if (!m_utilBars && !m_hbmBars)
            hbmTime->setRange(r);
    });
    connect(hbmTime, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this, utilTime](const QCPRange &r) {
        if (!m_utilBars && !m_hbmBars)
            utilTime->setRange(r);
    });
}

int TelemetryPlot::minimumPlotHeight(bool sideBySide) const
{
    // Per row of panels: the plot area, its tick labels and axis title; plus the legend's row
    // and the margins. Measured from the font, so a larger font keeps the panels' pixels.
    const int line = fontMetrics().height();
    const int rows = sideBySide ? 1 : 2;
    return rows * (kMinPanelHeightPx + 3 * line + 12) + line + 16;
}

void TelemetryPlot::shiftTimeToZero()
{
    // The run's start is 0: telemetry keeps the tool's clock (epoch or boot seconds) and the
    // trace its own; a reader wants "how far into the run".
    const double origin = m_timeMin;
    if (!std::isfinite(origin) || origin == 0.0)
        return;
    for (int i = 0; i < graphCount(); ++i) {
        QSharedPointer<QCPGraphDataContainer> data = graph(i)->data();
        for (auto it = data->begin(); it != data->end(); ++it)
            it->key -= origin;
    }
    for (QCPItemLine *line : std::as_const(m_stepLines)) {
        line->start->setCoords(line->start->coords().x() - origin, line->start->coords().y());
        line->end->setCoords(line->end->coords().x() - origin, line->end->coords().y());
    }
    for (QCPItemRect *r : std::as_const(m_stepShades)) {
        r->topLeft->setCoords(r->topLeft->coords().x() - origin, r->topLeft->coords().y());
        r->bottomRight->setCoords(r->bottomRight->coords().x() - origin, r->bottomRight->coords().y());
    }
    for (double &t : m_stepTimes)
        t -= origin;
    m_timeMax -= origin;
    m_timeMin = 0.0;
}

QCPItemStraightLine *TelemetryPlot::createLevelLine(QCPAxisRect *rect, QCPItemText *&label)
{
    auto *line = new QCPItemStraightLine(this);
    line->setClipAxisRect(rect);
    for (QCPItemPosition *p : {line->point1, line->point2}) {
        p->setAxisRect(rect);
        p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        p->setTypeX(QCPItemPosition::ptAxisRectRatio);
        p->setTypeY(QCPItemPosition::ptPlotCoords);
    }
    line->point1->setCoords(0.0, 0.0);
    line->point2->setCoords(1.0, 0.0);
    line->setSelectable(false);
    label = new QCPItemText(this);
    label->setClipAxisRect(rect);
    label->position->setAxisRect(rect);
    label->position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label->position->setTypeY(QCPItemPosition::ptPlotCoords);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    label->setPadding(QMargins(4, 0, 4, 1));
    label->setSelectable(false);
    return line;
}

void TelemetryPlot::createThresholdItems(QCPAxisRect *rect, QCPItemStraightLine *&line, QCPItemRect *&shade,
                                         QCPItemText *&label)
{
    shade = new QCPItemRect(this);
    shade->setClipAxisRect(rect);
    shade->topLeft->setAxisRect(rect);
    shade->topLeft->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    shade->topLeft->setTypeX(QCPItemPosition::ptAxisRectRatio);
    shade->topLeft->setTypeY(QCPItemPosition::ptPlotCoords);
    shade->bottomRight->setAxisRect(rect);
    shade->bottomRight->setType(QCPItemPosition::ptAxisRectRatio);
    shade->bottomRight->setCoords(1.0, 1.0);
    shade->setSelectable(false);
    line = createLevelLine(rect, label);
    label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
}

void TelemetryPlot::setHorizontal(QCPItemStraightLine *line, double y)
{
    line->point1->setCoords(0.0, y);
    line->point2->setCoords(1.0, y);
}

void TelemetryPlot::anchorLabel(QCPItemText *label, QCPAxisRect *rect, double xRatio, double y,
                                Qt::Alignment horizontal)
{
    label->position->setCoords(xRatio, y);
    label->setPositionAlignment(horizontal | Qt::AlignBottom);
    fitLabel(label, rect);
}

void TelemetryPlot::fitLabel(QCPItemText *label, QCPAxisRect *rect)
{
    // Above its line where the text fits between the line and the panel's top, else below it
    // (the panels are short at 1366x768: 90 % can leave a few pixels above), else on the roomier
    // side. Pixels, not a share of the range: re-done before every replot, as sizes change.
    const double yPx = rect->axis(QCPAxis::atLeft)->coordToPixel(label->position->coords().y());
    const double textPx = QFontMetricsF(label->font()).height() + label->padding().top() + label->padding().bottom();
    const double above = yPx - rect->top(), below = rect->bottom() - yPx;
    const bool under = above < textPx && (below >= textPx || below > above);
    const Qt::Alignment horizontal = label->positionAlignment() & Qt::AlignHorizontal_Mask;
    label->setPositionAlignment(horizontal | (under ? Qt::AlignTop : Qt::AlignBottom));
}

void TelemetryPlot::setTelemetry(const SmiTelemetry *telemetry)
{
    m_hasRun = telemetry != nullptr;
    rebuild(telemetry, nullptr);
}

void TelemetryPlot::setRun(const RunAnalysis *run, int rankIndex)
{
    m_hasRun = run != nullptr;
    rebuild(run ? &run->smi : nullptr, run, rankIndex);
}

void TelemetryPlot::rebuild(const SmiTelemetry *telemetry, const RunAnalysis *run, int rankIndex)
{
    for (QVector<QCPGraph *> *graphs : {&m_utilGraphs, &m_hbmGraphs, &m_traceBusyGraphs, &m_traceMemoryGraphs}) {
        for (QCPGraph *graph : std::as_const(*graphs))
            removeGraph(graph);
        graphs->clear();
    }
    clearStepMarks();
    m_telemetryTool = telemetry ? telemetry->tool : QStringLiteral("amd-smi");
    m_maxHbmUsedGb = 0.0;
    m_traceMemoryPeakGb = 0.0;
    m_timeMin = 0.0;
    m_timeMax = 1.0;

    bool telemetryHbm = false;
    if (telemetry && !telemetry->samples.empty()) {
        // Split by GPU, keeping file order (time order within a GPU).
        std::map<int, std::pair<QVector<double>, QVector<double>>> util, hbm;
        double tMin = INFINITY, tMax = -INFINITY;
        for (const TelemetrySample &s : telemetry->samples) {
            util[s.gpu].first.push_back(s.timeS);
            util[s.gpu].second.push_back(s.utilPct);
            hbm[s.gpu].first.push_back(s.timeS);
            hbm[s.gpu].second.push_back(s.hbmUsedGb);
            tMin = std::min(tMin, s.timeS);
            tMax = std::max(tMax, s.timeS);
            if (std::isfinite(s.hbmUsedGb)) {
                m_maxHbmUsedGb = std::max(m_maxHbmUsedGb, s.hbmUsedGb);
                telemetryHbm = true;
            }
        }
        for (auto &[gpu, series] : util) {
            const QColor color = graphColor(int(m_utilGraphs.size()));
            QCPGraph *u = addGraph(m_utilRect->axis(QCPAxis::atBottom), m_utilRect->axis(QCPAxis::atLeft));
            // The one device naming (devicefacts.h): with the trace device where the run's files say it.
            const QString name = run ? telemetryGpuName(run->facts.devices, gpu, true) : deviceDisplayName(gpu, -1);
            u->setName(name);
            u->setPen(QPen(color, 1.5));
            u->setData(series.first, series.second);
            m_utilGraphs.push_back(u);
            QCPGraph *h = addGraph(m_hbmRect->axis(QCPAxis::atBottom), m_hbmRect->axis(QCPAxis::atLeft));
            h->setName(name);
            h->setPen(QPen(color, 1.5));
            h->setData(hbm[gpu].first, hbm[gpu].second);
            h->removeFromLegend();
            m_hbmGraphs.push_back(h);
        }
        m_timeMin = tMin;
        m_timeMax = tMax > tMin ? tMax : tMin + 1.0;
    }
    const bool hasTelemetry = !m_utilGraphs.isEmpty();
    // Telemetry has no clock shared with the trace: the trace's series are drawn over time only
    // when there is no telemetry, else its memory peak is a level.
    if (run && !hasTelemetry)
        addTraceBusy(*run);
    if (run)
        addTraceMemory(*run, !hasTelemetry, rankIndex);
    if (run && hasTelemetry && run->smi.placement.placed)
        addStepMarks(*run);
    m_utilSource = hasTelemetry ? Source::Telemetry : !m_traceBusyGraphs.isEmpty() ? Source::Trace : Source::None;
    m_memorySource = hasTelemetry ? (telemetryHbm || m_traceMemoryPeakGb > 0.0 ? Source::Telemetry : Source::None)
                     : !m_traceMemoryGraphs.isEmpty() ? Source::Trace
                                                      : Source::None;
    if (run && hasTelemetry && run->smi.placement.placed) {
        // The first step may start before the first sample: the axis starts at whichever is first.
        for (double t : std::as_const(m_stepTimes))
            m_timeMin = std::min(m_timeMin, t);
    }
    shiftTimeToZero();
    buildBars();
    m_emptyText->setVisible(false);
    m_traceKnown = run != nullptr;
    relayoutPanels();
    updateHbmRange();
    placeThresholdItems();
    applyPalette(palette());  // the panels and series just made, in the plot's palette
    resetZoom();
}

QList<QCPItemText *> TelemetryPlot::levelLabels() const
{
    return {m_utilLabel, m_hbmLabel, m_meanUtilLabel, m_hbmPeakLabel, m_capacityLabel, m_traceMemoryPeakLabel};
}

QSize TelemetryPlot::sizeHint() const
{
    const QSize hint = QCustomPlot::sizeHint();
    if (collapsed() && m_hasRun)
        return QSize(hint.width(), 2 * fontMetrics().height());
    return hint;
}

bool TelemetryPlot::traceMemoryPeakShown() const
{
    return m_traceMemoryPeakLine->visible();
}

QString TelemetryPlot::noteText() const
{
    if (!m_hasRun)
        return utilPanelShown() || hbmPanelShown() ? QString() : tr("Open a run to chart its utilisation and memory.");
    if (!m_traceKnown)  // setTelemetry(): nothing is known of the trace
        return utilPanelShown() && hbmPanelShown() ? QString() : tr("No telemetry (amd_smi.csv) in this run.");
    if (!utilPanelShown() && !hbmPanelShown())
        return tr("No telemetry, no GPU events and no memory events in this trace: nothing to chart.");
    if (!hbmPanelShown())
        return tr("Memory: no telemetry and no memory events in this trace.");
    if (!utilPanelShown())
        return tr("Utilisation: no telemetry and no GPU events in this trace.");
    return {};
}

void TelemetryPlot::relayoutPanels()
{
    QCPLayoutGrid *grid = plotLayout();
    for (QCPLayoutElement *e : {static_cast<QCPLayoutElement *>(legend), static_cast<QCPLayoutElement *>(m_panelGrid),
                                static_cast<QCPLayoutElement *>(m_note)})
        if (grid->elements(false).contains(e))
            grid->take(e);
    grid->simplify();
    for (QCPLayoutElement *e : {static_cast<QCPLayoutElement *>(m_utilRect), static_cast<QCPLayoutElement *>(m_hbmRect)})
        if (m_panelGrid->elements(false).contains(e))
            m_panelGrid->take(e);
    m_panelGrid->simplify();
    int row = 0;
    const auto add = [&](QCPLayoutElement *e, double stretch) {
        grid->addElement(row, 0, e);
        grid->setRowStretchFactor(row, stretch);
        ++row;
    };
    // The legend names the curves; bars are named on their axis.
    legend->setVisible((!m_utilGraphs.isEmpty() || !m_traceBusyGraphs.isEmpty()) && !m_utilBars);
    if (legend->visible())
        add(legend, 0.001);
    // A panel with nothing to draw leaves the layout and is hidden with its axes, grid and items,
    // so its space goes to the other panel (or the plot shrinks to the note).
    m_utilRect->setVisible(utilPanelShown());
    m_hbmRect->setVisible(hbmPanelShown());
    // Side by side where stacking would leave a panel under kMinPanelHeightPx (a 1366×768 screen):
    // a threshold dragged over 44 px moved 2.3 % per pixel.
    m_sideBySide = utilPanelShown() && hbmPanelShown() && height() < minimumPlotHeight(false);
    int cell = 0;
    for (QCPAxisRect *rect : {m_utilRect, m_hbmRect}) {
        if (!rect->visible())
            continue;
        m_panelGrid->addElement(m_sideBySide ? 0 : cell, m_sideBySide ? cell : 0, rect);
        ++cell;
    }
    // Stacked panels align their left and right edges, side-by-side ones their top and bottom.
    const QCP::MarginSides aligned = m_sideBySide ? (QCP::msTop | QCP::msBottom) : (QCP::msLeft | QCP::msRight);
    for (QCPAxisRect *rect : {m_utilRect, m_hbmRect}) {
        rect->setMarginGroup(QCP::msAll, nullptr);
        rect->setMarginGroup(aligned, m_marginGroup);
    }
    if (cell > 0)
        add(m_panelGrid, 1.0);
    const QString note = noteText();
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
    if (!note.isEmpty())
        add(m_note, 0.001);
    // Only a run with nothing to draw shrinks the widget: before any run it keeps its size, so the
    // first run's panels are laid out where they will stay (a plot that grew under a drag that
    // had started moved the line away from the mouse).
    if (collapsed() && m_hasRun) {
        const int height = 2 * fontMetrics().height();
        setMinimumSize(320, height);
        setMaximumHeight(height);
        // Fixed: the layout gives its spare room to the widgets below, not to an empty band
        // under the note (a capped Expanding plot kept claiming it).
        setSizePolicy(sizePolicy().horizontalPolicy(), QSizePolicy::Fixed);
    } else {
        // Side by side is always possible: the least height keeps one row of panels at
        // kMinPanelHeightPx (plus a line for a note).
        const int noteLines = note.isEmpty() ? 0 : fontMetrics().height() + 4;
        setMinimumSize(320, minimumPlotHeight(true) + noteLines);
        setMaximumHeight(QWIDGETSIZE_MAX);
        setSizePolicy(sizePolicy().horizontalPolicy(), QSizePolicy::Expanding);
    }
    updateGeometry();
    updateAxisLabels();
    applyItemVisibility();
}

void TelemetryPlot::updateAxisLabels()
{
    // Short axis titles on short panels, or the two overlap.
    const bool compact = (m_sideBySide ? height() : height() / 2) < 130;
    const bool trace = m_utilSource == Source::Trace;
    m_utilRect->axis(QCPAxis::atLeft)
        ->setLabel(trace ? (compact ? tr("busy (%)") : tr("GPU busy per step (%)"))
                         : (compact ? tr("util (%)") : tr("GPU utilisation (%)")));
    const bool traceMemory = m_memorySource == Source::Trace;
    m_hbmRect->axis(QCPAxis::atLeft)
        ->setLabel(traceMemory ? (compact ? tr("mem (GB)") : tr("trace memory (GB)"))
                               : (compact ? tr("HBM (GB)") : tr("HBM used (GB)")));
    const QString time = m_utilSource == Source::Telemetry || m_memorySource == Source::Telemetry
                             ? tr("time from the first sample (s)")
                             : tr("time from the run's start (s)");
    const bool telemetry = m_utilSource == Source::Telemetry;
    const QString utilBars = telemetry ? tr("one sample per GPU: no time series") : tr("one step per device: no time series");
    const QString hbmBars = m_memorySource == Source::Telemetry ? tr("one sample per GPU: no time series")
                                                                : tr("one memory event per device: no time series");
    // Stacked time panels share the lower one's title; bars and side-by-side panels each have one.
    const bool shared = hbmPanelShown() && !m_sideBySide && !m_utilBars && !m_hbmBars;
    m_utilRect->axis(QCPAxis::atBottom)->setLabel(m_utilBars ? utilBars : shared ? QString() : time);
    m_hbmRect->axis(QCPAxis::atBottom)->setLabel(m_hbmBars ? hbmBars : time);
    for (QCPAxisRect *rect : {m_utilRect, m_hbmRect})
        rect->axis(QCPAxis::atLeft)->ticker()->setTickCount(compact ? 2 : 5);
}

void TelemetryPlot::applyItemVisibility()
{
    const bool util = utilPanelShown(), hbm = hbmPanelShown();
    for (QCPAbstractItem *item : std::initializer_list<QCPAbstractItem *>{m_utilLine, m_utilShade, m_utilLabel,
                                                                          m_meanUtilLabel})
        item->setVisible(util);
    m_meanUtilLine->setVisible(util && m_meanUtilKnown);
    for (QCPAbstractItem *item :
         std::initializer_list<QCPAbstractItem *>{m_hbmLine, m_hbmShade, m_hbmLabel, m_capacityLine, m_capacityLabel})
        item->setVisible(hbm);
    m_hbmPeakLine->setVisible(hbm && m_hbmPeakKnown);
    m_hbmPeakLabel->setVisible(hbm && m_hbmPeakKnown);
    const bool tracePeak = hbm && m_memorySource == Source::Telemetry && m_traceMemoryPeakGb > 0.0;
    m_traceMemoryPeakLine->setVisible(tracePeak);
    m_traceMemoryPeakLabel->setVisible(tracePeak);
    if (tracePeak) {
        setHorizontal(m_traceMemoryPeakLine, m_traceMemoryPeakGb);
        anchorLabel(m_traceMemoryPeakLabel, m_hbmRect, 0.35, m_traceMemoryPeakGb, Qt::AlignLeft);
        m_traceMemoryPeakLabel->setText(tr("trace allocator peak %1").arg(formatGb(m_traceMemoryPeakGb)));
    }
}

void TelemetryPlot::setRunLevels(double meanUtilPct, std::optional<double> hbmPeakGb, const QString &utilNote)
{
    const bool hasUtil = std::isfinite(meanUtilPct);
    m_meanUtilNote = utilNote;
    m_meanUtilKnown = hasUtil;
    // Unknown: no line, and the label says "—" at the top of the panel (never a 0 % level).
    if (hasUtil) {
        setHorizontal(m_meanUtilLine, meanUtilPct);
        anchorLabel(m_meanUtilLabel, m_utilRect, 0.0, meanUtilPct, Qt::AlignLeft);
        // The scope in the tooltip: a long label ran under the legend.
        m_meanUtilLabel->setText(tr("budget util %1").arg(formatPercent(meanUtilPct)));
    } else {
        anchorLabel(m_meanUtilLabel, m_utilRect, 0.0, kUtilAxisMax, Qt::AlignLeft);
        m_meanUtilLabel->setText(tr("budget util —"));
    }
    const bool hasPeak = hbmPeakGb && std::isfinite(*hbmPeakGb);
    m_hbmPeakKnown = hasPeak;
    applyItemVisibility();
    if (hasPeak) {
        setHorizontal(m_hbmPeakLine, *hbmPeakGb);
        anchorLabel(m_hbmPeakLabel, m_hbmRect, 0.0, *hbmPeakGb, Qt::AlignLeft);
        m_hbmPeakLabel->setText(tr("peak %1").arg(formatGb(*hbmPeakGb)));
    }
    replot(rpQueuedReplot);
}

void TelemetryPlot::setThresholds(double gpuUtilBelowPct, double hbmTargetPct, double hbmCapacityGb)
{
    const bool capacityChanged = hbmCapacityGb != m_capacityGb;
    if (gpuUtilBelowPct == m_utilPct && hbmTargetPct == m_hbmTargetPct && !capacityChanged)
        return;
    m_utilPct = gpuUtilBelowPct;
    m_hbmTargetPct = hbmTargetPct;
    m_capacityGb = hbmCapacityGb;
    if (capacityChanged)
        updateHbmRange();
    placeThresholdItems();
    if (capacityChanged) {
        replot(rpQueuedReplot);
    } else {
        scheduleOverlayReplot();
    }
}

void TelemetryPlot::placeThresholdItems()
{
    setHorizontal(m_utilLine, m_utilPct);
    m_utilShade->topLeft->setCoords(0.0, m_utilPct);
    anchorLabel(m_utilLabel, m_utilRect, 1.0, m_utilPct, Qt::AlignRight);
    const QString drag = m_interactiveHints ? tr(" (drag)") : QString();
    // While dragged: whether the drag so far changed anything, and where the next switch is.
    const auto effect = [this](Line line) {
        const QString text = dragEffectText(line);
        return text.isEmpty() ? QString() : QStringLiteral(" — ") + text;
    };
    m_utilLabel->setText(tr("GPU util threshold %1").arg(formatPercent(m_utilPct))
                         + (m_drag == Line::GpuUtil ? effect(Line::GpuUtil) : drag));

    const double targetGb = hbmTargetLineGb();
    setHorizontal(m_hbmLine, targetGb);
    m_hbmShade->topLeft->setCoords(0.0, targetGb);
    anchorLabel(m_hbmLabel, m_hbmRect, 1.0, targetGb, Qt::AlignRight);
    m_hbmLabel->setText(tr("HBM target %1 = %2").arg(formatPercent(m_hbmTargetPct), formatGb(targetGb))
                        + (m_drag == Line::HbmTarget ? effect(Line::HbmTarget) : drag));

    setHorizontal(m_capacityLine, m_capacityGb);
    anchorLabel(m_capacityLabel, m_hbmRect, 0.5, m_capacityGb, Qt::AlignHCenter);
    m_capacityLabel->setText(tr("capacity %1").arg(formatGb(m_capacityGb)));
}

void TelemetryPlot::updateHbmRange()
{
    // 5 % over the capacity: its label fits, and kMinPanelHeightPx keeps a drag ≤ 1 % per pixel.
    const double top = std::max({m_capacityGb, m_maxHbmUsedGb, 1.0}) * 1.05;
    m_hbmRect->axis(QCPAxis::atLeft)->setRange(0.0, top);
}

void TelemetryPlot::scheduleOverlayReplot()
{
    if (m_overlayPending)
        return;
    m_overlayPending = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_overlayPending = false;
            ++m_overlayReplots;
            m_thresholdLayer->replot();
        },
        Qt::QueuedConnection);
}

void TelemetryPlot::setInteractiveHints(bool show)
{
    m_interactiveHints = show;
    placeThresholdItems();
    replot(rpQueuedReplot);
}

void TelemetryPlot::resetZoom()
{
    const double pad = (m_timeMax - m_timeMin) * 0.01;
    // Both panels: the time axes are linked only while neither is a panel of bars.
    if (!m_utilBars)
        m_utilRect->axis(QCPAxis::atBottom)->setRange(m_timeMin - pad, m_timeMax + pad);
    if (!m_hbmBars)
        m_hbmRect->axis(QCPAxis::atBottom)->setRange(m_timeMin - pad, m_timeMax + pad);
    m_utilRect->axis(QCPAxis::atLeft)->setRange(0.0, kUtilAxisMax);
    updateHbmRange();
    replot(rpQueuedReplot);
}

void TelemetryPlot::applyPalette(const QPalette &pal)
{
    goblin::applyPalette(this, pal);
    // Both panels, also the one out of the layout now: it comes back with the next run in this
    // palette (an export under the dark theme drew its panels dark on the white page).
    for (QCPAxisRect *rect : {m_utilRect, m_hbmRect})
        goblin::applyPalette(rect, pal);
    styleItems();
    replot(rpQueuedReplot);
}

QColor TelemetryPlot::graphColor(int index) const
{
    // The categorical colours are tuned for light backgrounds; lift them on dark ones.
    const QColor color = seriesColor(index);
    return isDarkPalette(palette()) ? color.lighter(150) : color;
}

void TelemetryPlot::styleItems()
{
    const QPalette &pal = palette();
    for (int i = 0; i < m_utilGraphs.size(); ++i) {
        m_utilGraphs[i]->setPen(QPen(graphColor(i), 1.5));
        m_hbmGraphs[i]->setPen(QPen(graphColor(i), 1.5));
    }
    for (int i = 0; i < m_traceBusyGraphs.size(); ++i)
        m_traceBusyGraphs[i]->setPen(QPen(graphColor(i), 2.0));
    for (QCPBars *bars : m_utilBarItems + m_hbmBarItems) {
        const QColor color = graphColor(bars->property("colorIndex").toInt());
        bars->setPen(QPen(color.darker(130), 1.0));
        bars->setBrush(color);
    }
    for (QCPGraph *g : std::as_const(m_traceMemoryGraphs)) {
        const bool reserved = g->property("reserved").toBool();
        g->setPen(QPen(graphColor(g->property("deviceIndex").toInt()), reserved ? 1.2 : 1.8,
                       reserved ? Qt::DashLine : Qt::SolidLine));
    }
    if (m_note) {
        m_note->setTextColor(secondaryTextColor(pal));
        m_note->setFont(font());
    }
    const QColor threshold = thresholdColor(pal);
    QColor shade = threshold;
    shade.setAlpha(isDarkPalette(pal) ? 55 : 38);
    for (QCPItemStraightLine *line : {m_utilLine, m_hbmLine})
        line->setPen(QPen(threshold, 2.0));
    for (QCPItemRect *rect : {m_utilShade, m_hbmShade}) {
        rect->setPen(Qt::NoPen);
        rect->setBrush(shade);
    }
    for (QCPItemText *label : {m_utilLabel, m_hbmLabel})
        label->setColor(threshold);
    const QColor level = pal.color(QPalette::WindowText);
    for (QCPItemStraightLine *line : {m_meanUtilLine, m_hbmPeakLine, m_traceMemoryPeakLine})
        line->setPen(QPen(level, 1.0, Qt::DashLine));
    m_traceMemoryPeakLabel->setColor(level);
    m_capacityLine->setPen(QPen(pal.color(QPalette::Mid), 1.0, Qt::DotLine));
    for (QCPItemText *label : {m_meanUtilLabel, m_hbmPeakLabel, m_capacityLabel, m_emptyText})
        label->setColor(level);
    // Labels sit over the curves: a backdrop of the panel's colour keeps them readable where a
    // curve runs through them (the curve stays visible around the text).
    QColor backdrop = pal.color(QPalette::Base);
    backdrop.setAlpha(215);
    for (QCPItemText *label : levelLabels()) {
        label->setBrush(backdrop);
        label->setPen(Qt::NoPen);
    }
    QColor stepLine = pal.color(QPalette::WindowText);
    stepLine.setAlpha(isDarkPalette(pal) ? 90 : 70);
    for (QCPItemLine *line : std::as_const(m_stepLines))
        line->setPen(QPen(stepLine, 1.0));
    QColor stepShade = pal.color(QPalette::WindowText);
    stepShade.setAlpha(isDarkPalette(pal) ? 22 : 14);
    for (QCPItemRect *r : std::as_const(m_stepShades)) {
        r->setPen(Qt::NoPen);
        r->setBrush(stepShade);
    }
}

TelemetryPlot::Line TelemetryPlot::lineAt(const QPointF &pos) const
{
    const auto near = [&](QCPAxisRect *rect, double value) {
        if (!rect->visible() || !rect->rect().contains(pos.toPoint()))
            return false;
        const double y = rect->axis(QCPAxis::atLeft)->coordToPixel(value);
        return std::abs(pos.y() - y) <= kGrabTolerancePx;
    };
    if (near(m_utilRect, m_utilPct))
        return Line::GpuUtil;
    if (near(m_hbmRect, hbmTargetLineGb()))
        return Line::HbmTarget;
    return Line::None;
}

QPointF TelemetryPlot::linePosition(Line line) const
{
    QCPAxisRect *rect = line == Line::HbmTarget ? m_hbmRect : m_utilRect;
    const double value = line == Line::HbmTarget ? hbmTargetLineGb() : m_utilPct;
    return QPointF(rect->rect().center().x(), rect->axis(QCPAxis::atLeft)->coordToPixel(value));
}

double TelemetryPlot::valueAt(Line line, const QPointF &pos) const
{
    switch (line) {
    // Not clamped: the ThresholdEditor clamps every edit to the knob's range, once.
    case Line::GpuUtil:
        return m_utilRect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y());
    case Line::HbmTarget: {
        const double gb = m_hbmRect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y());
        return m_capacityGb > 0.0 ? 100.0 * gb / m_capacityGb : m_hbmTargetPct;
    }
    case Line::None:
        break;
    }
    return 0.0;
}

void TelemetryPlot::setSwitchValues(Line line, std::vector<double> valuesPct, bool gatesOnly)
{
    std::sort(valuesPct.begin(), valuesPct.end());
    if (line == Line::HbmTarget) {
        m_hbmSwitches = std::move(valuesPct);
        m_hbmGatesOnly = gatesOnly;
    } else if (line == Line::GpuUtil) {
        m_utilSwitches = std::move(valuesPct);
        m_utilGatesOnly = gatesOnly;
    }
    if (m_drag != Line::None)
        placeThresholdItems();
}

void TelemetryPlot::setSwitchesFrom(const RunAnalysis *run, const Derived &derived)
{
    if (!run) {
        setSwitchValues(Line::GpuUtil, {}, true);
        setSwitchValues(Line::HbmTarget, {}, false);
        return;
    }
    // The plan Derived holds: a drag must not cut the span again.
    setSwitchValues(Line::GpuUtil,
                    sweepBreakpoints(*run, derived.profile, derived.thresholds, SweepThreshold::GpuUtilBelow, &derived.plan),
                    true);
    setSwitchValues(Line::HbmTarget,
                    sweepBreakpoints(*run, derived.profile, derived.thresholds, SweepThreshold::HbmTarget, &derived.plan),
                    false);
}

QString TelemetryPlot::dragEffectText(Line line) const
{
    if (m_drag != line || line == Line::None)
        return {};
    const bool util = line == Line::GpuUtil;
    const std::vector<double> &switches = util ? m_utilSwitches : m_hbmSwitches;
    const double now = util ? m_utilPct : m_hbmTargetPct;
    const ThresholdSpan span = thresholdSpanAround(switches, now, util ? m_utilGatesOnly : m_hbmGatesOnly);
    if (!span.flat || !span.contains(m_dragStartPct))
        return {};  // the drag crossed a switch (or the budget follows the line here)
    const bool up = now >= m_dragStartPct;
    const std::optional<double> next = up ? span.switchAbove : span.switchBelow;
    const std::optional<double> other = up ? span.switchBelow : span.switchAbove;
    if (next)
        return tr("no effect on this run; next switch %1 %2").arg(formatPercent(*next, 2), up ? tr("up") : tr("down"));
    if (other)
        return tr("no effect on this run; next switch %1 %2").arg(formatPercent(*other, 2), up ? tr("down") : tr("up"));
    return tr("no effect on this run at any value");
}

bool TelemetryPlot::beginLineDrag(const QPointF &pos)
{
    m_drag = lineAt(pos);
    if (m_drag == Line::None)
        return false;
    m_dragStartPct = m_drag == Line::GpuUtil ? m_utilPct : m_hbmTargetPct;
    setCursor(Qt::SizeVerCursor);
    return true;
}

void TelemetryPlot::dragLineTo(const QPointF &pos)
{
    if (m_drag == Line::None)
        return;
    const double value = valueAt(m_drag, pos);
    // The line does not move itself: the value goes to the ThresholdEditor (which clamps it) and
    // comes back, synchronously, through LiveAnalysis::thresholdsChanged and setThresholds().
    emit thresholdDragged(m_drag == Line::GpuUtil ? ThresholdField::GpuUtilBelow : ThresholdField::HbmTarget, value);
}

void TelemetryPlot::endLineDrag()
{
    if (m_drag == Line::None)
        return;
    const ThresholdField field = m_drag == Line::GpuUtil ? ThresholdField::GpuUtilBelow : ThresholdField::HbmTarget;
    m_drag = Line::None;
    unsetCursor();
    placeThresholdItems();  // back to the "(drag)" hint
    scheduleOverlayReplot();
    emit dragFinished(field);
}

void TelemetryPlot::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && beginLineDrag(event->position())) {
        event->accept();
        return;
    }
    QCustomPlot::mousePressEvent(event);
}

void TelemetryPlot::mouseMoveEvent(QMouseEvent *event)
{
    if (m_drag != Line::None) {
        dragLineTo(event->position());
        event->accept();
        return;
    }
    if (event->buttons() == Qt::NoButton) {
        if (lineAt(event->position()) != Line::None)
            setCursor(Qt::SizeVerCursor);
        else
            unsetCursor();
    }
    QCustomPlot::mouseMoveEvent(event);
}

void TelemetryPlot::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_drag != Line::None && event->button() == Qt::LeftButton) {
        dragLineTo(event->position());
        endLineDrag();
        event->accept();
        return;
    }
    QCustomPlot::mouseReleaseEvent(event);
}

void TelemetryPlot::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_R || event->key() == Qt::Key_Home || event->key() == Qt::Key_0) {
        resetZoom();
        event->accept();
        return;
    }
    QCustomPlot::keyPressEvent(event);
}

QString TelemetryPlot::meanUtilText() const
{
    return m_meanUtilLabel->visible() ? m_meanUtilLabel->text() : QString();
}

QString TelemetryPlot::meanUtilToolTip() const
{
    if (!m_meanUtilLine->visible())
        return m_meanUtilNote.isEmpty() ? tr("Budget utilisation: unknown (nothing measured it)")
                                        : tr("Budget utilisation: unknown — %1").arg(m_meanUtilNote);
    return tr("The utilisation the budget used (%1), dashed; the lines are %2's samples per GPU")
        .arg(m_meanUtilNote.isEmpty() ? tr("the run") : m_meanUtilNote, m_telemetryTool);
}

void TelemetryPlot::resizeEvent(QResizeEvent *event)
{
    // Short panels (a 1366×768 screen): short axis titles, or the two overlap. height() is the
    // new size already.
    QCustomPlot::resizeEvent(event);
    const bool sideBySide = utilPanelShown() && hbmPanelShown() && height() < minimumPlotHeight(false);
    if (sideBySide != m_sideBySide)
        relayoutPanels();
    updateAxisLabels();
}

bool TelemetryPlot::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        // Over the budget-util label or its line: what the level covers, or why it is unknown.
        const QPointF pos = help->pos();
        const bool overLabel = m_meanUtilLabel->visible() && m_meanUtilLabel->selectTest(pos, false) >= 0
            && m_meanUtilLabel->selectTest(pos, false) < 4.0;
        const bool overLine = m_meanUtilLine->visible() && m_meanUtilLine->selectTest(pos, false) >= 0
            && m_meanUtilLine->selectTest(pos, false) < 4.0;
        if (overLabel || overLine)
            QToolTip::showText(help->globalPos(), meanUtilToolTip(), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QCustomPlot::event(event);
}

void TelemetryPlot::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        applyPalette(palette());
    QCustomPlot::changeEvent(event);
}

} // namespace goblin
