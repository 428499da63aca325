// Tables that read at 1366×768: in the window at a laptop's size, the Kernels and Operators names
// take the spare width (elided in the middle), every number column is in view without scrolling,
// a column that holds nothing on this run ("—" everywhere) is hidden, Operators group by op with
// the input shapes as the level below, and the Thresholds dock collapses on the table views and
// comes back elsewhere (reopened on a table view, it stays: remembered in the settings).

#include "attributionfixture.h"
#include "kernelsview.h"
#include "mainwindow.h"
#include "operatorview.h"
#include "opsmodel.h"
#include "runmodel.h"
#include "settings.h"
#include "testsupport.h"
#include "windowfixture.h"
#include "workbenchview.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <algorithm>

using namespace goblin;

namespace
{

/// The columns shown, and the first that does not fit the viewport (-1: all do).
int firstColumnOutOfView(const QHeaderView *header)
{
    for (int column = 0; column < header->count(); ++column) {
        if (header->isSectionHidden(column))
            continue;
        const int right = header->sectionViewportPosition(column) + header->sectionSize(column);
        if (header->sectionViewportPosition(column) < 0 || right > header->viewport()->width())
            return column;
    }
    return -1;
}

QString widths(const QHeaderView *header)
{
    QStringList out;
    for (int column = 0; column < header->count(); ++column)
        out << (header->isSectionHidden(column) ? QStringLiteral("hidden")
                                                 : QString::number(header->sectionSize(column)));
    return out.join(QLatin1Char(' ')) + QStringLiteral(" in %1 px").arg(header->viewport()->width());
}

} // namespace

class TestTablesRead : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void everyColumnInViewAt1366_data();
    void everyColumnInViewAt1366();
    void columnOfNothingIsHidden_data();
    void columnOfNothingIsHidden();
    void operatorsGroupByOpWithShapesBelow();
    void thresholdsDockCollapsesOnTableViews();

