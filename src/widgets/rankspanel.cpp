#include "rankspanel.h"

#include "collectivesmodel.h"
#include "customplot.h"
#include "formatting.h"
#include "liveanalysis.h"
#include "plotstyle.h"
#include "ranksmodel.h"
#include "wastebudgetmodel.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QHeaderView>
#include <QHelpEvent>
#include <QToolTip>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <array>
#include <cmath>

namespace goblin {

namespace {

constexpr int kStackRows = WasteBudget::BucketCount + 1;  // the seven buckets and the unattributed rest

} // namespace

RanksPanel::RanksPanel(LiveAnalysis *live, QWidget *parent)
    : QWidget(parent)
    , m_live(live)
    , m_model(new RanksModel(this))
    , m_spread(new QLabel(this))
    , m_chart(new QCustomPlot(this))
    , m_table(new QTableView(this))
    , m_collectives(new CollectivesModel(this))
    , m_collectiveRanks(new CollectiveRanksModel(this))
    , m_collectivesLine(new QLabel(this))
    , m_collectivesTable(new QTableView(this))
    , m_collectiveRanksTable(new QTableView(this))
{
    // The spread line says who the straggler is and why (the definition in short); the whole
    // definition is its tooltip. The bottom tabs are short: every line counts.
    m_spread->setWordWrap(true);
    m_spread->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_spread->setToolTip(RanksModel::stragglerDefinition());

    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setAlternatingRowColors(true);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setToolTip(tr("One budget per rank, each from that rank's own kernels, step time and host busy; "
                           "the workbench budget of a run with several ranks is their mean"));

    const int em = fontMetrics().height();
    m_chart->setMinimumSize(14 * em, 5 * em);
    m_chart->yAxis->setLabel(tr("ms / step"));
    m_chart->yAxis->ticker()->setTickCount(3);
    m_chart->xAxis->grid()->setVisible(false);
    QCPBars *below = nullptr;
    for (int row = 0; row < kStackRows; ++row) {
        auto *bars = new QCPBars(m_chart->xAxis, m_chart->yAxis);
        bars->setName(budgetRowLabel(row));
        bars->setWidth(0.7);
        if (below)
            bars->moveAbove(below);
        below = bars;
    }
    // No legend: the colours are the budget chart's right above, and a segment's tooltip names it.
    m_chart->legend->setVisible(false);
    m_chart->installEventFilter(this);

    // The chart beside the spread line and the table: the bottom tabs are wide and short.
    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_spread);
    rightLayout->addWidget(m_table, 1);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_chart);
    split->addWidget(right);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setChildrenCollapsible(false);

    // The collectives under the budgets: the table by collective and size, each rank's wait beside.
    m_collectivesLine->setWordWrap(true);
    m_collectivesLine->setTextInteractionFlags(Qt::TextSelectableByMouse);
    for (QTableView *t : {m_collectivesTable, m_collectiveRanksTable}) {
        t->setSelectionBehavior(QAbstractItemView::SelectRows);
        t->setWordWrap(false);
        t->verticalHeader()->hide();
        t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
        t->setAlternatingRowColors(true);
        t->horizontalHeader()->setHighlightSections(false);
        t->horizontalHeader()->setStretchLastSection(true);
    }
    m_collectivesTable->setModel(m_collectives);
    m_collectiveRanksTable->setModel(m_collectiveRanks);
    auto *collectivesSplit = new QSplitter(Qt::Horizontal, this);
    collectivesSplit->addWidget(m_collectivesTable);
    collectivesSplit->addWidget(m_collectiveRanksTable);
    collectivesSplit->setStretchFactor(0, 2);
    collectivesSplit->setStretchFactor(1, 1);
    collectivesSplit->setChildrenCollapsible(false);
    auto *collectivesBox = new QWidget(this);
    auto *collectivesLayout = new QVBoxLayout(collectivesBox);
    collectivesLayout->setContentsMargins(0, 0, 0, 0);
    collectivesLayout->addWidget(m_collectivesLine);
    collectivesLayout->addWidget(collectivesSplit, 1);
    auto *vertical = new QSplitter(Qt::Vertical, this);
    vertical->addWidget(split);
    vertical->addWidget(collectivesBox);
    vertical->setStretchFactor(0, 1);
    vertical->setStretchFactor(1, 1);
    vertical->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(vertical, 1);

    connect(live, &LiveAnalysis::runChanged, this, &RanksPanel::onRunChanged);
    connect(live, &LiveAnalysis::metricsChanged, this, &RanksPanel::onMetricsChanged);
    onRunChanged();
}

