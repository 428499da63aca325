// The module and annotation tree (issue 24 item 3): nn.Module frames and record_function ranges
// of a scope with host and device time in ms, the nameless root hidden.

#include "attributionfixture.h"
#include "modelroles.h"
#include "moduletreemodel.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace goblin;

Q_DECLARE_METATYPE(std::vector<int>)

namespace
{

constexpr auto kTesterMode = QAbstractItemModelTester::FailureReportingMode::QtTest;

QModelIndex at(const ModuleTreeModel &model, const std::vector<int> &path, int column)
{
    QModelIndex index;
    for (std::size_t i = 0; i < path.size(); ++i)
        index = model.index(path[i], i + 1 == path.size() ? column : 0, index);
    return index;
}

} // namespace

class TestModuleTreeModel : public QObject
{
    Q_OBJECT
private slots:
    void shape();
    void cells_data();
    void cells();
    void scopeSwitch();
    void headers();
};

void TestModuleTreeModel::shape()
{
    ModuleTreeModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    QCOMPARE(model.rowCount(), 0);
    model.setAttribution(std::make_shared<const TraceAttribution>(test::makeAttribution()));
    QCOMPARE(model.rowCount(), 2); // Model_0 and the optimizer annotation; the root is hidden
    const QModelIndex top = model.index(0, 0);
    QCOMPARE(model.rowCount(top), 3);
    QCOMPARE(model.rowCount(model.index(0, ModuleTreeModel::HostTimeColumn)), 0); // only column 0 has children
    const QModelIndex relu = model.index(1, 0, top);
    QCOMPARE(relu.data().toString(), QStringLiteral("nn.Module: ReLU_0"));
    QCOMPARE(relu.parent(), top);
    QCOMPARE(model.index(1, ModuleTreeModel::CallsColumn, top).parent(), top);
    QVERIFY(!top.parent().isValid());
    QCOMPARE(model.rowCount(relu), 0);
    QCOMPARE(model.node(relu)->name, QStringLiteral("nn.Module: ReLU_0"));
    model.setAttribution(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestModuleTreeModel::cells_data()
{
    QTest::addColumn<std::vector<int>>("path");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("display");
    QTest::addColumn<QVariant>("sortValue");
    QTest::newRow("top module name") << std::vector<int>{0} << int(ModuleTreeModel::NameColumn)
                                     << QStringLiteral("nn.Module: Model_0")
                                     << QVariant(QStringLiteral("nn.Module: Model_0"));
    QTest::newRow("top module host ms") << std::vector<int>{0} << int(ModuleTreeModel::HostTimeColumn)
                                        << QStringLiteral("6.000") << QVariant(qlonglong(6'000'000));
    QTest::newRow("top module device ms") << std::vector<int>{0} << int(ModuleTreeModel::DeviceTimeColumn)
                                          << QStringLiteral("8.500") << QVariant(qlonglong(8'500'000));
    QTest::newRow("child device") << std::vector<int>{0, 1} << int(ModuleTreeModel::DeviceTimeColumn)
                                  << QStringLiteral("0.500") << QVariant(qlonglong(500'000));
    QTest::newRow("child calls") << std::vector<int>{0, 2} << int(ModuleTreeModel::CallsColumn) << QStringLiteral("2")
                                 << QVariant(qlonglong(2));
    QTest::newRow("annotation kind") << std::vector<int>{1} << int(ModuleTreeModel::KindColumn)
                                     << QStringLiteral("annotation") << QVariant(QStringLiteral("annotation"));
    QTest::newRow("module kind") << std::vector<int>{0, 0} << int(ModuleTreeModel::KindColumn)
                                 << QStringLiteral("module") << QVariant(QStringLiteral("module"));
}

void TestModuleTreeModel::cells()
{
    QFETCH(std::vector<int>, path);
    QFETCH(int, column);
    QFETCH(QString, display);
    QFETCH(QVariant, sortValue);
    ModuleTreeModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.setAttribution(std::make_shared<const TraceAttribution>(test::makeAttribution()));
    const QModelIndex index = at(model, path, column);
    QVERIFY(index.isValid());
    QCOMPARE(index.data().toString(), display);
    QCOMPARE(index.data(SortRole), sortValue);
}

void TestModuleTreeModel::scopeSwitch()
{
    ModuleTreeModel model;
    QAbstractItemModelTester tester(&model, kTesterMode);
    model.setAttribution(std::make_shared<const TraceAttribution>(test::makeAttribution()));
    model.setScopeIndex(1);
    QCOMPARE(model.index(0, ModuleTreeModel::DeviceTimeColumn).data(SortRole).toLongLong(), 4'250'000);
    // 4.25 ms of the step's 5 ms of GPU time.
    QCOMPARE(model.index(0, ModuleTreeModel::DeviceTimeColumn).data(FractionRole).toDouble(), 0.85);
    model.setScopeIndex(7);
    QCOMPARE(model.rowCount(), 0);
    model.setScopeIndex(0);
    QCOMPARE(model.rowCount(), 2);
}

void TestModuleTreeModel::headers()
{
    ModuleTreeModel model;
    QCOMPARE(model.headerData(ModuleTreeModel::HostTimeColumn, Qt::Horizontal).toString(), QStringLiteral("Host (ms)"));
    QCOMPARE(model.headerData(ModuleTreeModel::DeviceTimeColumn, Qt::Horizontal).toString(),
             QStringLiteral("Device (ms)"));
}

QTEST_GUILESS_MAIN(TestModuleTreeModel)
#include "tst_moduletreemodel.moc"