private:
    WorkbenchView *openRunAt1366();

    std::unique_ptr<QTemporaryDir> m_home;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestTablesRead::init()
{
    m_home = std::make_unique<QTemporaryDir>();
    m_settings = std::make_unique<Settings>(
        new QSettings(m_home->filePath(QStringLiteral("settings.ini")), QSettings::IniFormat));
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->resize(1366, 768);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestTablesRead::cleanup()
{
    m_window.reset();
    m_settings.reset();
    m_home.reset();
}

WorkbenchView *TestTablesRead::openRunAt1366()
{
    // run-small: rocprofv3's kernel trace (GEMM names of 300+ characters) and a torch trace with ops.
    m_window->openRunDir(test::dataPath(QStringLiteral("window/run-small")));
    auto *view = m_window->findChild<WorkbenchView *>();
    if (!view)
        return nullptr;
    if (!QTest::qWaitFor([&] { return view->kernelTable()->model() && view->kernelTable()->model()->rowCount(
                                                                          view->kernelTable()->rootIndex()) > 0; },
                         30000))
        return nullptr;
    return view;
}

void TestTablesRead::everyColumnInViewAt1366_data()
{
    QTest::addColumn<int>("page");
    QTest::newRow("Kernels") << int(WorkbenchView::KernelsPage);
    QTest::newRow("Operators") << int(WorkbenchView::OperatorsPage);
}

void TestTablesRead::everyColumnInViewAt1366()
{
    QFETCH(int, page);
    WorkbenchView *view = openRunAt1366();
    QVERIFY(view);
    view->showView(page);
    QAbstractItemView *table = nullptr;
    QHeaderView *header = nullptr;
    int nameColumn = 0;
    if (page == WorkbenchView::KernelsPage) {
        table = view->kernelTable();
        header = view->kernelTable()->horizontalHeader();
        nameColumn = RunModel::NameColumn;
    } else {
        auto *ops = m_window->findChild<OperatorView *>();
        QVERIFY(ops);
        table = ops->opsTable();
        header = ops->opsTable()->header();
        nameColumn = OpsModel::NameColumn;
        QTRY_VERIFY_WITH_TIMEOUT(table->model()->rowCount() > 0, 10000);
    }
    QTRY_VERIFY_WITH_TIMEOUT(table->isVisible() && table->width() > 0, 5000);
    QCoreApplication::processEvents();
    QCOMPARE(m_window->width(), 1366);
    QVERIFY2(firstColumnOutOfView(header) == -1, qPrintable(widths(header)));
    // The name takes the spare width: stretched, elided in the middle, the widest column by far.
    QCOMPARE(header->sectionResizeMode(nameColumn), QHeaderView::Stretch);
    QCOMPARE(table->textElideMode(), Qt::ElideMiddle);
    const int em = table->fontMetrics().height();
    QVERIFY2(header->sectionSize(nameColumn) >= 18 * em, qPrintable(widths(header)));
    for (int column = 0; column < header->count(); ++column)
        if (column != nameColumn && !header->isSectionHidden(column))
            QVERIFY2(header->sectionSize(column) < header->sectionSize(nameColumn), qPrintable(widths(header)));
}

void TestTablesRead::columnOfNothingIsHidden_data()
{
    QTest::addColumn<bool>("withSteps");
    // makeFakeRun has no step count: per-step columns read "—" on every row.
    QTest::newRow("no step count: per step hidden") << false;
    QTest::newRow("steps: per step shown") << true;
}

void TestTablesRead::columnOfNothingIsHidden()
{
    QFETCH(bool, withSteps);
    auto run = test::makeFakeRun();
    if (withSteps) {
        run->workbench.gpuAgents = 2;
        run->workbench.traceStepsCovered = 4.0;
        run->workbench.perStepPerGpuDivisor = 8.0;
    }
    RunModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.addRun(run);
    KernelsView kernels;
    kernels.resize(1100, 300);
    kernels.setModel(&model);
    kernels.setRootIndex(model.runIndex(0));
    kernels.show();
    QVERIFY(QTest::qWaitForWindowExposed(&kernels));
    QHeaderView *header = kernels.table()->horizontalHeader();
    QCOMPARE(header->isSectionHidden(RunModel::CallsPerStepColumn), !withSteps);
    QCOMPARE(header->isSectionHidden(RunModel::TimePerStepColumn), !withSteps);
    QVERIFY(!header->isSectionHidden(RunModel::TotalTimeColumn));
    QVERIFY(!header->isSectionHidden(RunModel::NameColumn));

    // Operators: no recorded shapes makes the shapes column "—" everywhere; no GPU events the
    // host-self-in-GPU-idle column.
    TraceAttribution attribution = test::makeAttribution();
    if (!withSteps) {
        // Without record_shapes the trace has one row per op name, none with shapes.
        attribution.shapesRecorded = false;
        std::vector<OpStats> byName;
        for (OpStats op : attribution.wholeTrace.ops) {
            op.inputShapes.reset();
            if (std::none_of(byName.begin(), byName.end(), [&](const OpStats &o) { return o.name == op.name; }))
                byName.push_back(op);
        }
        attribution.wholeTrace.ops = byName;
        attribution.gpuIdleMeasured = false;
    } else {
        attribution.gpuIdleMeasured = true;
    }
    OperatorView ops;
    ops.resize(1100, 600);
    ops.setAttribution(std::make_shared<const TraceAttribution>(attribution));
    ops.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ops));
    QHeaderView *opsHeader = ops.opsTable()->header();
    QCOMPARE(opsHeader->isSectionHidden(OpsModel::ShapesColumn), !withSteps);
    QCOMPARE(opsHeader->isSectionHidden(OpsModel::HostSelfGpuIdleColumn), !withSteps);
    QVERIFY(!opsHeader->isSectionHidden(OpsModel::DeviceSelfColumn));
}

