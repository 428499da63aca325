// The Operator view, the module tree view and the Kernels table (issue 24 items 2, 3, 6):
// select an op → its kernels; select a kernel → the ops that launched it; the unattributed line;
// scopes; empty states; the kernels' per-step columns, copy and "Show launching ops". Set
// GOBLIN_TEST_GRAB_DIR to keep pictures of each view in light and dark palettes.

#include "attributionfixture.h"
#include "attributiontext.h"
#include "flamegraph.h"
#include "kerneloplinkmodel.h"
#include "kernelsview.h"
#include "modelroles.h"
#include "moduletreemodel.h"
#include "moduletreeview.h"
#include "operatorview.h"
#include "opsmodel.h"
#include "runanalysis.h"
#include "runmodel.h"
#include "windowfixture.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QStyle>
#include <QTableView>
#include <QTest>
#include <QTimer>
#include <QTreeView>

using namespace goblin;

namespace
{

QStringList column(const QAbstractItemView *table, int col, int role = Qt::DisplayRole)
{
    QStringList out;
    for (int row = 0; row < table->model()->rowCount(table->rootIndex()); ++row)
        out << table->model()->index(row, col, table->rootIndex()).data(role).toString();
    return out;
}

void selectRow(QAbstractItemView *table, int row)
{
    const QModelIndex index = table->model()->index(row, 0, table->rootIndex());
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
}

QPalette darkPalette()
{
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Mid, QColor(0x60, 0x60, 0x60));
    dark.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
    dark.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xd6));
    dark.setColor(QPalette::HighlightedText, Qt::white);
    dark.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
    dark.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
    dark.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
    return dark;
}

std::shared_ptr<RunAnalysis> runWithSteps()
{
    auto run = test::makeFakeRun();
    run->workbench.gpuAgents = 2;
    run->workbench.traceStepsCovered = 4.0;
    run->workbench.perStepPerGpuDivisor = 8.0;
    return run;
}

} // namespace

class TestOperatorView : public QObject
{
    Q_OBJECT
private slots:
    void selectOpListsItsKernels();
    void selectKernelListsLaunchingOps();
    void unattributedLine();
    void scopeKeepsSelection();
    void filterIsDebounced();
    void flameFrameFilters();
    void flameClickReachesOperatorView();
    void emptyState();
    void moduleTree();
    void kernelsPerStepColumns_data();
    void kernelsPerStepColumns();
    void kernelsCopyAndLaunchingOps();
    void grabForALook();
    void realRunForALook();
};

void TestOperatorView::selectOpListsItsKernels()
{
    OperatorView view;
    view.resize(1100, 700);
    view.setRun(test::makeAttributedRun());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTreeView *ops = view.opsTable();
    // Flat, one row per name and shapes, sorted by device self time, largest first.
    view.groupCombo()->setCurrentIndex(1);
    QCOMPARE(column(ops, OpsModel::NameColumn).mid(0, 3),
             (QStringList{QStringLiteral("aten::addmm"), QStringLiteral("aten::addmm"), QStringLiteral("aten::mm")}));
    QCOMPARE(view.kernelsTable()->model()->rowCount(), 0);
    selectRow(ops, 0);
    QCOMPARE(column(view.kernelsTable(), KernelOpLinkModel::NameColumn),
             (QStringList{test::gemmKernelA(), test::gemmKernelB()}));
    QCOMPARE(column(view.kernelsTable(), KernelOpLinkModel::DeviceTimeColumn),
             (QStringList{QStringLiteral("6.000"), QStringLiteral("2.000")}));
    selectRow(ops, 2);
    QCOMPARE(column(view.kernelsTable(), KernelOpLinkModel::NameColumn), QStringList{test::gemmKernelA()});
    // An op that launched nothing itself lists nothing.
    QVERIFY(view.selectOp(QStringLiteral("aten::linear")));
    QCOMPARE(view.kernelsTable()->model()->rowCount(), 0);
    // Grouped by name (the default): one addmm row, still selected, its kernels listed, its two
    // shapes the rows under it.
    QVERIFY(view.selectOp(QStringLiteral("aten::addmm")));
    view.groupCombo()->setCurrentIndex(0);
    QCOMPARE(ops->model()->rowCount(), 5);
    const QModelIndexList selected = ops->selectionModel()->selectedRows();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected.front().data().toString(), QStringLiteral("aten::addmm"));
    QCOMPARE(selected.front().siblingAtColumn(OpsModel::DeviceSelfColumn).data().toString(), QStringLiteral("8.000"));
    QCOMPARE(view.kernelsTable()->model()->rowCount(), 2);
    QCOMPARE(ops->model()->rowCount(selected.front().siblingAtColumn(0)), 2);
}

