#include "sweepchart.h"

#include "budgetformula.h"
#include "compareplot.h"
#include "exportpainting.h"
#include "formatting.h"
#include "liveanalysis.h"
#include "plotstyle.h"
#include "thresholdeditor.h"
#include "workbenchsession.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

const SweepThreshold kSweepable[] = {SweepThreshold::GpuUtilBelow, SweepThreshold::HostBusyAbove,
                                     SweepThreshold::HbmTarget};

ThresholdField fieldOf(SweepThreshold which)
{
    switch (which) {
    case SweepThreshold::GpuUtilBelow:
        return ThresholdField::GpuUtilBelow;
    case SweepThreshold::HostBusyAbove:
        return ThresholdField::HostBusyAbove;
    case SweepThreshold::HbmTarget:
        return ThresholdField::HbmTarget;
    }
    return ThresholdField::GpuUtilBelow;
}

/// "GPU util below (%)": the knob's label and unit from the one threshold table.
QString axisLabel(SweepThreshold which)
{
    const ThresholdDescriptor *d = thresholdDescriptor(fieldOf(which));
    return d->unitText().isEmpty() ? d->labelText() : QStringLiteral("%1 (%2)").arg(d->labelText(), d->unitText());
}

/// Row of a budget line (WasteBudget order, then kUnattributedRow) and its value at a point.
double rowValue(const SweepPoint &p, int row)
{
    return row == kUnattributedRow ? p.budget.unattributed : p.budget.bucket(row);
}

QString switchText(const SwitchPoint &s)
{
    for (int b = 0; b < WasteBudget::BucketCount; ++b)
        if (WasteBudget::bucketKey(b) == s.bucket)
            return QStringLiteral("%1 %2").arg(WasteBudget::bucketLabel(b), s.on ? QStringLiteral("on")
                                                                                  : QStringLiteral("off"));
    return s.bucket;
}

QString shortNumber(double value)
{
    return QString::number(value, 'g', 6);
}

} // namespace

std::vector<double> sweepChartValues(SweepThreshold which)
{
    return sweepCurveValues(which);
}

void drawSweepPlot(QCustomPlot *plot, SweepThreshold which, const std::vector<SweepPoint> &points,
                   std::optional<double> current, const QPalette &palette)
{
    plot->clearGraphs();
    plot->clearItems();
    applyPalette(plot, palette);
    placeLegendAbove(plot, palette);
    plot->legend->setVisible(!points.empty());
    plot->xAxis->setLabel(axisLabel(which));
    plot->yAxis->setLabel(QStringLiteral("s/step"));
    double minimum = 0, maximum = 0;
    sweepThresholdRange(which, &minimum, &maximum);
    plot->xAxis->setRange(minimum, maximum);

    double top = 0.0;
    for (int row = 0; row <= kUnattributedRow; ++row) {
        bool any = false;
        QVector<double> xs, ys;
        for (const SweepPoint &p : points) {
            const double v = rowValue(p, row);
            xs << p.value;
            ys << (std::isfinite(v) ? v : qQNaN());
            any = any || (std::isfinite(v) && v > 0.0);
            if (std::isfinite(v))
                top = std::max(top, v);
        }
        if (!any)
            continue;  // a bucket that is zero along the whole sweep would only hide the axis
        QCPGraph *g = plot->addGraph();
        g->setName(budgetRowLabel(row));
        g->setData(xs, ys, true);
        QPen pen(bucketColor(row, palette), 2);
        if (row == kUnattributedRow)
            pen.setStyle(Qt::DashLine);
        g->setPen(pen);
        g->setProperty("budgetRow", row);
    }
    plot->yAxis->setRange(0.0, top > 0.0 ? top * 1.12 : 1.0);
    // In the short bottom tab five ticks overlapped: one per ~50 px of plot, 3 digits each.
    plot->yAxis->ticker()->setTickCount(std::clamp(plot->height() / 50, 2, 6));
    plot->yAxis->setNumberFormat(QStringLiteral("g"));
    plot->yAxis->setNumberPrecision(3);

    const QColor mark = thresholdColor(palette);
    for (const SwitchPoint &s : switchPoints(points)) {
        auto *line = new QCPItemStraightLine(plot);
        line->point1->setCoords(s.value, 0);
        line->point2->setCoords(s.value, 1);
        line->setPen(QPen(secondaryTextColor(palette), 1, Qt::DashLine));
        line->setProperty("switchPoint", true);
        auto *label = new QCPItemText(plot);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(s.value, 0.02);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setRotation(90);
        label->setColor(secondaryTextColor(palette));
        label->setText(switchPointText(s));
    }
    if (current) {
        auto *line = new QCPItemStraightLine(plot);
        line->point1->setCoords(*current, 0);
        line->point2->setCoords(*current, 1);
        line->setPen(QPen(mark, 2));
        line->setProperty("currentValue", true);
        auto *label = new QCPItemText(plot);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(*current, 0.0);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
        label->setColor(mark);
        label->setBrush(palette.color(QPalette::Base));
        label->setText(QStringLiteral("now %1").arg(shortNumber(*current)));
    }
}

