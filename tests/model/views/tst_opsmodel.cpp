// The Operator view's models (issue 24 item 2): one row per op (name and shapes) of a scope,
// times in the unit the header names, "—" where a value is unknown, and the op ↔ kernel links
// from both sides. QAbstractItemModelTester is attached before any data is set.

#include "attributionfixture.h"
#include "attributiontext.h"
#include "kerneloplinkmodel.h"
#include "modelroles.h"
#include "opsmodel.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace goblin;

namespace
{

constexpr auto kTesterMode = QAbstractItemModelTester::FailureReportingMode::QtTest;

std::shared_ptr<const TraceAttribution> attribution()
{
    return std::make_shared<const TraceAttribution>(test::makeAttribution());
}

int rowOf(const OpsModel &model, const QString &name, const QString &shapes)
{
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.index(row, OpsModel::NameColumn).data().toString() == name &&
            model.index(row, OpsModel::ShapesColumn).data().toString() == shapes)
            return row;
    return -1;
}

} // namespace

class TestOpsModel : public QObject
{
    Q_OBJECT
private slots:
    void cells_data();
    void cells();
    void headersNameTheUnit();
    void scopes_data();
    void scopes();
    void noAttributionHasNoRows();
    void noGpuTimeIsUnknownShare();
    void sortAndFilterThroughProxy();
    void groupByName_data();
    void groupByName();
    void linksFromBothSides_data();
    void linksFromBothSides();
    void summaryLine();
    void selfInGpuIdleWhenMeasured();
};

