#include "stepstrip.h"

#include "budgetformula.h"
#include "formatting.h"
#include "liveanalysis.h"
#include "plotstyle.h"
#include "wastebudgetmodel.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

constexpr int kBudgetRows = WasteBudget::BucketCount + 1;  // the seven buckets and the unmeasured rest

double maxDuration(const StepSeries &series)
{
    double m = series.rule.limitS;
    for (const StepInputs &s : series.steps)
        m = std::max(m, s.durationS);
    return m;
}

} // namespace

StepStrip::StepStrip(LiveAnalysis *live, QWidget *parent)
    : QWidget(parent)
    , m_live(live)
    , m_all(new QPushButton(tr("All steps"), this))
{
    setAttribute(Qt::WA_OpaquePaintEvent, false);
    setMouseTracking(false);
    m_all->setCheckable(true);
    m_all->setToolTip(tr("Show the run's mean budget again (or click the selected step)"));
    connect(m_all, &QPushButton::clicked, this, [this] {
        m_live->setSelectedStep(-1);
        m_all->setChecked(m_live->selectedStep() < 0);
    });
    connect(live, &LiveAnalysis::runChanged, this, &StepStrip::onRunChanged);
    connect(live, &LiveAnalysis::profileChanged, this, &StepStrip::onRunChanged);
    // Bars are the live per-step budgets: repaint after every recompute (a threshold drag).
    connect(live, &LiveAnalysis::metricsChanged, this, [this] {
        m_all->setEnabled(stepCount() > 0);  // --steps N may have cut the span into steps
        update();
    });
    connect(live, &LiveAnalysis::selectedStepChanged, this, [this](int index) {
        m_all->setChecked(index < 0);
        update();
    });
    onRunChanged();
}

void StepStrip::onRunChanged()
{
    m_all->setEnabled(stepCount() > 0);
    m_all->setChecked(m_live->selectedStep() < 0);
    update();
}

int StepStrip::stepCount() const
{
    const StepSeries *series = m_live->steps();
    return series ? series->size() : 0;
}

QSize StepStrip::sizeHint() const
{
    const int em = fontMetrics().height();
    return {60 * em, 6 * em};
}

QSize StepStrip::minimumSizeHint() const
{
    const int em = fontMetrics().height();
    return {20 * em, 5 * em};
}

void StepStrip::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    const QSize hint = m_all->sizeHint();
    m_all->setGeometry(4, (height() - hint.height()) / 2, hint.width(), hint.height());
}

QRectF StepStrip::plotArea() const
{
    const int em = fontMetrics().height();
    const double left = m_all->geometry().right() + em;
    // Room above the bars for the title line and the outlier marks, below for the step numbers.
    return QRectF(left, em * 2.0, std::max(1.0, width() - left - em * 0.5), std::max(1.0, height() - em * 3.1));
}

QRectF StepStrip::barRect(int index) const
{
    const StepSeries *series = m_live->steps();
    if (!series || index < 0 || index >= series->size())
        return {};
    const QRectF area = plotArea();
    const double slot = area.width() / series->size();
    const double top = maxDuration(*series);
    const double h = top > 0.0 ? area.height() * series->steps[std::size_t(index)].durationS / top : 0.0;
    const double w = std::max(1.0, slot * 0.72);
    return QRectF(area.left() + slot * index + (slot - w) / 2, area.bottom() - h, w, h);
}

int StepStrip::stepAt(const QPointF &pos) const
{
    const StepSeries *series = m_live->steps();
    const QRectF area = plotArea();
    if (!series || series->empty() || pos.x() < area.left() || pos.x() >= area.right() || pos.y() < 0
        || pos.y() > height())
        return -1;
    const int index = int((pos.x() - area.left()) / (area.width() / series->size()));
    return index >= 0 && index < series->size() ? index : -1;
}