QString RanksPanel::spreadText() const
{
    return m_spread->text();
}

QString RanksPanel::collectivesText() const
{
    return m_collectivesLine->text();
}

QString RanksPanel::definitionText() const
{
    return m_spread->toolTip();
}

QString RanksPanel::toolTipAt(const QPointF &pos) const
{
    const double key = m_chart->xAxis->pixelToCoord(pos.x());
    const double value = m_chart->yAxis->pixelToCoord(pos.y()) / m_unitPerSecond;
    const int bar = int(std::lround(key));
    if (bar < 0 || bar >= m_barCount || std::abs(key - bar) > 0.4 || !m_chart->axisRect()->rect().contains(pos.toPoint()))
        return {};
    const RankResult &r = m_model->results()[std::size_t(bar)];
    QStringList lines{tr("Rank %1: step %2, own work %3 per step").arg(r.inputs->rank)
                          .arg(formatSeconds(r.stepTimeS), formatSeconds(r.ownWorkSPerStep()))};
    if (bar == m_stragglerBar)
        lines << tr("The straggler: the rank the others wait for");
    double top = 0.0;
    for (int row = 0; row < kStackRows; ++row) {
        const bool known = r.budget.state(row) != ValueState::Unknown;
        const double s = known ? std::max(0.0, budgetRowSeconds(r.budget, row)) : 0.0;
        const bool here = value >= top && value < top + s;
        top += s;
        lines << QStringLiteral("%1%2: %3 [%4]")
                     .arg(here ? QStringLiteral("▶ ") : QStringLiteral("   "), budgetRowLabel(row),
                          known ? formatSeconds(s) : QStringLiteral("—"), valueStateMark(r.budget.state(row)));
    }
    return lines.join(QLatin1Char('\n'));
}

bool RanksPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_chart && event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::showText(help->globalPos(),
                               tr("Each rank's own budget per step, in the budget chart's order and colours; an "
                                  "unknown bucket has no segment (— in the table)"),
                               m_chart);
        else
            QToolTip::showText(help->globalPos(), text, m_chart);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

double RanksPanel::barSeconds(int bar, int budgetRow) const
{
    if (bar < 0 || bar >= m_barCount || budgetRow < 0 || budgetRow >= kStackRows)
        return 0.0;
    auto *bars = qobject_cast<QCPBars *>(m_chart->plottable(budgetRow));
    const QCPBarsDataContainer &data = *bars->data();
    return bar < data.size() ? (data.constBegin() + bar)->value / m_unitPerSecond : 0.0;
}

QString RanksPanel::barLabel(int bar) const
{
    return m_barLabels.value(bar);
}

void RanksPanel::fitColumns()
{
    m_table->resizeColumnsToContents();
    const int em = fontMetrics().height();
    if (m_table->columnWidth(RanksModel::FileColumn) > 16 * em)
        m_table->setColumnWidth(RanksModel::FileColumn, 16 * em);  // the whole name is in the cell's tooltip
    m_collectivesTable->resizeColumnsToContents();
    m_collectiveRanksTable->resizeColumnsToContents();
}

void RanksPanel::onRunChanged()
{
    m_model->setRun(m_live->run(), m_live->derived());
    m_spread->setText(m_live->run() ? m_model->spreadText() : tr("Open a run folder to compare its ranks."));
    // Collectives are few and fixed at load: computed here, once per run.
    m_collectives->setAnalysis(m_live->run() ? analyzeCollectives(*m_live->run()) : CollectiveAnalysis());
    m_collectiveRanks->setAnalysis(m_collectives->analysis());
    // Waits need another rank: one rank's table would stay empty.
    m_collectiveRanksTable->setVisible(m_collectives->analysis().ranks >= 2);
    m_collectivesLine->setText(m_live->run() ? m_collectives->summaryText() : QString());
    fitColumns();
    redrawChart();
}

