// Item models and proxies of the window (issue 3): QAbstractItemModelTester attached before any
// data is set, raw numbers under SortRole, and no resets on profile or threshold changes.

#include "diagnosticsmodel.h"
#include "kernelfilterproxy.h"
#include "liveanalysis.h"
#include "modelroles.h"
#include "ranksmodel.h"
#include "runmodel.h"
#include "telemetrymodel.h"
#include "wastebudgetmodel.h"
#include "windowfixture.h"
#include "workbenchsession.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>
#include <cmath>

using namespace goblin;

namespace {

constexpr auto kTesterMode = QAbstractItemModelTester::FailureReportingMode::QtTest;

QStringList kernelNamesInProxyOrder(const QAbstractItemModel &proxy, const QModelIndex &root)
{
    QStringList names;
    for (int row = 0; row < proxy.rowCount(root); ++row)
        names << proxy.index(row, RunModel::NameColumn, root).data().toString();
    return names;
}

} // namespace

class TestItemModels : public QObject
{
    Q_OBJECT
private slots:
    void runModelShape();
    void runModelKernelCells_data();
    void runModelKernelCells();
    void runModelProfileSwitchIsDataChanged();
    void runModelRemoveKeepsKernelIndexesValid();
    void runModelReloadReplacesInPlace();
    void kernelProxyFilterAndSort();
    void telemetryModel();
    void diagnosticsModel();
    void wasteBudgetModel();
    void wasteBudgetModelStates_data();
    void wasteBudgetModelStates();
    void wasteBudgetModelCaveatAndStep();
    void ranksModelUnknownBuckets();
    void sessionCurrentRun();
    void sessionThresholdChangeResetsNothing();
};

void TestItemModels::runModelShape()
{
    RunModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    QCOMPARE(model.rowCount(), 0);
    model.addRun(test::makeFakeRun(QStringLiteral("a")));
    model.addRun(test::makeFakeRun(QStringLiteral("b")));
    QCOMPARE(model.rowCount(), 2);
    const QModelIndex runB = model.runIndex(1);
    QCOMPARE(runB.data().toString(), QStringLiteral("b"));
    QCOMPARE(model.rowCount(runB), 5);
    QCOMPARE(model.rowCount(model.runIndex(1, RunModel::CallsColumn)), 0);  // only column 0 has children
    const QModelIndex kernel = model.index(2, RunModel::NameColumn, runB);
    QCOMPARE(kernel.parent(), runB);
    QCOMPARE(model.runRowOf(kernel), 1);
    QCOMPARE(model.rowCount(kernel), 0);
}