QString StepStrip::toolTipForStep(int index) const
{
    const StepSeries *series = m_live->steps();
    if (!series || index < 0 || index >= series->size())
        return {};
    const StepInputs &s = series->steps[std::size_t(index)];
    const WasteBudget &b = m_live->derived().stepBudgets[std::size_t(index)];
    QStringList lines;
    lines << tr("%1 (step %2): %3, starts at %4")
                 .arg(s.name)
                 .arg(s.index)
                 .arg(formatSeconds(s.durationS), formatSeconds(s.startS));
    // The step's own values where measured, else the run's (so labelled), "—" where nothing measured them.
    const Quantities &q = m_live->derived().quantities;
    const auto runs = [&](QuantityKey key, const QString &text) {
        return q[key].value ? tr("%1 (the run's)").arg(text) : QStringLiteral("—");
    };
    const bool measured = b.terms.measured;
    const QString util = measured          ? formatPercent(b.terms.gpuUtilPct)
                         : s.utilMeasured ? formatPercent(s.inputs.gpuUtilPct)
                                          : runs(QuantityKey::GpuUtilPct, formatPercent(s.inputs.gpuUtilPct));
    const QString host = measured               ? (b.terms.hostKnown ? formatNumber(b.terms.hostBusy, 2) : QStringLiteral("—"))
                         : s.hostBusyMeasured ? formatNumber(s.inputs.hostBusyFraction, 2)
                                              : runs(QuantityKey::HostBusyFraction, formatNumber(s.inputs.hostBusyFraction, 2));
    lines << tr("GPU util %1, host busy %2").arg(util, host);
    if (const std::optional<double> hbm = series->hbmPeakGbOf(s))
        lines << (s.hbmPlaced ? tr("HBM peak %1 GB (the telemetry samples inside the step)")
                              : tr("HBM peak %1 GB (the run's)"))
                     .arg(*hbm, 0, 'f', 1);
    for (int row = 0; row < kBudgetRows; ++row) {
        const double v = budgetRowSeconds(b, row);
        if (b.state(row) == ValueState::Unknown)
            lines << QStringLiteral("  %1: — [?]").arg(budgetRowLabel(row));
        else if (v > 0.0)
            lines << QStringLiteral("  %1: %2 [%3]").arg(budgetRowLabel(row), formatSeconds(v), valueStateMark(b.state(row)));
    }
    if (s.partial)
        lines << tr("Partial step (shorter than a fifth of the others' mean: where the profiler stopped): shown, "
                    "left out of the run's mean step and budget");
    if (series->outlier[std::size_t(index)])
        lines << tr("Outlier: %1").arg(series->outlierReason[std::size_t(index)]);
    lines << (m_live->selectedStep() == index ? tr("Click again for the run mean") : tr("Click to show this step"));
    return lines.join(QLatin1Char('\n'));
}

void StepStrip::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    const int index = stepAt(event->position());
    if (index < 0) {
        QWidget::mousePressEvent(event);
        return;
    }
    m_live->setSelectedStep(m_live->selectedStep() == index ? -1 : index);
    event->accept();
}

QString StepStrip::titleText() const
{
    const StepSeries *series = m_live->steps();
    if (!series || series->empty())
        return {};
    const int n = series->size();
    // The median is the outlier rule's, over every step shown; the budget's step time is the run's
    // StepTimeS quantity (a mean, partial last step left out): both are labelled, so they may differ.
    const Quantity &step = m_live->derived().quantities[QuantityKey::StepTimeS];
    const QString budget = step.value ? tr("budget step %1 (%2)").arg(formatSeconds(*step.value), step.scope)
                                      : tr("budget step —");
    return tr("%1 steps · median %2 (of all %1) · %3 · outlier beyond %4")
        .arg(n)
        .arg(formatSeconds(series->rule.medianS), budget, formatSeconds(series->rule.limitS));
}

QString StepStrip::titleToolTip() const
{
    const StepSeries *series = m_live->steps();
    if (!series || series->empty())
        return {};
    const Quantity &step = m_live->derived().quantities[QuantityKey::StepTimeS];
    int partial = 0;
    for (const StepInputs &s : series->steps)
        partial += s.partial ? 1 : 0;
    QStringList lines;
    lines << tr("Median: the middle of the %n step duration(s) drawn, the outlier rule's centre; a step longer than "
                "median + 3 × scaled MAD is an outlier (marked ▼).",
                nullptr, series->size());
    lines << (step.value ? tr("Budget step time: %1 — %2 (%3), the number the budget, the report and the PNG use.")
                               .arg(formatSeconds(*step.value), step.source, step.scope)
                         : tr("Budget step time: unknown — %1").arg(step.source));
    if (partial > 0)
        lines << tr("The hatched, dimmed bar is a partial last step: drawn, but left out of the budget's mean.");
    lines << tr("A median and a mean of different steps need not agree.");
    return lines.join(QLatin1Char('\n'));
}