void TestOperatorView::selectKernelListsLaunchingOps()
{
    OperatorView view;
    view.resize(1100, 700);
    view.setRun(test::makeAttributedRun());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.selectOp(QStringLiteral("aten::mm")));
    selectRow(view.kernelsTable(), 0);
    QCOMPARE(column(view.launchingOpsTable(), KernelOpLinkModel::NameColumn),
             (QStringList{QStringLiteral("aten::addmm"), QStringLiteral("aten::mm")}));
    QCOMPARE(column(view.launchingOpsTable(), KernelOpLinkModel::ShareColumn),
             (QStringList{QStringLiteral("85.7 %"), QStringLiteral("14.3 %")}));
    // Double-click a launching op: it becomes the selected op above.
    const QModelIndex addmm = view.launchingOpsTable()->model()->index(0, 0);
    const QPoint at = view.launchingOpsTable()->visualRect(addmm).center();
    QTest::mouseClick(view.launchingOpsTable()->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(view.launchingOpsTable()->viewport(), Qt::LeftButton, {}, at);
    const QModelIndexList selected = view.opsTable()->selectionModel()->selectedRows();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected.front().data(OpsModel::OpNameRole).toString(), QStringLiteral("aten::addmm"));
}

void TestOperatorView::unattributedLine()
{
    OperatorView view;
    view.setRun(test::makeAttributedRun());
    const QString line = view.summaryLabel()->text();
    QVERIFY2(line.contains(QStringLiteral("unattributed 500 µs (5.0 %)")), qPrintable(line));
    QVERIFY2(line.contains(QLatin1String("replayed by a graph with no launch to follow")), qPrintable(line));
    QVERIFY2(line.contains(QLatin1String("time containment")), qPrintable(line));
    view.setScopeIndex(1);
    QVERIFY2(view.summaryLabel()->text().contains(QStringLiteral("unattributed 250 µs")),
             qPrintable(view.summaryLabel()->text()));
}

void TestOperatorView::scopeKeepsSelection()
{
    OperatorView view;
    view.resize(1100, 700);
    view.setRun(test::makeAttributedRun());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.scopeCombo()->count(), 3);
    QCOMPARE(view.scopeCombo()->itemText(2), QStringLiteral("ProfilerStep#2"));
    QVERIFY(view.selectOp(QStringLiteral("aten::addmm")));
    view.scopeCombo()->setCurrentIndex(1);
    QCOMPARE(view.opsModel()->scopeIndex(), 1);
    QCOMPARE(column(view.kernelsTable(), KernelOpLinkModel::DeviceTimeColumn),
             (QStringList{QStringLiteral("3.000"), QStringLiteral("1.000")}));
    view.scopeCombo()->setCurrentIndex(2);
    QCOMPARE(view.opsTable()->model()->rowCount(), 4); // step 2 ran no ReLU (one row per op name)
}

void TestOperatorView::filterIsDebounced()
{
    OperatorView view;
    view.setRun(test::makeAttributedRun());
    QTest::keyClicks(view.filterEdit(), QStringLiteral("mm"));
    QCOMPARE(view.opsTable()->model()->rowCount(), 5); // not yet
    QTRY_COMPARE_WITH_TIMEOUT(view.opsTable()->model()->rowCount(), 2, 2000);  // aten::addmm, aten::mm
}

void TestOperatorView::flameFrameFilters()
{
    OperatorView view;
    view.setRun(test::makeAttributedRun());
    view.showFrame(QStringLiteral("aten::relu"), FrameKind::Op);
    QCOMPARE(view.opsTable()->model()->rowCount(), 1);
    QCOMPARE(column(view.kernelsTable(), KernelOpLinkModel::NameColumn), QStringList{test::reluKernel()});
    view.showFrame(test::gemmKernelB(), FrameKind::GpuEvent);
    QCOMPARE(column(view.launchingOpsTable(), KernelOpLinkModel::NameColumn),
             QStringList{QStringLiteral("aten::addmm")});
    view.showFrame(QStringLiteral("nn.Module: Model_0"), FrameKind::Module);
    QCOMPARE(view.opsTable()->model()->rowCount(), 5);
}