void TestItemModels::runModelKernelCells_data()
{
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("column");
    QTest::addColumn<QVariant>("sortValue");
    QTest::addColumn<QString>("display");

    QTest::newRow("name") << 0 << int(RunModel::NameColumn) << QVariant(QStringLiteral("Cijk_gemm_fp16_tuned"))
                          << QStringLiteral("Cijk_gemm_fp16_tuned");
    QTest::newRow("class gemm") << 0 << int(RunModel::ClassColumn) << QVariant(QStringLiteral("GEMM"))
                                << QStringLiteral("GEMM");
    QTest::newRow("class generic gemm") << 1 << int(RunModel::ClassColumn)
                                        << QVariant(QStringLiteral("generic GEMM")) << QStringLiteral("generic GEMM");
    QTest::newRow("class collective") << 2 << int(RunModel::ClassColumn) << QVariant(QStringLiteral("collective"))
                                      << QStringLiteral("collective");
    QTest::newRow("calls") << 3 << int(RunModel::CallsColumn) << QVariant(qulonglong(1000)) << QStringLiteral("1000");
    QTest::newRow("total") << 0 << int(RunModel::TotalTimeColumn) << QVariant(qlonglong(4'000'000'000))
                           << QStringLiteral("4.000 s");
    QTest::newRow("mean") << 0 << int(RunModel::MeanColumn) << QVariant(10'000'000.0) << QStringLiteral("10.0 ms");
    QTest::newRow("min") << 3 << int(RunModel::MinColumn) << QVariant(qlonglong(90'000)) << QStringLiteral("90.0 µs");
    QTest::newRow("max") << 3 << int(RunModel::MaxColumn) << QVariant(qlonglong(110'000)) << QStringLiteral("110 µs");
    // 4 s of 5.61 s kernel time in the workbench reading.
    QTest::newRow("percent") << 0 << int(RunModel::PercentGpuColumn) << QVariant(100.0 * 4.0 / 5.61)
                             << QStringLiteral("71.30 %");
}

void TestItemModels::runModelKernelCells()
{
    QFETCH(int, row);
    QFETCH(int, column);
    QFETCH(QVariant, sortValue);
    QFETCH(QString, display);
    RunModel model;
    model.addRun(test::makeFakeRun());
    const QModelIndex index = model.index(row, column, model.runIndex(0));
    QCOMPARE(index.data(Qt::DisplayRole).toString(), display);
    const QVariant sort = index.data(SortRole);
    if (sortValue.typeId() == QMetaType::Double)
        QVERIFY(qFuzzyCompare(sort.toDouble(), sortValue.toDouble()));
    else
        QCOMPARE(sort, sortValue);
}

void TestItemModels::runModelProfileSwitchIsDataChanged()
{
    RunModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.addRun(test::makeFakeRun());
    const QModelIndex root = model.runIndex(0);
    QCOMPARE(model.index(4, RunModel::CallsColumn, root).data(SortRole).toULongLong(), 10ull);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setProfile(HeuristicsProfile::Reference);
    QCOMPARE(reset.count(), 0);
    QVERIFY(changed.count() >= 1);
    // The name only the workbench reading used has no calls in the reference reading.
    QCOMPARE(model.index(4, RunModel::CallsColumn, root).data(SortRole).toULongLong(), 0ull);
    QCOMPARE(model.index(4, RunModel::MeanColumn, root).data().toString(), QString());
    bool kernelRangeSeen = false;
    for (const QList<QVariant> &args : changed) {
        const auto topLeft = args.at(0).value<QModelIndex>();
        const auto bottomRight = args.at(1).value<QModelIndex>();
        if (topLeft.parent() == root && topLeft.row() == 0 && bottomRight.row() == 4)
            kernelRangeSeen = true;
    }
    QVERIFY(kernelRangeSeen);
}

void TestItemModels::runModelRemoveKeepsKernelIndexesValid()
{
    RunModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.addRun(test::makeFakeRun(QStringLiteral("a")));
    model.addRun(test::makeFakeRun(QStringLiteral("b")));
    model.addRun(test::makeFakeRun(QStringLiteral("c")));
    const QPersistentModelIndex kernelOfC = model.index(2, RunModel::NameColumn, model.runIndex(2));
    model.removeRun(0);
    QVERIFY(kernelOfC.isValid());
    QCOMPARE(kernelOfC.parent().row(), 1);
    QCOMPARE(kernelOfC.parent().data().toString(), QStringLiteral("c"));
    QCOMPARE(kernelOfC.data().toString(), QStringLiteral("rccl_allreduce_kernel"));
}

void TestItemModels::runModelReloadReplacesInPlace()
{
    RunModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.addRun(test::makeFakeRun(QStringLiteral("a")));
    model.addRun(test::makeFakeRun(QStringLiteral("b")));
    auto reloaded = test::makeFakeRun(QStringLiteral("a"));
    QCOMPARE(model.addRun(reloaded), 0);
    QCOMPARE(model.runCount(), 2);
    QCOMPARE(model.run(0), std::shared_ptr<const RunAnalysis>(reloaded));
}

void TestItemModels::kernelProxyFilterAndSort()
{
    RunModel model;
    KernelFilterProxy proxy;
    QAbstractItemModelTester sourceTester(&model, kTesterMode);
    proxy.setSourceModel(&model);
    QAbstractItemModelTester proxyTester(&proxy, kTesterMode);
    model.addRun(test::makeFakeRun());
    model.setProfile(HeuristicsProfile::Reference);

    const QModelIndex root = proxy.mapFromSource(model.runIndex(0));
    QVERIFY(root.isValid());
    QCOMPARE(proxy.rowCount(root), 4);  // the unused name is hidden
    proxy.setShowUnused(true);
    QCOMPARE(proxy.rowCount(root), 5);
    proxy.setShowUnused(false);

    proxy.sort(RunModel::TotalTimeColumn, Qt::DescendingOrder);
    QCOMPARE(kernelNamesInProxyOrder(proxy, root),
             QStringList({"Cijk_gemm_fp16_tuned", "hipblaslt_generic_gemm_bf16", "rccl_allreduce_kernel",
                          "elementwise_add"}));
    // Calls sort numerically (1000 > 400 > 100 > 50), not as text.
    proxy.sort(RunModel::CallsColumn, Qt::DescendingOrder);
    QCOMPARE(kernelNamesInProxyOrder(proxy, root),
             QStringList({"elementwise_add", "Cijk_gemm_fp16_tuned", "hipblaslt_generic_gemm_bf16",
                          "rccl_allreduce_kernel"}));

    proxy.setNameFilter(QStringLiteral("GEMM"));
    QCOMPARE(proxy.rowCount(), 1);  // the run row always passes
    QCOMPARE(kernelNamesInProxyOrder(proxy, proxy.mapFromSource(model.runIndex(0))),
             QStringList({"Cijk_gemm_fp16_tuned", "hipblaslt_generic_gemm_bf16"}));
    proxy.setNameFilter(QStringLiteral("no such kernel"));
    QCOMPARE(proxy.rowCount(proxy.mapFromSource(model.runIndex(0))), 0);
    proxy.setNameFilter(QString());
    // Switching the profile back shows the workbench-only name without a reset.
    QSignalSpy reset(&proxy, &QAbstractItemModel::modelReset);
    model.setProfile(HeuristicsProfile::Workbench);
    QCOMPARE(proxy.rowCount(proxy.mapFromSource(model.runIndex(0))), 5);
    QCOMPARE(reset.count(), 0);
}

void TestItemModels::telemetryModel()
{
    TelemetryModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(SortRole);
    QAbstractItemModelTester proxyTester(&proxy, kTesterMode);
    model.setRun(test::makeFakeRun());
    QCOMPARE(model.rowCount(), 40);
    QCOMPARE(model.index(0, TelemetryModel::UtilColumn).data().toString(), QStringLiteral("10.0 %"));
    QCOMPARE(model.index(23, TelemetryModel::UtilColumn).data().toString(), QStringLiteral("N/A"));
    QVERIFY(std::isnan(model.index(23, TelemetryModel::UtilColumn).data(RawValueRole).toDouble()));
    QCOMPARE(model.index(21, TelemetryModel::GpuColumn).data(SortRole).toInt(), 1);
    QCOMPARE(model.index(1, TelemetryModel::HbmUsedColumn).data(SortRole).toDouble(), 62.0);
    proxy.sort(TelemetryModel::UtilColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, TelemetryModel::UtilColumn).data(SortRole).toDouble(), 10.0 + 4.0 * 19 + 1);
    QCOMPARE(proxy.index(39, TelemetryModel::UtilColumn).data().toString(), QStringLiteral("N/A"));
    model.setRun(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestItemModels::diagnosticsModel()
{
    DiagnosticsModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.setRun(test::makeFakeRun());
    QCOMPARE(model.rowCount(), 4);  // two input diagnostics, one warning per profile
    QCOMPARE(model.index(0, DiagnosticsModel::FileColumn).data().toString(), QStringLiteral("trace.csv"));
    QCOMPARE(model.index(0, DiagnosticsModel::LineColumn).data().toString(), QStringLiteral("17"));
    QCOMPARE(model.index(1, DiagnosticsModel::LineColumn).data().toString(), QString());  // whole file
    QCOMPARE(model.index(2, DiagnosticsModel::SourceColumn).data().toString(), QStringLiteral("workbench profile"));
    QCOMPARE(model.index(3, DiagnosticsModel::MessageColumn).data().toString(),
             QStringLiteral("reference profile warning"));
    QCOMPARE(model.countAtLeast(Severity::Warning), 3);
    model.setRun(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestItemModels::wasteBudgetModel()
{
    WasteBudgetModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    auto run = test::makeFakeRun();
    Thresholds thresholds;
    thresholds.hbmTargetPct = 80.0;
    const WasteBudget expected = computeWasteBudget(run->workbench.budgetInputs, thresholds);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setResult(expected, HeuristicsProfile::Workbench);
    QCOMPARE(reset.count(), 0);
    QCOMPARE(changed.count(), 1);
    // The state marks and the numbers change together; the bucket names never do.
    QCOMPARE(changed.at(0).at(0).value<QModelIndex>().column(), int(WasteBudgetModel::StateColumn));
    for (int i = 0; i < WasteBudget::BucketCount; ++i) {
        QCOMPARE(model.index(i, WasteBudgetModel::SecondsColumn).data(SortRole).toDouble(), expected.bucket(i));
        QCOMPARE(model.index(i, WasteBudgetModel::PercentColumn).data(SortRole).toDouble(),
                 100.0 * expected.bucket(i) / 0.5);
        QVERIFY(!model.index(i, WasteBudgetModel::FormulaColumn).data().toString().isEmpty());
    }
    QCOMPARE(model.index(WasteBudgetModel::RowCount - 1, WasteBudgetModel::SecondsColumn).data(SortRole).toDouble(),
             0.5);
    QVERIFY(!model.index(kUnattributedRow, WasteBudgetModel::BucketColumn).data(WasteBudgetModel::ShownRole).toBool());
    QCOMPARE(model.index(kStepTimeRow, WasteBudgetModel::BucketColumn).data().toString(), QStringLiteral("Step time"));
    // Utilisation not measured: the rest of the step moves from useful GPU to its own row.
    BudgetInputs unmeasured = run->workbench.budgetInputs;
    unmeasured.gpuUtilKnown = false;
    const WasteBudget rest = computeWasteBudget(unmeasured, thresholds);
    model.setResult(rest, HeuristicsProfile::Workbench);
    QCOMPARE(reset.count(), 0);
    QVERIFY(model.index(kUnattributedRow, WasteBudgetModel::BucketColumn).data(WasteBudgetModel::ShownRole).toBool());
    QCOMPARE(model.index(kUnattributedRow, WasteBudgetModel::SecondsColumn).data(SortRole).toDouble(), rest.unattributed);
    QCOMPARE(rest.unattributed, 0.5 - rest.commExcess - rest.memoryHeadroom);  // nothing else has an input
    // Useful GPU is unknown, not 0 (issue 23): no number, "—", no bar.
    QCOMPARE(rest.state(0), ValueState::Unknown);
    QVERIFY(std::isnan(model.index(0, WasteBudgetModel::SecondsColumn).data(SortRole).toDouble()));
    QCOMPARE(model.index(0, WasteBudgetModel::SecondsColumn).data().toString(), QStringLiteral("—"));
    QVERIFY(!model.index(0, WasteBudgetModel::PercentColumn).data(FractionRole).isValid());
    QVERIFY(model.index(kUnattributedRow, WasteBudgetModel::SecondsColumn)
                .data(FormulaRole).toString().startsWith(QStringLiteral("not measured")));
    model.setResult(expected, HeuristicsProfile::Workbench);
    // data wait counts (util 25 % < 30 %, host busy 0.6 > 0.5) and its formula says why.
    QVERIFY(expected.dataWait > 0.0);
    QVERIFY(model.index(1, WasteBudgetModel::FormulaColumn).data().toString().contains(QStringLiteral("25.0 % < 30.0 %")));
}

/// A budget whose rows carry the given state: the cells say the number, or "—" when unknown,
/// whatever number the budget holds there (issue 23: unknown is never shown as 0).
void TestItemModels::wasteBudgetModelStates_data()
{
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("state");
    QTest::addColumn<double>("seconds");
    QTest::addColumn<QString>("secondsText");
    QTest::addColumn<QString>("percentText");
    QTest::addColumn<QString>("mark");
    const auto M = int(ValueState::Measured), E = int(ValueState::Estimated), U = int(ValueState::Unknown);
    QTest::newRow("measured data wait") << 1 << M << 0.1 << QStringLiteral("100 ms") << QStringLiteral("20.0 %") << "M";
    QTest::newRow("estimated precision path, zero") << 5 << E << 0.0 << QStringLiteral("0 s") << QStringLiteral("0.0 %") << "E";
    QTest::newRow("unknown memory headroom, zero") << 4 << U << 0.0 << QStringLiteral("—") << QStringLiteral("—") << "?";
    QTest::newRow("unknown host gap holding a number") << 2 << U << 0.3 << QStringLiteral("—") << QStringLiteral("—") << "?";
    QTest::newRow("measured unattributed") << int(kUnattributedRow) << M << 0.05 << QStringLiteral("50.0 ms")
                                          << QStringLiteral("10.0 %") << "M";
}

void TestItemModels::wasteBudgetModelStates()
{
    QFETCH(int, row);
    QFETCH(int, state);
    QFETCH(double, seconds);
    QFETCH(QString, secondsText);
    QFETCH(QString, percentText);
    QFETCH(QString, mark);
    WasteBudgetModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    WasteBudget b;
    b.terms.stepS = 0.5;
    b.terms.measured = true;
    b.states.fill(ValueState::Measured);
    b.states[std::size_t(row)] = ValueState(state);
    switch (row) {
    case 1: b.dataWait = seconds; break;
    case 2: b.hostGap = seconds; break;
    case 4: b.memoryHeadroom = seconds; break;
    case 5: b.precisionPath = seconds; break;
    default: b.unattributed = seconds; break;
    }
    model.setResult(b, HeuristicsProfile::Workbench);
    const bool unknown = ValueState(state) == ValueState::Unknown;
    QCOMPARE(model.index(row, WasteBudgetModel::SecondsColumn).data().toString(), secondsText);
    QCOMPARE(model.index(row, WasteBudgetModel::PercentColumn).data().toString(), percentText);
    QCOMPARE(model.index(row, WasteBudgetModel::StateColumn).data().toString(), mark);
    QCOMPARE(model.index(row, WasteBudgetModel::BucketColumn).data(StateRole).toInt(), state);
    QCOMPARE(model.rowState(row), ValueState(state));
    const double raw = model.index(row, WasteBudgetModel::SecondsColumn).data(RawValueRole).toDouble();
    QCOMPARE(std::isnan(raw), unknown);
    if (!unknown)
        QCOMPARE(raw, seconds);
    QCOMPARE(model.index(row, WasteBudgetModel::PercentColumn).data(FractionRole).isValid(), !unknown);
    // Where the number came from, in the tooltip with the state and the formula.
    const QString source = model.index(row, WasteBudgetModel::BucketColumn).data(SourceRole).toString();
    QCOMPARE(source, bucketSource(row, b, HeuristicsProfile::Workbench));
    QVERIFY(!source.isEmpty());
    const QString tip = model.index(row, WasteBudgetModel::SecondsColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(valueStateName(ValueState(state))), qPrintable(tip));
    QVERIFY2(tip.contains(source.toHtmlEscaped()), qPrintable(tip));
    if (row == kUnattributedRow)  // not a bucket: its meaning is said
        QVERIFY2(tip.contains(bucketDefinition(row, HeuristicsProfile::Workbench, true).toHtmlEscaped()), qPrintable(tip));
    QVERIFY(model.headerData(WasteBudgetModel::StateColumn, Qt::Horizontal, Qt::ToolTipRole).toString().contains(
        QStringLiteral("unknown")));
}

/// The caveat is the source of the rows it lowered; the step time's state and scope are the
/// run's StepTimeS quantity.
void TestItemModels::wasteBudgetModelCaveatAndStep()
{
    WasteBudgetModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    Derived derived;
    derived.caveat = QStringLiteral("HIP graph replay: kernels recorded for 1 replay in 8 — idle not measured");
    derived.caveated[1] = true;
    derived.quantities[QuantityKey::StepTimeS] =
        Quantity{0.5, ValueState::Measured, QStringLiteral("mean of 3 measured step window(s)"),
                 QStringLiteral("mean of 3 step(s) × 1 device(s)")};
    model.setDerived(&derived);
    WasteBudget b;
    b.terms.stepS = 0.5;
    b.terms.measured = true;
    b.states.fill(ValueState::Estimated);
    b.states[1] = ValueState::Unknown;
    model.setResult(b, HeuristicsProfile::Workbench);
    QCOMPARE(model.rowSource(1), derived.caveat);
    QCOMPARE(model.rowSource(2), bucketSource(2, b, HeuristicsProfile::Workbench));
    QCOMPARE(model.rowState(kStepTimeRow), ValueState::Measured);
    QCOMPARE(model.index(kStepTimeRow, WasteBudgetModel::StateColumn).data().toString(), QStringLiteral("M"));
    QVERIFY(model.rowSource(kStepTimeRow).contains(QStringLiteral("mean of 3 step(s) × 1 device(s)")));
    QCOMPARE(model.index(kStepTimeRow, WasteBudgetModel::SecondsColumn).data().toString(), QStringLiteral("500 ms"));
    // Read when asked: a later recompute's caveat is what the rows say.
    derived.caveat.clear();
    QCOMPARE(model.rowSource(1), bucketSource(1, b, HeuristicsProfile::Workbench));
    model.setDerived(nullptr);
    QCOMPARE(model.rowState(kStepTimeRow), ValueState::Estimated);
}

/// The Ranks table: an unknown bucket of a rank reads "—" (NaN behind it), the straggler is the
/// rank with the most own work per step, not the longest step.
void TestItemModels::ranksModelUnknownBuckets()
{
    RanksModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    auto run = std::make_shared<RunAnalysis>();
    auto set = std::make_shared<RankSet>();
    set->kind = QStringLiteral("chrome traces");
    set->budgetIsMean = true;
    set->ranks.resize(2);
    set->ranks[0].rank = 0;
    set->ranks[0].file = QStringLiteral("rank-0.json");
    set->ranks[1].rank = 1;
    set->ranks[1].file = QStringLiteral("rank-1.json");
    run->workbench.ranks = set;
    Derived derived;
    for (int i = 0; i < 2; ++i) {
        RankResult r;
        r.inputs = &set->ranks[std::size_t(i)];
        r.measured = true;
        r.budget.terms.measured = true;
        r.budget.states.fill(ValueState::Measured);
        r.budget.states[4] = ValueState::Unknown;  // no memory telemetry
        r.budget.dataWait = 0.002;
        r.budget.memoryHeadroom = 0.0;
        derived.ranks.push_back(r);
    }
    // Rank 0 has the longest step but waits in communication; rank 1 works longest on its own.
    derived.ranks[0].stepTimeS = 0.010;
    derived.ranks[0].exposedCommSPerStep = 0.004;
    derived.ranks[1].stepTimeS = 0.009;
    derived.ranks[1].exposedCommSPerStep = 0.001;
    RankSpread spread;
    spread.ranks = 2;
    spread.ownWorkSPerStep = RankExtreme{0.006, 0.008, 1, 1};
    spread.stepTimeS = RankExtreme{0.009, 0.010, 0, 0};
    derived.spread = spread;
    model.setRun(run, derived);
    QCOMPARE(model.rowCount(), 2);
    const int headroom = RanksModel::FirstBucketColumn + 4;
    QCOMPARE(model.index(0, headroom).data().toString(), QStringLiteral("—"));
    QVERIFY(std::isnan(model.index(0, headroom).data(RawValueRole).toDouble()));
    QCOMPARE(model.index(0, headroom).data(StateRole).toInt(), int(ValueState::Unknown));
    QCOMPARE(model.index(0, RanksModel::FirstBucketColumn + 1).data(RawValueRole).toDouble(), 0.002);
    QCOMPARE(model.index(0, RanksModel::UnattributedColumn).data(RawValueRole).toDouble(), 0.0);
    QCOMPARE(model.stragglerRow(), 1);
    QVERIFY(model.index(1, RanksModel::RankColumn).data().toString().contains(QStringLiteral("straggler")));
    QVERIFY(!model.index(0, RanksModel::RankColumn).data().toString().contains(QStringLiteral("straggler")));
    QCOMPARE(model.index(1, RanksModel::OwnWorkColumn).data(RawValueRole).toDouble(), 0.009 - 0.001);
    QVERIFY(model.index(1, RanksModel::RankColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("wait")));
    QVERIFY(model.spreadText().contains(QStringLiteral("Straggler: rank 1")));
}

void TestItemModels::sessionCurrentRun()
{
    WorkbenchSession session;
    QAbstractItemModelTester t1(session.runs(), kTesterMode);
    QAbstractItemModelTester t2(session.kernelProxy(), kTesterMode);
    QAbstractItemModelTester t3(session.telemetry(), kTesterMode);
    QAbstractItemModelTester t4(session.telemetryProxy(), kTesterMode);
    QAbstractItemModelTester t5(session.diagnostics(), kTesterMode);
    QAbstractItemModelTester t6(session.budget(), kTesterMode);
    QSignalSpy current(&session, &WorkbenchSession::currentRunChanged);

    QCOMPARE(session.openRun(test::makeFakeRun(QStringLiteral("a"))), 0);
    QCOMPARE(session.openRun(test::makeFakeRun(QStringLiteral("b"))), 1);
    QCOMPARE(session.currentRow(), 1);
    QCOMPARE(session.currentRun()->runName, QStringLiteral("b"));
    QCOMPARE(session.live()->run(), session.currentRun());
    QCOMPARE(session.telemetry()->rowCount(), 40);
    QVERIFY(session.currentKernelRoot().isValid());
    QCOMPARE(session.currentKernelRoot().data().toString(), QStringLiteral("b"));

    session.setCurrentRow(0);
    QCOMPARE(session.live()->run()->runName, QStringLiteral("a"));
    session.closeRun(1);  // not current: current stays on "a"
    QCOMPARE(session.currentRow(), 0);
    QCOMPARE(session.currentRun()->runName, QStringLiteral("a"));
    session.openRun(test::makeFakeRun(QStringLiteral("c")));
    session.setCurrentRow(1);
    session.closeRun(0);  // above the current one: the current row follows
    QCOMPARE(session.currentRow(), 0);
    QCOMPARE(session.currentRun()->runName, QStringLiteral("c"));
    session.closeRun(0);
    QCOMPARE(session.currentRow(), -1);
    QVERIFY(!session.live()->run());
    QCOMPARE(session.telemetry()->rowCount(), 0);
    QCOMPARE(current.last().at(0).toInt(), -1);
}

void TestItemModels::sessionThresholdChangeResetsNothing()
{
    WorkbenchSession session;
    session.openRun(test::makeFakeRun());
    QSignalSpy resets1(session.runs(), &QAbstractItemModel::modelReset);
    QSignalSpy resets2(session.kernelProxy(), &QAbstractItemModel::modelReset);
    QSignalSpy resets3(session.budget(), &QAbstractItemModel::modelReset);
    QSignalSpy resets4(session.telemetry(), &QAbstractItemModel::modelReset);
    QSignalSpy budgetChanged(session.budget(), &QAbstractItemModel::dataChanged);
    QSignalSpy kernelsChanged(session.runs(), &QAbstractItemModel::dataChanged);
    Thresholds t = session.live()->thresholds();
    t.gpuUtilBelowPct = 20.0;  // below the run's 25 %: data wait drops to 0
    session.live()->setThresholds(t);
    session.live()->flush();
    QCOMPARE(resets1.count() + resets2.count() + resets3.count() + resets4.count(), 0);
    QCOMPARE(kernelsChanged.count(), 0);  // kernel statistics do not depend on thresholds
    QCOMPARE(budgetChanged.count(), 1);
    QCOMPARE(session.budget()->index(1, WasteBudgetModel::SecondsColumn).data(SortRole).toDouble(), 0.0);
}

QTEST_GUILESS_MAIN(TestItemModels)
#include "tst_itemmodels.moc"