bool StepStrip::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        // Over the title line: why the median and the budget's step differ; else the step's.
        const bool overTitle = help->pos().y() < fontMetrics().height() * 1.1 && help->pos().x() >= plotArea().left();
        const QString text = overTitle ? titleToolTip() : toolTipForStep(stepAt(help->pos()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void StepStrip::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QPalette &pal = palette();
    const QRectF area = plotArea();
    const StepSeries *series = m_live->steps();
    const QFontMetrics fm = fontMetrics();
    // Secondary text, held to the contrast rule whatever the desktop's placeholder grey (plotstyle.h).
    p.setPen(secondaryTextColor(pal));
    if (!series) {
        const QString why = !m_live->run() ? tr("Steps: open a run")
                            : m_live->profile() != HeuristicsProfile::Workbench
                                ? tr("Per-step budget: workbench profile only (the reference reads no step windows)")
                                : m_live->run()->steps.source;
        p.drawText(area, Qt::AlignVCenter | Qt::AlignLeft | Qt::TextWordWrap, why);
        return;
    }

    const int n = series->size();
    const double top = maxDuration(*series);
    const double slot = area.width() / n;
    const int selected = m_live->selectedStep();

    // Title: what the bars are, the rule's numbers and the budget's step, each labelled with its scope.
    QString title = titleText();
    if (selected >= 0 && selected < n) {
        const StepInputs &s = series->steps[std::size_t(selected)];
        title = tr("Showing %1: %2%3 · click it again or All steps for the run mean")
                    .arg(s.name, formatSeconds(s.durationS),
                         series->outlier[std::size_t(selected)] ? tr(", outlier") : QString());
        p.setPen(pal.color(QPalette::Text));
    }
    p.drawText(QRectF(area.left(), 0, area.width(), fm.height() * 1.1), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(title, Qt::ElideRight, int(area.width())));

    if (selected >= 0 && selected < n) {
        QColor hl = pal.color(QPalette::Highlight);
        hl.setAlpha(60);
        p.fillRect(QRectF(area.left() + slot * selected, area.top(), slot, area.height()), hl);
    }
    for (int i = 0; i < n; ++i) {
        const QRectF bar = barRect(i);
        const WasteBudget &b = m_live->derived().stepBudgets[std::size_t(i)];
        const double dur = series->steps[std::size_t(i)].durationS;
        // Stacked in budget order from the bottom; scaled to the bar (the buckets may overrun the
        // step when the waste formulas exceed it; the bar stays the step's length).
        double sum = 0.0;
        for (int row = 0; row < kBudgetRows; ++row)
            sum += std::max(0.0, budgetRowSeconds(b, row));
        const double scale = sum > 0.0 ? bar.height() * std::min(1.0, dur / sum) / dur : 0.0;
        double y = bar.bottom();
        for (int row = 0; row < kBudgetRows; ++row) {
            const double h = std::max(0.0, budgetRowSeconds(b, row)) * scale;
            if (h <= 0.0)
                continue;
            const QColor c = bucketColor(row, pal);
            p.fillRect(QRectF(bar.left(), y - h, bar.width(), h),
                       row == kUnattributedRow ? QBrush(c, Qt::BDiagPattern) : QBrush(c));
            y -= h;
        }
        if (sum <= 0.0)
            p.fillRect(bar, pal.color(QPalette::Mid));
        if (series->steps[std::size_t(i)].partial) {
            // Dimmed and hatched: drawn, but out of the run's mean (tooltip says so).
            QColor veil = pal.color(QPalette::Window);
            veil.setAlpha(150);
            p.fillRect(bar, veil);
            p.fillRect(bar, QBrush(pal.color(QPalette::WindowText), Qt::BDiagPattern));
            p.setPen(QPen(pal.color(QPalette::WindowText), 1, Qt::DashLine));
            p.setBrush(Qt::NoBrush);
            p.drawRect(bar);
        }
        if (series->outlier[std::size_t(i)]) {
            // Marked twice: an outline and a triangle above the bar, readable without colour.
            const QColor warn = thresholdColor(pal);
            p.setPen(QPen(warn, 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(bar.adjusted(-1, -1, 1, 1));
            const double cx = bar.center().x(), t = bar.top() - 3;
            const double s = std::min(fm.height() * 0.45, slot * 0.4);
            QPainterPath tri;
            tri.moveTo(cx - s, t - s * 1.5);
            tri.lineTo(cx + s, t - s * 1.5);
            tri.lineTo(cx, t);
            tri.closeSubpath();
            p.fillPath(tri, warn);
        }
    }

    // Median and limit lines across the bars.
    const auto yOf = [&](double s) { return area.bottom() - (top > 0.0 ? area.height() * s / top : 0.0); };
    p.setPen(QPen(pal.color(QPalette::Text), 1, Qt::DashLine));
    p.drawLine(QPointF(area.left(), yOf(series->rule.medianS)), QPointF(area.right(), yOf(series->rule.medianS)));
    if (n >= 3) {
        p.setPen(QPen(thresholdColor(pal), 1, Qt::DotLine));
        p.drawLine(QPointF(area.left(), yOf(series->rule.limitS)), QPointF(area.right(), yOf(series->rule.limitS)));
    }

    // Step indices under the bars, thinned to what fits.
    p.setPen(pal.color(QPalette::Text));
    const int labelW = fm.horizontalAdvance(QString::number(n)) + 6;
    const int every = std::max(1, int(std::ceil(labelW / std::max(1.0, slot))));
    for (int i = 0; i < n; i += every)
        p.drawText(QRectF(area.left() + slot * i, area.bottom() + 1, slot * every, fm.height()),
                   Qt::AlignLeft | Qt::AlignTop, QString::number(series->steps[std::size_t(i)].index));
}

} // namespace goblin
