#include "compareview.h"

#include "commandline.h"
#include "compare.h"
#include "liveanalysis.h"
#include "runmodel.h"
#include "workbenchsession.h"

#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace goblin {

namespace {

QTableWidget *makeTable(const QStringList &header, QWidget *parent)
{
    auto *table = new QTableWidget(0, int(header.size()), parent);
    table->setHorizontalHeaderLabels(header);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

void fillTable(QTableWidget *table, const std::vector<QStringList> &rows)
{
    table->setRowCount(int(rows.size()));
    for (int r = 0; r < int(rows.size()); ++r)
        for (int c = 0; c < rows[std::size_t(r)].size(); ++c) {
            auto *item = new QTableWidgetItem(rows[std::size_t(r)].at(c));
            if (c >= 2)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table->setItem(r, c, item);
        }
}

} // namespace

CompareView::CompareView(WorkbenchSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_runList(new QListWidget(this))
    , m_baselineBox(new QComboBox(this))
    , m_unitBox(new QComboBox(this))
    , m_addRuns(new QPushButton(tr("&Add Runs…"), this))
    , m_exportPng(new QPushButton(tr("Export PNG…"), this))
    , m_summary(new QLabel(this))
    , m_plot(new QCustomPlot(this))
    , m_budgetPlot(new QCustomPlot(this))
    , m_kernelTable(makeTable(compareKernelHeader(), this))
    , m_telemetryTable(makeTable(compareTelemetryHeader(), this))
{
    const int em = fontMetrics().height();
    m_runList->setToolTip(tr("Tick the runs to compare; they share the thresholds of the Thresholds panel"));
    m_unitBox->addItem(tr("Seconds per step"), int(DeltaUnit::SecondsPerStep));
    m_unitBox->addItem(tr("Share of step"), int(DeltaUnit::ShareOfStep));
    m_unitBox->addItem(tr("Each run (s/step)"), int(DeltaUnit::EachRunSecondsPerStep));
    m_unitBox->setToolTip(tr("Δ against the baseline in seconds per step or in share of the step, or every run's "
                             "own buckets side by side; an unknown bucket has no bar"));
    m_baselineBox->setToolTip(tr("Every other run is compared against this one"));
    m_summary->setWordWrap(true);
    m_summary->setForegroundRole(QPalette::PlaceholderText);
    m_plot->setMinimumHeight(10 * em);
    m_plot->setMinimumWidth(16 * em);
    m_budgetPlot->setMinimumHeight(10 * em);
    m_budgetPlot->setMinimumWidth(12 * em);
    m_budgetPlot->setToolTip(tr("Each run's budget per step, in the budget chart's order and colours; the dashed "
                                "line is the run's step time. An unknown bucket has no segment."));
    m_kernelTable->horizontalHeader()->resizeSection(1, 24 * em);

    auto *side = new QWidget(this);
    auto *sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addWidget(new QLabel(tr("Runs:"), side));
    sideLayout->addWidget(m_runList, 1);
    sideLayout->addWidget(m_addRuns);
    sideLayout->addWidget(new QLabel(tr("Baseline:"), side));
    sideLayout->addWidget(m_baselineBox);
    sideLayout->addWidget(new QLabel(tr("Bars in:"), side));
    sideLayout->addWidget(m_unitBox);
    sideLayout->addWidget(m_exportPng);

    auto *tables = new QTabWidget(this);
    tables->addTab(m_telemetryTable, tr("Telemetry side by side"));
    tables->addTab(m_kernelTable, tr("Top-kernel changes"));
    auto *main = new QWidget(this);
    auto *mainLayout = new QVBoxLayout(main);
    mainLayout->setContentsMargins(0, 0, 0, 0);
    mainLayout->addWidget(m_summary);
    // The runs' own budgets beside what changed between them.
    auto *charts = new QSplitter(Qt::Horizontal, main);
    charts->addWidget(m_budgetPlot);
    charts->addWidget(m_plot);
    charts->setChildrenCollapsible(false);
    charts->setStretchFactor(0, 2);
    charts->setStretchFactor(1, 3);
    charts->setSizes({40 * em, 60 * em});  // the deltas need the width for their bucket names
    auto *vertical = new QSplitter(Qt::Vertical, main);
    vertical->addWidget(charts);
    vertical->addWidget(tables);
    vertical->setChildrenCollapsible(false);
    vertical->setStretchFactor(0, 3);  // the bars are what the view is for
    vertical->setStretchFactor(1, 2);
    vertical->setSizes({24 * em, 14 * em});
    mainLayout->addWidget(vertical, 1);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(side);
    splitter->addWidget(main);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({14 * em, 60 * em});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(splitter);

    m_timer.setSingleShot(true);
    m_timer.setInterval(kCoalesceMs);
    connect(&m_timer, &QTimer::timeout, this, &CompareView::recompute);
    connect(m_addRuns, &QPushButton::clicked, this, &CompareView::addRunsRequested);
    connect(m_exportPng, &QPushButton::clicked, this, &CompareView::chooseExportPath);
    connect(m_unitBox, &QComboBox::currentIndexChanged, this, &CompareView::redraw);
    connect(m_baselineBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (!m_syncing && index >= 0)
            setBaseline(index);
    });
    connect(m_runList, &QListWidget::itemChanged, this, [this](QListWidgetItem *item) {
        if (m_syncing)
            return;
        const QString dir = item->data(Qt::UserRole).toString();
        m_unchecked.removeAll(dir);
        if (item->checkState() != Qt::Checked)
            m_unchecked << dir;
        schedule();
    });

    RunModel *runs = session->runs();
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(runs, signal, this, [this](const QModelIndex &parent) {
            if (!parent.isValid())
                syncRunList();
        });
    connect(runs, &QAbstractItemModel::modelReset, this, &CompareView::syncRunList);
    connect(runs, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex &topLeft) {
        if (!topLeft.parent().isValid())
            syncRunList();  // a reload
    });
    LiveAnalysis *live = session->live();
    connect(live, &LiveAnalysis::thresholdsChanged, this, &CompareView::schedule);
    connect(live, &LiveAnalysis::profileChanged, this, &CompareView::schedule);
    syncRunList();
    recompute();
}