/// The wiring the window uses: a click on a flame graph frame filters the Operator view.
void TestOperatorView::flameClickReachesOperatorView()
{
    FlameGraph flame;
    OperatorView ops;
    connect(&flame, &FlameGraph::frameSelected, &ops, &OperatorView::showFrame);
    const auto run = test::makeAttributedRun();
    flame.resize(1000, 400);
    flame.setRun(run);
    ops.setRun(run);
    flame.show();
    QVERIFY(QTest::qWaitForWindowExposed(&flame));
    const auto clickOn = [&flame](const QString &name) {
        for (const FlameGraph::Box &b : flame.boxes())
            if (flame.tree()->nodes[std::size_t(b.node)].name == name) {
                QTest::mouseClick(flame.canvas(), Qt::LeftButton, {}, b.rect.center().toPoint());
                return true;
            }
        return false;
    };
    QVERIFY(clickOn(QStringLiteral("aten::relu")));
    QCOMPARE(column(ops.opsTable(), OpsModel::NameColumn), QStringList{QStringLiteral("aten::relu")});
    QCOMPARE(column(ops.kernelsTable(), KernelOpLinkModel::NameColumn), QStringList{test::reluKernel()});
    QVERIFY(clickOn(test::reluKernel()));
    QCOMPARE(column(ops.launchingOpsTable(), KernelOpLinkModel::NameColumn), QStringList{QStringLiteral("aten::relu")});
}

void TestOperatorView::emptyState()
{
    OperatorView view;
    QCOMPARE(view.summaryLabel()->text(), QStringLiteral("No run is open."));
    auto run = std::make_shared<RunAnalysis>();
    run->torch.file.relativePath = QStringLiteral("torch_profile.json");
    view.setRun(run);
    QVERIFY(view.summaryLabel()->text().contains(QLatin1String("no CPU ops")));
    QCOMPARE(view.opsTable()->model()->rowCount(), 0);
    QVERIFY(!view.scopeCombo()->isEnabled());
    view.setRun(test::makeAttributedRun());
    QCOMPARE(view.opsTable()->model()->rowCount(), 5);
    view.setRun(nullptr);
    QCOMPARE(view.opsTable()->model()->rowCount(), 0);
}

void TestOperatorView::moduleTree()
{
    ModuleTreeView view;
    QVERIFY(view.noteLabel()->text().contains(QLatin1String("No run")));
    view.setRun(test::makeAttributedRun());
    QAbstractItemModel *model = view.tree()->model();
    QCOMPARE(model->rowCount(), 2);
    // Sorted by device time: the model before the optimizer.
    QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("nn.Module: Model_0"));
    QCOMPARE(model->index(0, 0, model->index(0, 0)).data().toString(), QStringLiteral("nn.Module: Linear_0"));
    QVERIFY(view.tree()->isExpanded(model->index(0, 0)));
    view.scopeCombo()->setCurrentIndex(2);
    QCOMPARE(model->index(0, ModuleTreeModel::DeviceTimeColumn).data().toString(), QStringLiteral("4.250"));
    TraceAttribution noModules = test::makeAttribution();
    noModules.wholeTrace.modules.children.clear();
    view.setAttribution(std::make_shared<const TraceAttribution>(noModules));
    QCOMPARE(model->rowCount(), 0);
    QVERIFY(view.noteLabel()->text().contains(QLatin1String("with_modules")));
}

void TestOperatorView::kernelsPerStepColumns_data()
{
    QTest::addColumn<bool>("withSteps");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("display");
    // The GEMM: 400 calls and 4 s over the whole trace; 2 GPUs × 4 steps.
    QTest::newRow("calls per step") << true << int(RunModel::CallsPerStepColumn) << QStringLiteral("50.0");
    QTest::newRow("time per step") << true << int(RunModel::TimePerStepColumn) << QStringLiteral("500 ms");
    QTest::newRow("trace total unchanged") << true << int(RunModel::TotalTimeColumn) << QStringLiteral("4.000 s");
    QTest::newRow("no step count: unknown") << false << int(RunModel::TimePerStepColumn) << QStringLiteral("—");
}

