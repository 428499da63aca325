#include "budgetchart.h"

#include "budgetformula.h"
#include "formatting.h"
#include "modelroles.h"
#include "plotstyle.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCursor>
#include <QDialog>
#include <QDialogButtonBox>
#include <QEvent>
#include <QFontMetricsF>
#include <QGraphicsSceneResizeEvent>
#include <QGraphicsSimpleTextItem>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>
#include <QHorizontalStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

/// 1, 2 or 5 times a power of ten, at least `rough`: round tick intervals.
double niceInterval(double rough)
{
    if (!(rough > 0.0))
        return 1.0;
    const double power = std::pow(10.0, std::floor(std::log10(rough)));
    const double mantissa = rough / power;
    return (mantissa <= 1.0 ? 1.0 : mantissa <= 2.0 ? 2.0 : mantissa <= 5.0 ? 5.0 : 10.0) * power;
}

} // namespace

BudgetChart::BudgetChart(QGraphicsItem *parent)
    : QChart(parent)
    , m_series(new QHorizontalStackedBarSeries)
    , m_base(new QBarSet(QString()))
    , m_categoryAxis(new QBarCategoryAxis)
    , m_timeAxis(new QValueAxis)
    , m_percentAxis(new QValueAxis)
{
    setAnimationOptions(QChart::NoAnimation);
    legend()->hide();
    setMargins(QMargins(4, 4, 30, 4));  // the left margin holds the labels (placeOverlay), the right the marks

    m_base->setBrush(Qt::NoBrush);
    m_base->setPen(Qt::NoPen);
    m_series->append(m_base);
    for (int row = 0; row < RowCount; ++row) {
        auto *set = new QBarSet(budgetRowLabel(row));
        m_sets[std::size_t(row)] = set;
        m_series->append(set);
        connect(set, &QBarSet::hovered, this, [this, row](bool status, int index) {
            if (index == categoryOf(row))
                emit rowHovered(row, status);
        });
    }
    m_series->setBarWidth(0.7);
    addSeries(m_series);
    addAxis(m_categoryAxis, Qt::AlignLeft);
    m_series->attachAxis(m_categoryAxis);

    m_timeAxis->setLabelFormat(QStringLiteral("%.4g"));
    m_timeAxis->setTickType(QValueAxis::TicksDynamic);
    m_timeAxis->setTickAnchor(0.0);
    addAxis(m_timeAxis, Qt::AlignBottom);
    m_series->attachAxis(m_timeAxis);

    // The % axis shares the time axis' extent (0 … 100 % = 0 … step time); no series uses it.
    m_percentAxis->setLabelFormat(QStringLiteral("%.0f %%"));
    m_percentAxis->setTickType(QValueAxis::TicksDynamic);
    m_percentAxis->setTickAnchor(0.0);
    m_percentAxis->setTickInterval(20.0);  // its labels say "%": no title, the rows need the height
    addAxis(m_percentAxis, Qt::AlignTop);

    // The row labels and the state marks are our own text items, left and right of the bars:
    // Qt Charts elides a category label to "…" once the chart's height / (rows + 1) is less than
    // the label's height (any short chart), and gives the labels at most 40 % of the width. Ours
    // follow the plot area, shrink their font to the rows' height and drop the share before
    // eliding the name.
    m_categoryAxis->setLabelsVisible(false);
    for (int row = 0; row < RowCount; ++row) {
        m_labelItems[std::size_t(row)] = new QGraphicsSimpleTextItem(this);
        m_markItems[std::size_t(row)] = new QGraphicsSimpleTextItem(this);
        m_labelItems[std::size_t(row)]->setZValue(10);
        m_markItems[std::size_t(row)]->setZValue(10);
    }
    m_markHeader = new QGraphicsSimpleTextItem(QStringLiteral("Src"), this);
    m_markHeader->setZValue(10);
    connect(this, &QChart::plotAreaChanged, this, &BudgetChart::placeOverlay);

    showEmpty();
}

QString BudgetChart::markText(int row) const
{
    const int category = categoryOf(row);
    return category < 0 || !m_markItems[std::size_t(row)]->isVisible() ? QString() : m_marks[std::size_t(row)];
}