void CompareView::syncRunList()
{
    m_syncing = true;
    m_runList->clear();
    RunModel *runs = m_session->runs();
    for (int row = 0; row < runs->rowCount(); ++row) {
        const auto run = runs->run(row);
        if (!run)
            continue;
        auto *item = new QListWidgetItem(run->runName, m_runList);
        item->setToolTip(run->runDir);
        item->setData(Qt::UserRole, run->runDir);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(m_unchecked.contains(run->runDir) ? Qt::Unchecked : Qt::Checked);
    }
    m_syncing = false;
    schedule();
}

void CompareView::setRunChecked(int row, bool checked)
{
    if (QListWidgetItem *item = m_runList->item(row))
        item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
}

void CompareView::setBaseline(int comparedIndex)
{
    if (comparedIndex < 0 || comparedIndex >= int(m_compared.size()))
        return;
    m_baselineDir = m_compared[std::size_t(comparedIndex)]->runDir;
    schedule();
}

DeltaUnit CompareView::unit() const
{
    return DeltaUnit(m_unitBox->currentData().toInt());
}

void CompareView::schedule()
{
    m_timer.start();
}

void CompareView::flush()
{
    if (m_timer.isActive()) {
        m_timer.stop();
        recompute();
    }
}

QStringList CompareView::command() const
{
    QStringList dirs;
    for (const auto &run : m_compared)
        dirs << run->runDir;
    const LiveAnalysis *live = m_session->live();
    return reproducingCommand(QStringLiteral("compare"), dirs, live->profile(), live->thresholds(),
                              {QStringLiteral("--baseline"), QString::number(m_baseline)});
}