void TestTablesRead::operatorsGroupByOpWithShapesBelow()
{
    OperatorView view;
    QAbstractItemModelTester tester(view.opsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    // And the sorting, filtering proxy the tree shows.
    QAbstractItemModelTester proxyTester(view.opsTable()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.resize(1100, 600);
    view.setRun(test::makeAttributedRun());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.groupCombo()->currentIndex(), 0);
    QCOMPARE(view.groupCombo()->currentText(), QStringLiteral("Operator"));
    const QAbstractItemModel *model = view.opsTable()->model();
    // Six rows of name and shapes, five names: aten::addmm's two shapes are the rows below it.
    QCOMPARE(model->rowCount(), 5);
    QModelIndex addmm;
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->index(row, OpsModel::NameColumn).data().toString() == QLatin1String("aten::addmm"))
            addmm = model->index(row, OpsModel::NameColumn);
    QVERIFY(addmm.isValid());
    QCOMPARE(addmm.siblingAtColumn(OpsModel::ShapesColumn).data().toString(), QStringLiteral("2 shapes"));
    QCOMPARE(addmm.siblingAtColumn(OpsModel::DeviceSelfColumn).data().toString(), QStringLiteral("8.000"));
    QCOMPARE(model->rowCount(addmm), 2);
    QStringList shapes;
    qint64 calls = 0;
    for (int row = 0; row < model->rowCount(addmm); ++row) {
        shapes << model->index(row, OpsModel::ShapesColumn, addmm).data().toString();
        calls += model->index(row, OpsModel::CallsColumn, addmm).data(Qt::DisplayRole).toLongLong();
        QCOMPARE(model->index(row, OpsModel::NameColumn, addmm).data(OpsModel::OpNameRole).toString(),
                 QStringLiteral("aten::addmm"));
    }
    shapes.sort();
    QCOMPARE(shapes, (QStringList{QStringLiteral("[[1024], [32, 4096], [4096, 1024]]"),
                                  QStringLiteral("[[4096], [32, 1024], [1024, 4096]]")}));
    QCOMPARE(calls, qint64(8));  // the children add up to their name's row
    // A name of one shape has no level below: its row is that shape.
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex name = model->index(row, OpsModel::NameColumn);
        if (name != addmm)
            QCOMPARE(model->rowCount(name), 0);
    }
    // Sorted and filtered, a name keeps its shapes below it.
    view.setFilterText(QStringLiteral("addmm"));
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->rowCount(model->index(0, 0)), 2);
    view.setFilterText(QString());
    // Flat on request: one row per name and shapes.
    view.groupCombo()->setCurrentIndex(1);
    QCOMPARE(model->rowCount(), 6);
    QCOMPARE(model->rowCount(model->index(0, 0)), 0);
}

void TestTablesRead::thresholdsDockCollapsesOnTableViews()
{
    WorkbenchView *view = openRunAt1366();
    QVERIFY(view);
    auto *dock = m_window->findChild<QDockWidget *>(QStringLiteral("ThresholdsDock"));
    QVERIFY(dock);
    view->showView(WorkbenchView::OverviewPage);
    QVERIFY(dock->isVisible());
    for (const int table : {int(WorkbenchView::KernelsPage), int(WorkbenchView::OperatorsPage)}) {
        view->showView(table);
        QVERIFY2(!dock->isVisible(), qPrintable(view->viewTitle(table)));
    }
    view->showView(WorkbenchView::TimelinePage);
    QVERIFY(dock->isVisible());
    QVERIFY(!m_settings->thresholdsOnTableViews());

    // Opened again on a table view: it stays there, now and in the next window.
    view->showView(WorkbenchView::KernelsPage);
    QVERIFY(!dock->isVisible());
    dock->toggleViewAction()->trigger();
    QVERIFY(dock->isVisible());
    QVERIFY(m_settings->thresholdsOnTableViews());
    view->showView(WorkbenchView::OverviewPage);
    view->showView(WorkbenchView::OperatorsPage);
    QVERIFY(dock->isVisible());

    m_window.reset();
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->resize(1366, 768);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    view = openRunAt1366();
    QVERIFY(view);
    dock = m_window->findChild<QDockWidget *>(QStringLiteral("ThresholdsDock"));
    view->showView(WorkbenchView::KernelsPage);
    QVERIFY(dock->isVisible());
    // Closed there again: collapsed on table views from then on.
    dock->toggleViewAction()->trigger();
    QVERIFY(!m_settings->thresholdsOnTableViews());
}

QTEST_MAIN(TestTablesRead)
#include "tst_tablesread.moc"