void BudgetChart::placeOverlay()
{
    const QRectF area = plotArea();
    const int count = int(m_shownRows.size());
    if (count == 0 || !area.isValid() || area.height() <= 0.0)
        return;
    const double band = area.height() / count;

    // The font: the base one, smaller when the rows are shorter than its line (down to 6 pt).
    QFont font = m_baseLabelFont.pointSizeF() > 0.0 ? m_baseLabelFont : QFont();
    while (font.pointSizeF() > 6.0 && QFontMetricsF(font).height() > band)
        font.setPointSizeF(font.pointSizeF() - 0.5);
    QFont markFont = font;
    markFont.setBold(true);
    const QFontMetricsF fm(font);

    // The labels: name and share when they fit 40 % of the chart's width, else the names,
    // elided only when even a name does not fit.
    const double room = std::max(20.0, 0.4 * size().width());
    double widest = 0.0;
    for (int row : m_shownRows)
        widest = std::max(widest, fm.horizontalAdvance(m_fullLabels[std::size_t(row)]));
    const bool withShares = widest <= room;
    double used = 0.0;
    for (int row : m_shownRows) {
        const QString text = withShares ? m_fullLabels[std::size_t(row)] : budgetRowLabel(row);
        m_labels[std::size_t(row)] = fm.elidedText(text, Qt::ElideRight, room);
        used = std::max(used, fm.horizontalAdvance(m_labels[std::size_t(row)]));
    }
    // The left margin makes room for them; set only when it changes, since it moves the plot area
    // (which calls this again: the second pass finds the margin right and stops).
    const int left = int(std::ceil(used)) + 10;
    if (std::abs(margins().left() - left) > 1) {
        QMargins m = margins();
        m.setLeft(left);
        setMargins(m);
        return;
    }

    bool anyMark = false;
    for (int row = 0; row < RowCount; ++row) {
        QGraphicsSimpleTextItem *label = m_labelItems[std::size_t(row)];
        QGraphicsSimpleTextItem *mark = m_markItems[std::size_t(row)];
        const int category = categoryOf(row);
        label->setVisible(category >= 0);
        mark->setVisible(category >= 0 && !m_marks[std::size_t(row)].isEmpty());
        if (category < 0)
            continue;
        const double centreY = area.bottom() - band * (category + 0.5);  // category 0 is the bottom row
        label->setFont(font);
        label->setText(m_labels[std::size_t(row)]);
        const QRectF lr = label->boundingRect();
        label->setPos(area.left() - 6 - lr.width(), centreY - lr.height() / 2);
        if (mark->isVisible()) {
            anyMark = true;
            mark->setFont(markFont);
            mark->setText(m_marks[std::size_t(row)]);
            const QRectF mr = mark->boundingRect();
            mark->setPos(area.right() + 8, centreY - mr.height() / 2);
        }
    }
    fitTicksAndTitle();
    m_markHeader->setVisible(anyMark);
    if (anyMark) {
        QFont headerFont = font;
        headerFont.setPointSizeF(std::max(6.0, font.pointSizeF() * 0.85));
        m_markHeader->setFont(headerFont);
        const QRectF r = m_markHeader->boundingRect();
        m_markHeader->setPos(area.right() + 8 + (QFontMetricsF(markFont).horizontalAdvance(QStringLiteral("M")) - r.width()) / 2,
                             area.top() - r.height() - 1);
    }
}

void BudgetChart::setModel(WasteBudgetModel *model)
{
    if (model == m_model)
        return;
    for (const QMetaObject::Connection &c : {m_changed, m_reset, m_destroyed})
        disconnect(c);
    m_model = model;
    if (m_model) {
        m_changed = connect(m_model, &QAbstractItemModel::dataChanged, this, &BudgetChart::refresh);
        m_reset = connect(m_model, &QAbstractItemModel::modelReset, this, &BudgetChart::refresh);
        m_destroyed = connect(m_model, &QObject::destroyed, this, [this] {
            m_model = nullptr;
            showEmpty();
        });
    }
    refresh();
}

int BudgetChart::categoryOf(int row) const
{
    const auto it = std::find(m_shownRows.begin(), m_shownRows.end(), row);
    return it == m_shownRows.end() ? -1 : int(m_shownRows.end() - it) - 1;  // the top row is the last category
}