void TestOpsModel::selfInGpuIdleWhenMeasured()
{
    TraceAttribution a = test::makeAttribution();
    a.gpuIdleMeasured = true;
    for (OpStats &op : a.wholeTrace.ops)
        op.hostSelfGpuIdleNs = op.hostSelfNs / 2;
    OpsModel model;
    model.setGroupByShapes(true);  // flat rows per name and shapes (the grouped tree: tst_tablesread)
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.setAttribution(std::make_shared<const TraceAttribution>(a));
    const int row = rowOf(model, QStringLiteral("aten::addmm"), QStringLiteral("[[4096], [32, 1024], [1024, 4096]]"));
    QVERIFY(row >= 0);
    const QModelIndex index = model.index(row, OpsModel::HostSelfGpuIdleColumn);
    QCOMPARE(index.data().toString(), QStringLiteral("0.900"));
    QCOMPARE(index.data(SortRole), QVariant(qlonglong(900'000)));
}

void TestOpsModel::cells_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("shapes");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("display");
    QTest::addColumn<QVariant>("sortValue");

    const QString addmm = QStringLiteral("aten::addmm");
    const QString firstShapes = QStringLiteral("[[4096], [32, 1024], [1024, 4096]]");
    QTest::newRow("calls") << addmm << firstShapes << int(OpsModel::CallsColumn) << QStringLiteral("4")
                           << QVariant(qlonglong(4));
    QTest::newRow("host self in ms") << addmm << firstShapes << int(OpsModel::HostSelfColumn) << QStringLiteral("1.800")
                                     << QVariant(qlonglong(1'800'000));
    QTest::newRow("host total in ms") << addmm << firstShapes << int(OpsModel::HostTotalColumn)
                                      << QStringLiteral("2.000") << QVariant(qlonglong(2'000'000));
    QTest::newRow("device self in ms") << addmm << firstShapes << int(OpsModel::DeviceSelfColumn)
                                       << QStringLiteral("6.000") << QVariant(qlonglong(6'000'000));
    QTest::newRow("device total of a parent op")
        << QStringLiteral("aten::linear") << QStringLiteral("[[32, 1024], [4096, 1024], [4096]]")
        << int(OpsModel::DeviceTotalColumn) << QStringLiteral("6.000") << QVariant(qlonglong(6'000'000));
    QTest::newRow("kernels") << addmm << firstShapes << int(OpsModel::KernelsColumn) << QStringLiteral("4")
                             << QVariant(qlonglong(4));
    // 6 ms of the scope's 10 ms GPU time (unattributed time included in the denominator).
    QTest::newRow("share of GPU time") << addmm << firstShapes << int(OpsModel::GpuShareColumn)
                                       << QStringLiteral("60.00 %") << QVariant(60.0);
    QTest::newRow("sub-millisecond") << QStringLiteral("aten::empty") << QStringLiteral("—")
                                     << int(OpsModel::HostSelfColumn) << QStringLiteral("0.090")
                                     << QVariant(qlonglong(90'000));
    // test::makeAttribution() measured no GPU idle (gpuIdleMeasured false): unknown, never 0.
    QTest::newRow("self in GPU idle unknown") << addmm << firstShapes << int(OpsModel::HostSelfGpuIdleColumn)
                                              << QStringLiteral("—") << QVariant();
    QTest::newRow("shapes not recorded read —, sort empty")
        << QStringLiteral("aten::empty") << QStringLiteral("—") << int(OpsModel::ShapesColumn) << QStringLiteral("—")
        << QVariant(QString());
}

void TestOpsModel::cells()
{
    QFETCH(QString, name);
    QFETCH(QString, shapes);
    QFETCH(int, column);
    QFETCH(QString, display);
    QFETCH(QVariant, sortValue);
    OpsModel model;
    model.setGroupByShapes(true);  // flat rows per name and shapes (the grouped tree: tst_tablesread)
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.setAttribution(attribution());
    const int row = rowOf(model, name, shapes);
    QVERIFY(row >= 0);
    const QModelIndex index = model.index(row, column);
    QCOMPARE(index.data().toString(), display);
    QCOMPARE(index.data(SortRole), sortValue);
    QCOMPARE(index.data(OpsModel::OpNameRole).toString(), name);
}

void TestOpsModel::headersNameTheUnit()
{
    OpsModel model;
    model.setGroupByShapes(true);  // flat rows per name and shapes (the grouped tree: tst_tablesread)
    for (int column :
         {OpsModel::HostSelfColumn, OpsModel::HostTotalColumn, OpsModel::HostSelfGpuIdleColumn, OpsModel::DeviceSelfColumn,
          OpsModel::DeviceTotalColumn})
        QVERIFY2(model.headerData(column, Qt::Horizontal).toString().endsWith(QLatin1String("(ms)")),
                 qPrintable(model.headerData(column, Qt::Horizontal).toString()));
    QVERIFY(!model.headerData(OpsModel::DeviceSelfColumn, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
}

void TestOpsModel::scopes_data()
{
    QTest::addColumn<int>("scope");
    QTest::addColumn<int>("rows");
    QTest::addColumn<QString>("label");
    QTest::addColumn<qlonglong>("addmmDeviceSelfNs");
    QTest::newRow("whole trace") << 0 << 6 << QStringLiteral("All steps (whole trace)") << qlonglong(6'000'000);
    QTest::newRow("step 1") << 1 << 6 << QStringLiteral("ProfilerStep#1") << qlonglong(3'000'000);
    QTest::newRow("step 2 ran no relu") << 2 << 5 << QStringLiteral("ProfilerStep#2") << qlonglong(3'000'000);
    QTest::newRow("no such step") << 3 << 0 << QString() << qlonglong(-1);
}

void TestOpsModel::scopes()
{
    QFETCH(int, scope);
    QFETCH(int, rows);
    QFETCH(QString, label);
    QFETCH(qlonglong, addmmDeviceSelfNs);
    OpsModel model;
    model.setGroupByShapes(true);  // flat rows per name and shapes (the grouped tree: tst_tablesread)
    QAbstractItemModelTester tester(&model, kTesterMode);
    const auto a = attribution();
    model.setAttribution(a);
    QCOMPARE(attributionScopeCount(*a), 3);
    model.setScopeIndex(scope);
    QCOMPARE(model.rowCount(), rows);
    QCOMPARE(attributionScopeLabel(*a, scope), label);
    if (addmmDeviceSelfNs >= 0) {
        const int row =
            rowOf(model, QStringLiteral("aten::addmm"), QStringLiteral("[[4096], [32, 1024], [1024, 4096]]"));
        QVERIFY(row >= 0);
        QCOMPARE(model.index(row, OpsModel::DeviceSelfColumn).data(SortRole).toLongLong(), addmmDeviceSelfNs);
    }
}

void TestOpsModel::noAttributionHasNoRows()
{
    OpsModel model;
    model.setGroupByShapes(true);  // flat rows per name and shapes (the grouped tree: tst_tablesread)
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.setAttribution(nullptr);
    QCOMPARE(model.rowCount(), 0);
    model.setAttribution(attribution());
    QCOMPARE(model.rowCount(), 6);
    model.setAttribution(nullptr);
    QCOMPARE(model.rowCount(), 0);

    QCOMPARE(attributionEmptyNote(nullptr), QStringLiteral("No run is open."));
    RunAnalysis run;
    QVERIFY(attributionEmptyNote(&run).contains(QLatin1String("no torch.profiler trace")));
    run.torch.file.relativePath = QStringLiteral("torch_profile.json");
    QVERIFY(attributionEmptyNote(&run).contains(QLatin1String("no CPU ops")));
    run.torch.attribution = test::makeAttribution();
    QCOMPARE(attributionEmptyNote(&run), QString());
}

void TestOpsModel::noGpuTimeIsUnknownShare()
{
    TraceAttribution a = test::makeAttribution();
    a.wholeTrace.gpuTimeNs = 0;
    OpsModel model;
    model.setGroupByShapes(true);  // flat rows per name and shapes (the grouped tree: tst_tablesread)
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.setAttribution(std::make_shared<const TraceAttribution>(a));
    const QModelIndex share = model.index(0, OpsModel::GpuShareColumn);
    QCOMPARE(share.data().toString(), QStringLiteral("—"));
    QVERIFY(std::isnan(share.data(SortRole).toDouble()));
    QVERIFY(!share.data(FractionRole).isValid());
}

void TestOpsModel::sortAndFilterThroughProxy()
{
    OpsModel model;
    model.setGroupByShapes(true);  // flat rows per name and shapes (the grouped tree: tst_tablesread)
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, kTesterMode);
    proxy.setSortRole(SortRole);
    proxy.setFilterKeyColumn(OpsModel::NameColumn);
    proxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
    model.setAttribution(attribution());
    proxy.sort(OpsModel::DeviceSelfColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, OpsModel::DeviceSelfColumn).data().toString(), QStringLiteral("6.000"));
    QCOMPARE(proxy.index(1, OpsModel::DeviceSelfColumn).data().toString(), QStringLiteral("2.000"));
    QCOMPARE(proxy.index(2, OpsModel::NameColumn).data().toString(), QStringLiteral("aten::mm"));
    proxy.setFilterFixedString(QStringLiteral("ADDMM"));
    QCOMPARE(proxy.rowCount(), 2);
    proxy.setFilterFixedString(QStringLiteral("aten::"));
    QCOMPARE(proxy.rowCount(), 6);
    model.setScopeIndex(2);
    QCOMPARE(proxy.rowCount(), 5);
}

void TestOpsModel::groupByName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("display");
    // The two addmm shapes summed: 4 + 4 calls, 6 + 2 ms of device self time.
    QTest::newRow("calls summed") << QStringLiteral("aten::addmm") << int(OpsModel::CallsColumn) << QStringLiteral("8");
    QTest::newRow("device self summed") << QStringLiteral("aten::addmm") << int(OpsModel::DeviceSelfColumn)
                                        << QStringLiteral("8.000");
    QTest::newRow("host total summed") << QStringLiteral("aten::addmm") << int(OpsModel::HostTotalColumn)
                                       << QStringLiteral("3.700");
    QTest::newRow("share summed") << QStringLiteral("aten::addmm") << int(OpsModel::GpuShareColumn)
                                  << QStringLiteral("80.00 %");
    QTest::newRow("shapes counted") << QStringLiteral("aten::addmm") << int(OpsModel::ShapesColumn)
                                    << QStringLiteral("2 shapes");
    QTest::newRow("one shape kept") << QStringLiteral("aten::relu") << int(OpsModel::ShapesColumn)
                                    << QStringLiteral("[[32, 4096]]");
    QTest::newRow("not recorded stays —") << QStringLiteral("aten::empty") << int(OpsModel::ShapesColumn)
                                          << QStringLiteral("—");
}

void TestOpsModel::groupByName()
{
    QFETCH(QString, name);
    QFETCH(int, column);
    QFETCH(QString, display);
    OpsModel model;
    model.setGroupByShapes(true);  // flat rows per name and shapes (the grouped tree: tst_tablesread)
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.setAttribution(attribution());
    model.setGroupByShapes(false);
    QCOMPARE(model.rowCount(), 5);
    int row = -1;
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.index(r, OpsModel::NameColumn).data().toString() == name)
            row = r;
    QVERIFY(row >= 0);
    QCOMPARE(model.index(row, column).data().toString(), display);
    // A scope switch keeps the grouping; switching back gives the rows per shapes again.
    model.setScopeIndex(2);
    QCOMPARE(model.rowCount(), 4);
    model.setGroupByShapes(true);
    QCOMPARE(model.rowCount(), 5);
}

void TestOpsModel::linksFromBothSides_data()
{
    QTest::addColumn<int>("side");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("scope");
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<QStringList>("shares");
    QTest::newRow("addmm's kernels") << int(KernelOpLinkModel::Side::ByOp) << QStringLiteral("aten::addmm") << 0
                                     << QStringList{test::gemmKernelA(), test::gemmKernelB()}
                                     << QStringList{QStringLiteral("75.0 %"), QStringLiteral("25.0 %")};
    QTest::newRow("GEMM A launched by two ops")
        << int(KernelOpLinkModel::Side::ByKernel) << test::gemmKernelA() << 0
        << QStringList{QStringLiteral("aten::addmm"), QStringLiteral("aten::mm")}
        << QStringList{QStringLiteral("85.7 %"), QStringLiteral("14.3 %")};
    QTest::newRow("relu in step 2: none")
        << int(KernelOpLinkModel::Side::ByOp) << QStringLiteral("aten::relu") << 2 << QStringList{} << QStringList{};
    QTest::newRow("no selection") << int(KernelOpLinkModel::Side::ByOp) << QString() << 0 << QStringList{}
                                  << QStringList{};
}

void TestOpsModel::linksFromBothSides()
{
    QFETCH(int, side);
    QFETCH(QString, name);
    QFETCH(int, scope);
    QFETCH(QStringList, names);
    QFETCH(QStringList, shares);
    KernelOpLinkModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.setAttribution(attribution());
    model.setScopeIndex(scope);
    model.setSelection(KernelOpLinkModel::Side(side), name);
    QStringList gotNames, gotShares;
    for (int row = 0; row < model.rowCount(); ++row) {
        gotNames << model.index(row, KernelOpLinkModel::NameColumn).data().toString();
        gotShares << model.index(row, KernelOpLinkModel::ShareColumn).data().toString();
    }
    QCOMPARE(gotNames, names);
    QCOMPARE(gotShares, shares);
    QCOMPARE(model.headerData(KernelOpLinkModel::NameColumn, Qt::Horizontal).toString(),
             side == int(KernelOpLinkModel::Side::ByOp) ? QStringLiteral("Kernel") : QStringLiteral("Launching op"));
}

void TestOpsModel::summaryLine()
{
    const TraceAttribution a = test::makeAttribution();
    const QString line = attributionSummary(a, a.wholeTrace);
    QVERIFY2(line.contains(QLatin1String("GPU time 10.0 ms")), qPrintable(line));
    QVERIFY2(line.contains(QLatin1String("9.50 ms (95.0 %) attributed")), qPrintable(line));
    QVERIFY2(line.contains(QStringLiteral("unattributed 500 µs (5.0 %)")), qPrintable(line));
    QVERIFY2(line.contains(QStringLiteral("300 µs no runtime call carries its correlation id")), qPrintable(line));
    QVERIFY2(line.contains(QStringLiteral("200 µs replayed by a graph with no launch to follow")), qPrintable(line));
    QVERIFY2(!line.contains(QLatin1String("outside any op")), qPrintable(line));
    TraceAttribution b = a;  // a reason with 0 ns is not listed; launches outside ops are said
    b.wholeTrace.unattributedNs[int(UnattributedReason::GraphReplayWithoutCorrelation)] = 0;
    b.wholeTrace.attributedNs += 200 * test::kUs;
    b.wholeTrace.outsideOpsNs = 200 * test::kUs;
    const QString other = attributionSummary(b, b.wholeTrace);
    QVERIFY2(!other.contains(QLatin1String("graph with no launch")), qPrintable(other));
    QVERIFY2(other.contains(QStringLiteral("200 µs of it to runtime calls outside any op")), qPrintable(other));
    AttributionScope empty;
    QCOMPARE(attributionSummary(a, empty), QString());
}

QTEST_GUILESS_MAIN(TestOpsModel)
#include "tst_opsmodel.moc"