void CompareView::recompute()
{
    ++m_recomputes;
    m_compared.clear();
    RunModel *runs = m_session->runs();
    for (int row = 0; row < runs->rowCount(); ++row)
        if (const auto run = runs->run(row); run && !m_unchecked.contains(run->runDir))
            m_compared.push_back(run);
    m_baseline = 0;
    for (int i = 0; i < int(m_compared.size()); ++i)
        if (m_compared[std::size_t(i)]->runDir == m_baselineDir)
            m_baseline = i;

    m_syncing = true;
    m_baselineBox->clear();
    for (const auto &run : m_compared)
        m_baselineBox->addItem(run->runName, run->runDir);
    m_baselineBox->setCurrentIndex(m_compared.empty() ? -1 : m_baseline);
    m_syncing = false;

    if (m_compared.size() < 2) {
        m_result = QJsonObject();
    } else {
        std::vector<const RunAnalysis *> raw;
        for (const auto &run : m_compared)
            raw.push_back(run.get());
        const LiveAnalysis *live = m_session->live();
        m_result = compareRuns(raw, live->profile(), live->thresholds(), m_baseline, command());
    }
    redraw();
}

void CompareView::redraw()
{
    const bool ready = !m_result.isEmpty();
    m_exportPng->setEnabled(ready);
    drawCompareDeltaPlot(m_plot, m_result, unit(), palette());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    drawCompareStackedBudgets(m_budgetPlot, m_result, palette());
    m_budgetPlot->replot(QCustomPlot::rpQueuedReplot);
    fillTable(m_kernelTable, ready ? compareKernelRows(m_result) : std::vector<QStringList>{});
    fillTable(m_telemetryTable, ready ? compareTelemetryRows(m_result) : std::vector<QStringList>{});
    m_telemetryTable->resizeColumnToContents(0);
    if (!ready)
        m_summary->setText(tr("Open two or more runs (Add Runs…, or File ▸ Compare With…) and tick them to compare "
                              "them under the same thresholds."));
    else
        m_summary->setText(tr("%1 runs against %2; every threshold change recomputes them all. Bars: %3; no bar "
                              "where a bucket is unknown in a run.")
                               .arg(m_compared.size())
                               .arg(m_compared[std::size_t(m_baseline)]->runName,
                                    unit() == DeltaUnit::EachRunSecondsPerStep ? tr("each run's own seconds per step")
                                                                               : tr("other − baseline per bucket")));
}

double CompareView::drawnBarValue(int deltaIndex, const QString &key) const
{
    const QStringList keys = compareBucketKeys(m_result);
    const int k = int(keys.indexOf(key));
    int barsSeen = 0;
    for (int i = 0; i < m_plot->plottableCount(); ++i) {
        auto *bars = qobject_cast<QCPBars *>(m_plot->plottable(i));
        if (!bars || barsSeen++ != deltaIndex)
            continue;
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            if (int(it->key) == k + 1)
                return it->value;
        return qQNaN();
    }
    return qQNaN();
}

void CompareView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        redraw();
}

double CompareView::drawnStackValue(int comparedIndex, const QString &key) const
{
    return compareStackedValue(m_budgetPlot, comparedIndex, key);
}

bool CompareView::exportPng(const QString &path, QString *error) const
{
    if (m_result.isEmpty()) {
        *error = tr("nothing to export: tick two or more runs");
        return false;
    }
    return renderComparePng(m_result, path, error);
}

void CompareView::chooseExportPath()
{
    flush();
    if (m_result.isEmpty())
        return;
    const QString suggested = QDir(QDir::homePath()).filePath(QStringLiteral("compare.png"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Comparison as PNG"), suggested,
                                                      tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    const QString folder = QFileInfo(QFileInfo(path).absolutePath()).canonicalFilePath();
    for (const auto &run : m_compared) {
        const QString dir = QDir(run->runDir).canonicalPath();
        if (!dir.isEmpty() && (folder == dir || folder.startsWith(dir + QLatin1Char('/')))) {
            QMessageBox::warning(this, tr("Export failed"),
                                 tr("%1 is inside the run folder %2; the workbench never writes into a run folder.")
                                     .arg(path, run->runDir));
            return;
        }
    }
    QString error;
    if (!exportPng(path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
}

} // namespace goblin