void BudgetChart::setShownRows(const std::vector<int> &rows)
{
    if (rows == m_shownRows)
        return;
    // Rare (run or profile change): rebuild the categories and the value slots.
    m_shownRows = rows;
    const int count = int(rows.size());
    const QList<qreal> zeros(count, 0.0);
    for (QBarSet *set : m_sets) {
        set->remove(0, set->count());
        set->append(zeros);
    }
    m_base->remove(0, m_base->count());
    m_base->append(zeros);
    // The axis' categories are the names (not shown: placeOverlay draws the labels).
    m_categoryAxis->clear();
    QStringList categories;
    for (int category = 0; category < count; ++category)
        categories << budgetRowLabel(rows[std::size_t(count - 1 - category)]);
    m_categoryAxis->append(categories);
}

void BudgetChart::refresh()
{
    if (!m_model || !m_model->hasResult()) {
        showEmpty();
        return;
    }
    ++m_refreshes;
    std::vector<int> rows;
    for (int row = 0; row < RowCount; ++row)
        if (m_model->index(row, WasteBudgetModel::BucketColumn).data(WasteBudgetModel::ShownRole).toBool())
            rows.push_back(row);
    setShownRows(rows);

    const double stepT = m_model->stepTimeS();
    m_unitPerSecond = stepT >= 1.0 ? 1.0 : 1e3;
    double running = 0.0;
    m_fullLabels = {};
    for (int row : m_shownRows) {
        const bool isStep = row == kStepTimeRow;
        // An unknown row has no number (NaN): no bar, "—" in its label, never a 0 % bucket.
        const double raw = m_model->index(row, WasteBudgetModel::SecondsColumn).data(RawValueRole).toDouble();
        const bool known = std::isfinite(raw);
        const double seconds = known ? raw : 0.0;
        const double base = isStep ? 0.0 : running;
        if (!isStep)
            running += seconds;
        m_base->replace(categoryOf(row), base * m_unitPerSecond);
        m_sets[std::size_t(row)]->replace(categoryOf(row), seconds * m_unitPerSecond);
        const QString name = budgetRowLabel(row);
        const QString share = !known ? QStringLiteral("—")
                              : stepT > 0.0 ? formatPercent(100.0 * seconds / stepT)
                                            : QString();
        m_fullLabels[std::size_t(row)] = share.isEmpty() ? name : QStringLiteral("%1  %2").arg(name, share);
        m_marks[std::size_t(row)] = valueStateMark(m_model->rowState(row));
    }
    placeOverlay();

    const HeuristicsProfile profile = m_model->profile();
    const double extentS = std::max(stepT, running);
    const double maxUnits = extentS > 0.0 ? extentS * 1.04 * m_unitPerSecond : 1.0;
    m_timeAxis->setRange(0.0, maxUnits);
    m_maxUnits = maxUnits;
    // The unit in the tick labels, no axis title: Qt Charts gives a bottom axis at most a fifth of
    // the chart's height and elides everything beyond it, which a title overran at small sizes.
    m_timeAxis->setLabelFormat(m_unitPerSecond == 1.0 ? QStringLiteral("%.4g s") : QStringLiteral("%.4g ms"));
    const double maxPct = stepT > 0.0 ? 100.0 * maxUnits / (stepT * m_unitPerSecond) : 100.0;
    m_percentAxis->setRange(0.0, maxPct);
    m_maxPct = maxPct;
    m_title = stepT > 0.0 ? tr("Waste budget · %1 step · %2").arg(formatSeconds(stepT), profileName(profile))
                          : tr("Waste budget · no step time · %1").arg(profileName(profile));
    m_shortTitle = stepT > 0.0 ? tr("Budget · %1 step").arg(formatSeconds(stepT)) : tr("Budget · no step time");
    fitTicksAndTitle();
}

void BudgetChart::setAxisFonts(const QFont &labels, const QFont &titles)
{
    for (QAbstractAxis *axis : axes()) {
        axis->setLabelsFont(labels);
        axis->setTitleFont(titles);
    }
    m_baseLabelFont = labels;
    placeOverlay();
}