void TestOperatorView::kernelsPerStepColumns()
{
    QFETCH(bool, withSteps);
    QFETCH(int, column);
    QFETCH(QString, display);
    RunModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.addRun(withSteps ? runWithSteps() : test::makeFakeRun());
    const QModelIndex cell = model.index(0, column, model.runIndex(0));
    QCOMPARE(cell.data().toString(), display);
    if (!withSteps) {
        QVERIFY(std::isnan(cell.data(SortRole).toDouble()));
        QVERIFY(!cell.data(Qt::ToolTipRole).toString().isEmpty());
    }
    QVERIFY(
        model.headerData(RunModel::TotalTimeColumn, Qt::Horizontal).toString().contains(QLatin1String("whole trace")));
    QVERIFY(
        model.headerData(RunModel::TimePerStepColumn, Qt::Horizontal).toString().contains(QLatin1String("per step")));
}

void TestOperatorView::kernelsCopyAndLaunchingOps()
{
    RunModel model;
    model.addRun(runWithSteps());
    KernelsView view;
    view.resize(900, 300);
    view.setModel(&model);
    view.setRootIndex(model.runIndex(0));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTableView *table = view.table();
    // Sorted by total time: the 4 s GEMM first.
    const QModelIndex first = table->model()->index(0, RunModel::NameColumn, table->rootIndex());
    QCOMPARE(first.data(Qt::ToolTipRole).toString(), QStringLiteral("Cijk_gemm_fp16_tuned"));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(first).center());
    QTest::keySequence(table, QKeySequence::Copy);
    const QStringList lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines[0].startsWith(QLatin1String("Kernel\tClass\tCalls whole trace\tCalls per step")),
             qPrintable(lines[0]));
    QVERIFY2(lines[1].startsWith(QLatin1String("Cijk_gemm_fp16_tuned\tGEMM\t400\t50.0\t4.000 s\t500 ms")),
             qPrintable(lines[1]));
    QCOMPARE(view.kernelNameAt(first), QStringLiteral("Cijk_gemm_fp16_tuned"));

    QSignalSpy requested(&view, &KernelsView::launchingOpsRequested);
    // The context menu runs its own loop: pick "Show launching ops" from it once it shows.
    QTimer::singleShot(100, this, [] {
        auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
        QVERIFY(menu);
        for (QAction *action : menu->actions())
            if (action->text() == QLatin1String("Show launching ops"))
                action->trigger();
        menu->close();
    });
    emit table->customContextMenuRequested(table->visualRect(first).center());
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.at(0).at(0).toString(), QStringLiteral("Cijk_gemm_fp16_tuned"));
}

void TestOperatorView::grabForALook()
{
    const QString dir = qEnvironmentVariable("GOBLIN_TEST_GRAB_DIR");
    if (dir.isEmpty())
        QSKIP("set GOBLIN_TEST_GRAB_DIR to keep pictures");
    RunModel runs;
    runs.addRun(runWithSteps());
    for (const bool dark : {false, true}) {
        const QString suffix = dark ? QStringLiteral("dark") : QStringLiteral("light");
        const QPalette palette = dark ? darkPalette() : QApplication::style()->standardPalette();
        OperatorView ops;
        ops.setPalette(palette);
        ops.setAutoFillBackground(true);
        ops.resize(1100, 650);
        ops.setRun(test::makeAttributedRun());
        ops.show();
        QVERIFY(QTest::qWaitForWindowExposed(&ops));
        QVERIFY(ops.selectOp(QStringLiteral("aten::addmm")));
        selectRow(ops.kernelsTable(), 0);
        QCoreApplication::processEvents();
        QVERIFY(ops.grab().save(dir + QStringLiteral("/operatorview-%1.png").arg(suffix)));

        ModuleTreeView modules;
        modules.setPalette(palette);
        modules.setAutoFillBackground(true);
        modules.resize(800, 300);
        modules.setRun(test::makeAttributedRun());
        modules.show();
        QVERIFY(QTest::qWaitForWindowExposed(&modules));
        modules.tree()->expandAll();
        QCoreApplication::processEvents();
        QVERIFY(modules.grab().save(dir + QStringLiteral("/moduletree-%1.png").arg(suffix)));

        KernelsView kernels;
        kernels.setPalette(palette);
        kernels.setAutoFillBackground(true);
        kernels.resize(1100, 250);
        kernels.setModel(&runs);
        kernels.setRootIndex(runs.runIndex(0));
        kernels.show();
        QVERIFY(QTest::qWaitForWindowExposed(&kernels));
        QCoreApplication::processEvents();
        QVERIFY(kernels.grab().save(dir + QStringLiteral("/kernelsview-%1.png").arg(suffix)));
    }
}