QString switchPointText(const SwitchPoint &s)
{
    return QStringLiteral("%1 at %2").arg(switchText(s), shortNumber(s.value));
}

QImage renderSweepImage(const QString &runName, SweepThreshold which, const std::vector<SweepPoint> &points,
                        std::optional<double> current, const QStringList &command, double dpr, QStringList *painted)
{
    const QPalette palette = exportPalette();
    constexpr int margin = 24;
    const int width = kExportWidth - 2 * margin;
    const int chartHeight = 640;
    const std::vector<SwitchPoint> switches = switchPoints(points);
    const int switchLines = std::max<int>(1, int(switches.size()));
    const int height = margin + 34 + 24 + 12 + chartHeight + 16 + 24 + switchLines * 18 + 16
        + heightOfCommandFooter(width, command) + margin;
    QImage image(QSize(kExportWidth, height) * dpr, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    image.fill(palette.color(QPalette::Base));

    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    p.setPen(palette.color(QPalette::Text));
    int y = margin;
    y += drawExportLine(p, QRect(margin, y, width, 0),
                        QStringLiteral("Goblin Workbench — threshold sweep of %1").arg(runName), exportFont(26, true));
    p.setPen(palette.color(QPalette::PlaceholderText));
    const std::size_t sampled = sampledPoints(points).size();
    const QString range = points.empty() ? QStringLiteral("no points")
                                         : QStringLiteral("%1 from %2 to %3, %4 points")
                                               .arg(sweepThresholdName(which), shortNumber(points.front().value),
                                                    shortNumber(points.back().value))
                                               .arg(sampled);
    y += drawExportLine(p, QRect(margin, y + 2, width, 0),
                        range + QStringLiteral("   ·   each point is what `report` gives at that value; a switch is a step "
                                                "at its exact value"),
                        exportFont(14)) + 12;
    p.setPen(palette.color(QPalette::Text));

    {
        QCustomPlot plot;
        plot.setPalette(palette);
        plot.setFont(exportFont(12));
        plot.resize(width, chartHeight);
        drawSweepPlot(&plot, which, points, current, palette);
        const QPixmap pixmap = plot.toPixmap(width, chartHeight, dpr);
        p.drawPixmap(QRectF(margin, y, width, chartHeight), pixmap, QRectF(pixmap.rect()));
    }
    y += chartHeight + 16;

    y += drawExportLine(p, QRect(margin, y, width, 0), QStringLiteral("Switch points"), exportFont(16, true)) + 4;
    if (switches.empty())
        y += drawExportLine(p, QRect(margin + 16, y, width, 0), QStringLiteral("no bucket switches on or off in this range"),
                            exportFont(13)) + 4;
    for (const SwitchPoint &s : switches) {
        const QString line = QStringLiteral("%1 (%2)").arg(switchPointText(s), sweepThresholdName(which));
        if (painted)
            *painted << line;
        y += drawExportLine(p, QRect(margin + 16, y, width, 0), line, exportFont(13)) + 2;
    }
    y += 12;
    p.setPen(palette.color(QPalette::PlaceholderText));
    drawCommandFooter(p, margin, y, width, command);
    p.end();
    return image;
}

bool renderSweepPng(const QString &runName, SweepThreshold which, const std::vector<SweepPoint> &points,
                    std::optional<double> current, const QStringList &command, const QString &path, QString *error)
{
    return writePngImage(renderSweepImage(runName, which, points, current, command, kExportPixelRatio), path, error);
}

SweepChart::SweepChart(WorkbenchSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_box(new QComboBox(this))
    , m_summary(new QLabel(this))
    , m_plot(new QCustomPlot(this))
{
    for (SweepThreshold which : kSweepable)
        m_box->addItem(thresholdDescriptor(fieldOf(which))->labelText(), int(which));
    m_box->setToolTip(tr("The threshold to sweep over its whole range"));
    m_summary->setObjectName(QStringLiteral("sweepSummary"));
    m_summary->setWordWrap(true);
    useSecondaryText(m_summary);
    m_plot->setMinimumHeight(6 * fontMetrics().height());  // the window must fit a 1366×768 screen
    m_plot->installEventFilter(this);
    m_plot->setToolTip(tr("Each bucket at every value of the threshold (what 'report' gives there); click or "
                          "drag to set the threshold"));

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Sweep:"), this));
    top->addWidget(m_box);
    top->addWidget(m_summary, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_plot, 1);

    connect(m_box, &QComboBox::currentIndexChanged, this,
            [this](int index) { setThreshold(SweepThreshold(m_box->itemData(index).toInt())); });
    LiveAnalysis *live = session->live();
    // The curve is Derived's (every threshold shapes it, so each recompute brings a new one); a
    // drag moves the current value's line at once, the curve follows with the coalesced recompute.
    connect(live, &LiveAnalysis::metricsChanged, this, &SweepChart::refresh);
    connect(live, &LiveAnalysis::thresholdsChanged, this, &SweepChart::redraw);
    live->setSweepThreshold(m_which);
    refresh();
}

void SweepChart::setThreshold(SweepThreshold which)
{
    const int index = m_box->findData(int(which));
    if (m_box->currentIndex() != index)
        m_box->setCurrentIndex(index);  // comes back here through currentIndexChanged
    if (m_which == which && !m_points.empty())
        return;
    m_which = which;
    m_session->live()->setSweepThreshold(which);  // recomputes: refresh() follows through metricsChanged
    refresh();
}

double SweepChart::currentValue() const
{
    return thresholdValue(m_session->live()->thresholds(), fieldOf(m_which));
}

double SweepChart::valueAtPlotX(double x) const
{
    return m_plot->xAxis->pixelToCoord(x);
}

void SweepChart::refresh()
{
    const LiveAnalysis *live = m_session->live();
    const Derived &derived = live->derived();
    m_points = live->analysis() && derived.sweepThreshold == m_which ? derived.sweep : std::vector<SweepPoint>{};
    redraw();
}

void SweepChart::redraw()
{
    ++m_refreshes;
    const ProfileAnalysis *analysis = m_session->live()->analysis();
    drawSweepPlot(m_plot, m_which, m_points, analysis ? std::optional<double>(currentValue()) : std::nullopt,
                  palette());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    if (!analysis) {
        m_summary->setText(tr("Open a run to sweep its thresholds."));
        return;
    }
    const std::vector<SwitchPoint> sw = switches();
    QStringList parts;
    for (const SwitchPoint &s : sw)
        parts << switchPointText(s);
    m_summary->setText(sw.empty() ? tr("No bucket switches on or off over this range.")
                                  : tr("Switch points: %1").arg(parts.join(QStringLiteral(", "))));
}

void SweepChart::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        redraw();
}

bool SweepChart::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_plot || !m_session->live()->analysis())
        return QWidget::eventFilter(watched, event);
    ThresholdEditor *editor = m_session->editor();
    switch (event->type()) {
    case QEvent::MouseButtonPress:
    case QEvent::MouseMove: {
        auto *mouse = static_cast<QMouseEvent *>(event);
        const bool press = event->type() == QEvent::MouseButtonPress;
        if (press ? mouse->button() != Qt::LeftButton : !(m_dragging && (mouse->buttons() & Qt::LeftButton)))
            break;
        if (press && !m_plot->axisRect()->rect().contains(mouse->position().toPoint()))
            break;
        m_dragging = true;
        editor->changeValue(fieldOf(m_which), valueAtPlotX(mouse->position().x()));  // clamps to the range
        return true;
    }
    case QEvent::MouseButtonRelease:
        if (m_dragging) {
            m_dragging = false;
            editor->endGesture();
            return true;
        }
        break;
    default:
        break;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace goblin