void BudgetChart::fitTicksAndTitle()
{
    // Qt Charts elides a tick label wider than the space between two ticks, and the title to the
    // chart's width less its margins: fewer ticks and a shorter title on a narrow chart.
    const double width = plotArea().width() > 0.0 ? plotArea().width() : 0.6 * size().width();
    const QFontMetricsF fm(m_timeAxis->labelsFont());
    const double labelW = std::max(fm.horizontalAdvance(QStringLiteral("100 %")),
                                   fm.horizontalAdvance(QStringLiteral("%1 ms").arg(m_maxUnits, 0, 'g', 4)));
    const double ticks = std::clamp(std::floor(width / (labelW + 14.0)), 2.0, 6.0);
    m_timeAxis->setTickInterval(niceInterval(m_maxUnits / ticks));
    m_percentAxis->setTickInterval(std::max(10.0, niceInterval(m_maxPct / ticks)));
    const double titleRoom = size().width() - margins().left() - margins().right() - 40.0;
    const QString title =
        size().width() <= 0.0 || QFontMetricsF(titleFont()).horizontalAdvance(m_title) <= titleRoom ? m_title : m_shortTitle;
    if (title != QChart::title())
        setTitle(title);
}

void BudgetChart::resizeEvent(QGraphicsSceneResizeEvent *event)
{
    QChart::resizeEvent(event);
    placeOverlay();  // the 40 % room follows the width (the plot area may not move)
    fitTicksAndTitle();
}

void BudgetChart::showEmpty()
{
    std::vector<int> rows;
    for (int row = 0; row < RowCount; ++row)
        if (row != kUnattributedRow)
            rows.push_back(row);
    setShownRows(rows);
    for (int row : m_shownRows) {
        m_base->replace(categoryOf(row), 0.0);
        m_sets[std::size_t(row)]->replace(categoryOf(row), 0.0);
        m_fullLabels[std::size_t(row)] = budgetRowLabel(row);
    }
    m_marks = {};
    placeOverlay();
    m_timeAxis->setRange(0.0, 1.0);
    m_maxUnits = 1.0;
    m_percentAxis->setRange(0.0, 100.0);
    m_maxPct = 100.0;
    m_title = tr("Waste budget (open a run folder)");
    m_shortTitle = tr("Waste budget");
    fitTicksAndTitle();
}

void BudgetChart::applyPalette(const QPalette &palette)
{
    setTheme(chartThemeFor(palette));  // resets colours and fonts, so ours follow
    setAnimationOptions(QChart::NoAnimation);
    setBackgroundBrush(palette.brush(QPalette::Base));
    setPlotAreaBackgroundVisible(false);
    setTitleBrush(palette.brush(QPalette::WindowText));
    QFont font = titleFont();
    font.setBold(true);
    setTitleFont(font);
    for (QAbstractAxis *axis : axes()) {
        axis->setLabelsBrush(palette.brush(QPalette::WindowText));
        axis->setTitleBrush(palette.brush(QPalette::WindowText));
        axis->setLinePenColor(palette.color(QPalette::Mid));
        axis->setGridLineColor(palette.color(QPalette::Midlight));
    }
    m_percentAxis->setGridLineVisible(false);
    // Once: setTheme() leaves the fonts alone when the theme stays, so taking 90 % of the current
    // font on every palette change would compound.
    if (m_baseLabelFont.pointSizeF() <= 0.0) {
        m_baseLabelFont = m_categoryAxis->labelsFont();
        m_baseLabelFont.setPointSizeF(m_baseLabelFont.pointSizeF() * 0.9);
    }
    for (int row = 0; row < RowCount; ++row) {
        m_labelItems[std::size_t(row)]->setBrush(palette.brush(QPalette::WindowText));
        m_markItems[std::size_t(row)]->setBrush(palette.brush(QPalette::WindowText));
    }
    m_markHeader->setBrush(palette.brush(QPalette::WindowText));
    m_markHeader->setToolTip(valueStateLegend());
    placeOverlay();
    m_base->setBrush(Qt::NoBrush);
    m_base->setPen(Qt::NoPen);
    for (int row = 0; row < RowCount; ++row) {
        QBarSet *set = m_sets[std::size_t(row)];
        const QColor color = bucketColor(row, palette);
        // Unattributed is hatched: a share of the step no bucket claims, not a bucket.
        set->setBrush(row == kUnattributedRow ? QBrush(color, Qt::BDiagPattern) : QBrush(color));
        set->setPen(QPen(color.darker(130), 1));
    }
}

double BudgetChart::valueSeconds(int row) const
{
    const int category = categoryOf(row);
    return category < 0 ? 0.0 : m_sets[std::size_t(row)]->at(category) / m_unitPerSecond;
}