void RanksPanel::onMetricsChanged()
{
    const int rowsBefore = m_model->rowCount();
    m_model->setDerived(m_live->derived());
    if (m_live->run())
        m_spread->setText(m_model->spreadText());
    if (m_model->rowCount() != rowsBefore)  // the run's first results (runChanged comes before them)
        fitColumns();
    redrawChart();
}

void RanksPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        redrawChart();
    QWidget::changeEvent(event);
}

void RanksPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    redrawChart();  // "rank N" or "rN" under the bars follows the width
}

void RanksPanel::redrawChart()
{
    const QPalette &pal = palette();
    applyPalette(m_chart, pal);
    m_chart->clearItems();
    const std::vector<RankResult> &results = m_model->results();
    m_barCount = int(results.size());
    m_stragglerBar = m_model->stragglerRow();
    m_barLabels.clear();

    double maxStep = 0.0;
    for (const RankResult &r : results)
        maxStep = std::max(maxStep, r.stepTimeS);
    m_unitPerSecond = maxStep >= 1.0 ? 1.0 : 1e3;
    m_chart->yAxis->setLabel(m_unitPerSecond == 1.0 ? tr("s / step") : tr("ms / step"));

    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const double slotPx = m_barCount > 0 ? std::max(1, m_chart->axisRect()->width()) / double(m_barCount) : 0.0;
    const bool shortNames = slotPx < QFontMetricsF(m_chart->xAxis->tickLabelFont()).horizontalAdvance(QStringLiteral("rank 00")) + 8.0;
    std::array<QVector<double>, kStackRows> values;
    QVector<double> keys;
    double top = 0.0;
    for (int i = 0; i < m_barCount; ++i) {
        const RankResult &r = results[std::size_t(i)];
        keys << double(i);
        double total = 0.0;
        for (int row = 0; row < kStackRows; ++row) {
            // Unknown: no segment (the table says "—"), never a 0 that reads as measured.
            const bool known = r.budget.state(row) != ValueState::Unknown;
            const double s = known ? std::max(0.0, budgetRowSeconds(r.budget, row)) : 0.0;
            values[std::size_t(row)] << s * m_unitPerSecond;
            total += s;
        }
        top = std::max(top, std::max(total, r.stepTimeS));
        // "rank N" where the bars leave room for it, else "rN" (the table names the file).
        const QString name = shortNames ? tr("r%1").arg(r.inputs->rank) : tr("rank %1").arg(r.inputs->rank);
        const QString label = i == m_stragglerBar ? tr("%1\nstraggler").arg(name) : name;
        m_barLabels << label;
        ticker->addTick(double(i), label);
    }
    for (int row = 0; row < kStackRows; ++row) {
        auto *bars = qobject_cast<QCPBars *>(m_chart->plottable(row));
        const QColor c = bucketColor(row, pal);
        bars->setBrush(row == kUnattributedRow ? QBrush(c, Qt::BDiagPattern) : QBrush(c));
        bars->setPen(QPen(c.darker(130), 1));
        bars->setData(keys, values[std::size_t(row)], true);
    }
    m_chart->xAxis->setTicker(ticker);
    m_chart->xAxis->setRange(-0.6, std::max(0.6, m_barCount - 0.4));
    m_chart->yAxis->setRange(0.0, top > 0.0 ? top * m_unitPerSecond * 1.18 : 1.0);

    if (m_stragglerBar >= 0 && m_stragglerBar < m_barCount) {
        // Marked twice, readable without colour: an outline around the bar and the word under it.
        const RankResult &r = results[std::size_t(m_stragglerBar)];
        auto *outline = new QCPItemRect(m_chart);
        outline->topLeft->setCoords(m_stragglerBar - 0.42, r.stepTimeS * m_unitPerSecond);
        outline->bottomRight->setCoords(m_stragglerBar + 0.42, 0.0);
        outline->setPen(QPen(thresholdColor(pal), 2.0));
        outline->setBrush(Qt::NoBrush);
    }
    m_chart->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace goblin
