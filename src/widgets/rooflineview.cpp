#include "rooflineview.h"

#include "customplot.h"
#include "formatting.h"
#include "plotstyle.h"

#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace goblin
{

namespace
{

/// Largest point diameter, px: the op with the most device time; area ∝ time below it.
constexpr double kMaxDiameterPx = 28.0;
constexpr double kMinDiameterPx = 3.0;

} // namespace

RooflineView::RooflineView(QWidget *parent) : QWidget(parent), m_plot(new QCustomPlot(this)), m_note(new QLabel(this))
{
    m_note->setWordWrap(true);
    m_note->setTextFormat(Qt::PlainText);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_note);
    layout->addWidget(m_plot, 1);
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        axis->setNumberFormat(QStringLiteral("gb"));
        axis->setNumberPrecision(0);
    }
    m_plot->xAxis->setLabel(tr("Arithmetic intensity (FLOP/byte)"));
    m_plot->yAxis->setLabel(tr("Achieved TFLOP/s"));
    m_plot->legend->setVisible(true);
    // Top left lies above the bandwidth roof, where no op can be: the legend hides no roof and no
    // point there (top right, QCustomPlot's default, covers the compute roofs).
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    m_plot->setInteractions(QCP::iSelectPlottables);
    connect(m_plot, &QCustomPlot::plottableClick, this, &RooflineView::onPlottableClick);
    rebuild();
}

void RooflineView::setRun(const std::shared_ptr<const RunAnalysis> &run)
{
    m_points.clear();
    m_roof = run ? decideGpuRoof(run->facts.devices) : GpuRoof{};
    if (run) {
        for (const OpStats &op : run->torch.attribution.wholeTrace.ops) {
            const OpRoofline r = opRoofline(op, m_roof);
            if (!r.intensity || !r.achievedTflops || *r.flops <= 0 || !r.cost.dtype)
                continue;
            m_points.push_back({op.name, op.inputShapes.value_or(QString()), *r.intensity, *r.achievedTflops,
                                double(op.deviceSelfNs) / 1e9, r.efficiencyPct, *r.cost.dtype});
        }
        // The largest drawn first, so small points stay clickable on top.
        std::stable_sort(m_points.begin(), m_points.end(),
                         [](const Point &a, const Point &b) { return a.deviceSelfS > b.deviceSelfS; });
    }
    QString note;
    if (!run)
        note = tr("No run.");
    else if (m_roof.known)
        note = tr("%1 (from '%2'): data-sheet peaks per datatype and %3 TB/s memory bandwidth. One point per op "
                  "and input shapes with FLOPs and GPU time of its own; area ∝ device self time. Click a point "
                  "to select the op in Operators.")
                   .arg(m_roof.model, m_roof.deviceName, QString::number(m_roof.hbmTbps.value.value_or(0), 'g', 4));
    else
        note = tr("No roof: %1. The points show achieved rates only.").arg(m_roof.reason);
    if (run && m_points.empty())
        note += QLatin1Char(' ') + tr("No op has FLOPs and GPU time of its own (record_shapes off, or no modelled op).");
    m_note->setText(note);
    rebuild();
}

void RooflineView::rebuild()
{
    m_plot->clearPlottables();
    m_pointGraphs.clear();
    m_roofLines = 0;
    applyPalette(m_plot, palette());

    double xMin = 1e-2, xMax = 1e4, yMin = 1e-4, yMax = 1e3;
    if (!m_points.empty()) {
        xMin = yMin = std::numeric_limits<double>::max();
        xMax = yMax = 0;
        for (const Point &p : m_points) {
            xMin = std::min(xMin, p.intensity);
            xMax = std::max(xMax, p.intensity);
            yMin = std::min(yMin, p.achievedTflops);
            yMax = std::max(yMax, p.achievedTflops);
        }
    }
    // The roofs: the bandwidth slope up to each datatype's ridge, then its peak.
    if (m_roof.known && m_roof.hbmTbps.value) {
        const double bw = *m_roof.hbmTbps.value;
        double topPeak = 0;
        for (int d = 0; d < kRoofDtypeCount; ++d)
            if (const std::optional<double> peak = m_roof.peakTflops[size_t(d)].value)
                topPeak = std::max(topPeak, *peak);
        xMin = std::min(xMin, 1e-2);
        xMax = std::max(xMax, 4 * topPeak / bw);
        yMax = std::max(yMax, topPeak);
        for (int d = 0; d < kRoofDtypeCount; ++d) {
            const std::optional<double> peak = m_roof.peakTflops[size_t(d)].value;
            if (!peak)
                continue;
            QCPGraph *g = m_plot->addGraph();
            const double ridge = *peak / bw;
            g->setData({xMin / 10, std::min(ridge, xMax * 10), xMax * 10},
                       {xMin / 10 * bw, std::min(ridge, xMax * 10) * bw, *peak}, true);
            g->setName(tr("%1 %2 TFLOP/s").arg(roofDtypeKey(RoofDtype(d)), QString::number(*peak, 'g', 5)));
            QPen pen(seriesColor(d));
            pen.setWidthF(1.5);
            g->setPen(pen);
            g->setSelectable(QCP::stNone);
            ++m_roofLines;
        }
    }
    const double maxTime = m_points.empty() ? 1.0 : m_points.front().deviceSelfS;
    for (const Point &p : m_points) {
        QCPGraph *g = m_plot->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        const double diameter =
            std::max(kMinDiameterPx, kMaxDiameterPx * std::sqrt(maxTime > 0 ? p.deviceSelfS / maxTime : 0));
        QColor fill = seriesColor(int(p.dtype));
        fill.setAlphaF(0.45);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, seriesColor(int(p.dtype)), fill, diameter));
        g->setData({p.intensity}, {p.achievedTflops}, true);
        g->removeFromLegend();
        g->setSelectable(QCP::stWhole);
        m_pointGraphs.push_back(g);
    }
    m_plot->xAxis->setRange(xMin / 2, xMax * 2);
    m_plot->yAxis->setRange(std::max(1e-6, yMin / 2), yMax * 2);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void RooflineView::activatePoint(int index)
{
    if (index < 0 || size_t(index) >= m_points.size())
        return;
    emit opActivated(m_points[size_t(index)].name, m_points[size_t(index)].shapes);
}

void RooflineView::onPlottableClick(QCPAbstractPlottable *plottable, int, QMouseEvent *)
{
    const auto it = std::find(m_pointGraphs.begin(), m_pointGraphs.end(), plottable);
    if (it != m_pointGraphs.end())
        activatePoint(int(it - m_pointGraphs.begin()));
}

} // namespace goblin
