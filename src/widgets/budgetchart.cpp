#include "budgetchart.h"

#include "budgetformula.h"
#include "formatting.h"
#include "modelroles.h"
#include "plotstyle.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCursor>
#include <QEvent>
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
    setMargins(QMargins(4, 4, 8, 4));

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

    showEmpty();
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
    m_categoryAxis->clear();
    m_labels = {};
    QStringList categories;
    for (int category = 0; category < count; ++category) {
        const int row = rows[std::size_t(count - 1 - category)];
        m_labels[std::size_t(row)] = budgetRowLabel(row);
        categories << m_labels[std::size_t(row)];
    }
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
    std::array<QString, RowCount> labels;
    double running = 0.0;
    for (int row : m_shownRows) {
        const bool isStep = row == kStepTimeRow;
        const double seconds = m_model->index(row, WasteBudgetModel::SecondsColumn).data(RawValueRole).toDouble();
        const double base = isStep ? 0.0 : running;
        if (!isStep)
            running += seconds;
        m_base->replace(categoryOf(row), base * m_unitPerSecond);
        m_sets[std::size_t(row)]->replace(categoryOf(row), seconds * m_unitPerSecond);
        const QString name = budgetRowLabel(row);
        labels[std::size_t(row)] =
            stepT > 0.0 ? QStringLiteral("%1  %2").arg(name, formatPercent(100.0 * seconds / stepT)) : name;
    }
    updateCategories(labels);

    const HeuristicsProfile profile = m_model->profile();
    const double extentS = std::max(stepT, running);
    const double maxUnits = extentS > 0.0 ? extentS * 1.04 * m_unitPerSecond : 1.0;
    m_timeAxis->setRange(0.0, maxUnits);
    m_timeAxis->setTickInterval(niceInterval(maxUnits / 6.0));
    m_timeAxis->setTitleText(m_unitPerSecond == 1.0 ? tr("seconds per step") : tr("milliseconds per step"));
    const double maxPct = stepT > 0.0 ? 100.0 * maxUnits / (stepT * m_unitPerSecond) : 100.0;
    m_percentAxis->setRange(0.0, maxPct);
    m_percentAxis->setTickInterval(std::max(10.0, niceInterval(maxPct / 6.0)));
    setTitle(stepT > 0.0 ? tr("Waste budget · %1 step · %2").arg(formatSeconds(stepT), profileName(profile))
                         : tr("Waste budget · no step time · %1").arg(profileName(profile)));
}

void BudgetChart::showEmpty()
{
    std::vector<int> rows;
    for (int row = 0; row < RowCount; ++row)
        if (row != kUnattributedRow)
            rows.push_back(row);
    setShownRows(rows);
    std::array<QString, RowCount> labels;
    for (int row : m_shownRows) {
        m_base->replace(categoryOf(row), 0.0);
        m_sets[std::size_t(row)]->replace(categoryOf(row), 0.0);
        labels[std::size_t(row)] = budgetRowLabel(row);
    }
    updateCategories(labels);
    m_timeAxis->setRange(0.0, 1.0);
    m_timeAxis->setTickInterval(0.2);
    m_percentAxis->setRange(0.0, 100.0);
    setTitle(tr("Waste budget (open a run folder)"));
}

void BudgetChart::updateCategories(const std::array<QString, RowCount> &labels)
{
    for (int row : m_shownRows) {
        QString &current = m_labels[std::size_t(row)];
        if (current != labels[std::size_t(row)]) {
            m_categoryAxis->replace(current, labels[std::size_t(row)]);
            current = labels[std::size_t(row)];
        }
    }
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
    // Qt Charts turns a category label into "…" once the rows are shorter than its text: a
    // slightly smaller font keeps the eight labels readable at the default window size.
    QFont labels = m_categoryAxis->labelsFont();
    labels.setPointSizeF(labels.pointSizeF() * 0.9);
    m_categoryAxis->setLabelsFont(labels);
    m_base->setBrush(Qt::NoBrush);
    m_base->setPen(Qt::NoPen);
    for (int row = 0; row < RowCount; ++row) {
        QBarSet *set = m_sets[std::size_t(row)];
        const QColor color = bucketColor(row, palette);
        // Not measured is hatched: a share of the step nobody measured, not a bucket.
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

BudgetChartView::BudgetChartView(QWidget *parent)
    // Chart given to the constructor: QChartView(parent) would make a default chart that
    // setChart() then orphans (a leak LeakSanitizer reports).
    : QChartView(new BudgetChart, parent)
    , m_chart(static_cast<BudgetChart *>(chart()))
{
    setRenderHint(QPainter::Antialiasing);
    setMouseTracking(true);
    m_chart->applyPalette(palette());
    connect(m_chart, &BudgetChart::rowHovered, this, [this](int row, bool entered) {
        const QString formula = entered ? m_chart->formula(row) : QString();  // printed now, on hover
        if (!formula.isEmpty())
            QToolTip::showText(QCursor::pos(),
                               QStringLiteral("<b>%1</b><br/>%2")
                                   .arg(m_chart->categoryLabel(row).toHtmlEscaped(), formula.toHtmlEscaped()),
                               this);
        else
            QToolTip::hideText();
    });
}

void BudgetChartView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        m_chart->applyPalette(palette());
    QChartView::changeEvent(event);
}

} // namespace goblin