/// A real trace through the real loader, for a look (never run by ctest: it reads no fixture).
void TestOperatorView::realRunForALook()
{
    const QString path = qEnvironmentVariable("GOBLIN_TEST_REAL_RUN");
    const QString dir = qEnvironmentVariable("GOBLIN_TEST_GRAB_DIR");
    if (path.isEmpty() || dir.isEmpty())
        QSKIP("set GOBLIN_TEST_REAL_RUN (a run folder or trace) and GOBLIN_TEST_GRAB_DIR");
    const LoadResult loaded = loadRun(path);
    QVERIFY2(loaded.run, qPrintable(loaded.error));
    const TraceAttribution &a = loaded.run->torch.attribution;
    qInfo("available %d, link %s, ops %zu, steps %zu, gpu %lld ns, attributed %lld ns, launch nodes %zu",
          int(a.available), qPrintable(a.linkMethod), a.wholeTrace.ops.size(), a.steps.size(),
          qlonglong(a.wholeTrace.gpuTimeNs), qlonglong(a.wholeTrace.attributedNs), a.wholeTrace.launches.nodes.size());
    if (!a.wholeTrace.launches.nodes.empty()) {
        const LaunchNode &root = a.wholeTrace.launches.nodes.front();
        qint64 childGpu = 0;
        for (std::size_t i = 0; i < root.children.size(); ++i) {
            const int c = root.children[i];
            const LaunchNode &child = a.wholeTrace.launches.nodes[std::size_t(c)];
            childGpu += child.gpuNs;
            if (i < 5)
                qInfo("  root child %s (%s): gpu %lld ns", qPrintable(child.name),
                      qPrintable(frameKindName(child.kind)), qlonglong(child.gpuNs));
        }
        qInfo("launch root: gpu %lld ns, host %lld ns, children %zu with gpu %lld ns", qlonglong(root.gpuNs),
              qlonglong(root.hostNs), root.children.size(), qlonglong(childGpu));
    }
    const QString name = QFileInfo(path).completeBaseName().section(QLatin1Char('.'), 0, 0);
    OperatorView ops;
    ops.resize(1300, 700);
    ops.setRun(loaded.run);
    ops.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ops));
    if (ops.opsTable()->model()->rowCount() > 0) {
        selectRow(ops.opsTable(), 0);
        if (ops.kernelsTable()->model()->rowCount() > 0)
            selectRow(ops.kernelsTable(), 0);
    }
    QCoreApplication::processEvents();
    QVERIFY(ops.grab().save(dir + QStringLiteral("/real-%1-operatorview.png").arg(name)));
    ModuleTreeView modules;
    modules.resize(1000, 500);
    modules.setRun(loaded.run);
    modules.show();
    QVERIFY(QTest::qWaitForWindowExposed(&modules));
    QCoreApplication::processEvents();
    QVERIFY(modules.grab().save(dir + QStringLiteral("/real-%1-moduletree.png").arg(name)));
    FlameGraph flame;
    flame.resize(1300, 600);
    flame.setRun(loaded.run);
    flame.show();
    QVERIFY(QTest::qWaitForWindowExposed(&flame));
    QCoreApplication::processEvents();
    QVERIFY(flame.grab().save(dir + QStringLiteral("/real-%1-flamegraph.png").arg(name)));
    qInfo("flame graph: %zu boxes; note: %s", flame.boxes().size(), qPrintable(flame.emptyNote()));
}

QTEST_MAIN(TestOperatorView)
#include "tst_operatorview.moc"