double BudgetChart::baseSeconds(int row) const
{
    const int category = categoryOf(row);
    return category < 0 ? 0.0 : m_base->at(category) / m_unitPerSecond;
}

QString BudgetChart::formula(int row) const
{
    return m_model ? m_model->index(row, WasteBudgetModel::FormulaColumn).data(FormulaRole).toString() : QString();
}

QString BudgetChart::categoryLabel(int row) const
{
    return m_labels[std::size_t(row)];
}

QString BudgetChart::toolTip(int row) const
{
    return m_model ? m_model->rowToolTip(row) : QString();
}

QString BudgetChart::definitionsHtml() const
{
    const HeuristicsProfile profile = m_model ? m_model->profile() : HeuristicsProfile::Workbench;
    const bool measured = m_model && m_model->hasResult() && m_model->budget().terms.measured;
    QString html = tr("<p><b>What each row measures</b> (%1 profile, %2)</p><table>")
                       .arg(profileName(profile),
                            profile == HeuristicsProfile::Reference ? tr("the gpu-goblin reference's formulas")
                            : measured ? tr("budget built on the GPU timeline")
                                       : tr("no GPU timeline covers the steps: the seed's formulas"));
    for (int row = 0; row <= kUnattributedRow; ++row)
        html += QStringLiteral("<tr><td valign=\"top\"><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>")
                    .arg(budgetRowLabel(row).toHtmlEscaped(), bucketDefinition(row, profile, measured).toHtmlEscaped());
    html += QStringLiteral("</table><p>%1</p><p>%2</p>")
                .arg(tr("Buckets and unattributed add up to the step time. Hover a bar for its formula with the "
                        "live numbers and where the number came from."),
                     valueStateLegend().toHtmlEscaped());
    return html;
}

BudgetChartView::BudgetChartView(QWidget *parent)
    // Chart given to the constructor: QChartView(parent) would make a default chart that
    // setChart() then orphans (a leak LeakSanitizer reports).
    : QChartView(new BudgetChart, parent)
    , m_chart(static_cast<BudgetChart *>(chart()))
    , m_help(new QToolButton(this))
{
    setRenderHint(QPainter::Antialiasing);
    setMouseTracking(true);
    m_chart->applyPalette(palette());
    connect(m_chart, &BudgetChart::rowHovered, this, [this](int row, bool entered) {
        const QString text = entered ? m_chart->toolTip(row) : QString();  // printed now, on hover
        if (!text.isEmpty())
            QToolTip::showText(QCursor::pos(), text, this);
        else
            QToolTip::hideText();
    });
    // "?" at the title's right: what each row measures in the profile shown.
    m_help->setText(QStringLiteral("?"));
    m_help->setAutoRaise(true);
    m_help->setToolTip(tr("What each bucket measures, and the marks: %1").arg(valueStateLegend()));
    m_help->setAccessibleName(tr("Bucket definitions"));
    connect(m_help, &QToolButton::clicked, this, &BudgetChartView::showDefinitions);
}

void BudgetChartView::showDefinitions()
{
    if (!m_definitions) {
        m_definitions = new QDialog(this);
        m_definitions->setWindowTitle(tr("Waste budget: what each row measures"));
        auto *text = new QTextBrowser(m_definitions);
        text->setObjectName(QStringLiteral("definitions"));
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, m_definitions);
        connect(buttons, &QDialogButtonBox::rejected, m_definitions, &QDialog::close);
        auto *layout = new QVBoxLayout(m_definitions);
        layout->addWidget(text, 1);
        layout->addWidget(buttons);
        const int em = fontMetrics().height();
        m_definitions->resize(44 * em, 30 * em);
    }
    // Printed now: the profile and whether the budget is measured may have changed since.
    m_definitions->findChild<QTextBrowser *>(QStringLiteral("definitions"))->setHtml(m_chart->definitionsHtml());
    m_definitions->show();
    m_definitions->raise();
}

void BudgetChartView::resizeEvent(QResizeEvent *event)
{
    QChartView::resizeEvent(event);
    const QSize hint = m_help->sizeHint();
    const int side = std::max(hint.width(), hint.height());
    m_help->setGeometry(width() - side - 6, 4, side, side);
}

void BudgetChartView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        m_chart->applyPalette(palette());
    QChartView::changeEvent(event);
}

} // namespace goblin
