// The Roofline view and the Operators view's roofline columns (docs/roofline.md) on a real H100
// trace with record_shapes: one point per op and shapes with FLOPs and device time of its own, the
// roofs of each datatype the H100 has, a click on a point names its op; an unknown GPU draws no
// roof; the ops model's new columns under QAbstractItemModelTester. Offscreen.

#include "attributiontext.h"
#include "customplot.h"
#include "modelroles.h"
#include "opsmodel.h"
#include "rooflineview.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <map>

using namespace goblin;

namespace
{

std::shared_ptr<const RunAnalysis> run(const QString &file)
{
    static std::map<QString, std::shared_ptr<const RunAnalysis>> cache;
    auto &slot = cache[file];
    if (!slot) {
        LoadResult loaded = loadRun(test::dataPath(QStringLiteral("attribution/") + file));
        if (loaded.outcome == LoadOutcome::Finished && loaded.run)
            slot = std::move(loaded.run);
    }
    return slot;
}

const QString kH100 = QStringLiteral("tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz");

} // namespace

class TestRooflineView : public QObject
{
    Q_OBJECT

private slots:
    void pointsAndRoofs()
    {
        const auto r = run(kH100);
        QVERIFY(r);
        RooflineView view;
        view.resize(900, 600);
        view.setRun(r);
        QCOMPARE(view.roof().model, QStringLiteral("NVIDIA H100 SXM"));
        QCOMPARE(view.roofLineCount(), 7);  // fp64 fp32 tf32 bf16 fp16 fp8 int8
        QVERIFY(view.points().size() >= 5);
        for (const RooflineView::Point &p : view.points()) {
            QVERIFY(p.intensity > 0 && p.achievedTflops > 0 && p.deviceSelfS > 0);
            QVERIFY(p.name.startsWith(QStringLiteral("aten::")));
        }
        // Largest device time first (drawn under the small ones).
        for (size_t i = 1; i < view.points().size(); ++i)
            QVERIFY(view.points()[i - 1].deviceSelfS >= view.points()[i].deviceSelfS);
        QCOMPARE(view.plot()->graphCount(), 7 + int(view.points().size()));
        QVERIFY(view.noteLabel()->text().contains(QStringLiteral("H100")));
    }

    /// GOBLIN_TEST_GRAB_DIR set: pictures of the view on the H100 and the MI300X trace.
    void grab_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("h100") << kH100;
        QTest::newRow("mi300x") << QStringLiteral("tracelens_mi300_gaunernst_bert-small-uncased__1016001.json.gz");
    }
    void grab()
    {
        QFETCH(QString, file);
        const QString dir = qEnvironmentVariable("GOBLIN_TEST_GRAB_DIR");
        if (dir.isEmpty())
            QSKIP("GOBLIN_TEST_GRAB_DIR not set");
        RooflineView view;
        view.resize(1000, 650);
        view.setRun(run(file));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.plot()->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(view.grab().save(dir + QStringLiteral("/roofline-") + QString::fromLatin1(QTest::currentDataTag()) +
                                 QStringLiteral(".png")));
    }

    void clickSelectsTheOp()
    {
        RooflineView view;
        view.resize(900, 600);
        view.setRun(run(kH100));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.plot()->replot(QCustomPlot::rpImmediateRefresh);
        QSignalSpy spy(&view, &RooflineView::opActivated);
        // Click the last-drawn (smallest, on top) point where the plot draws it.
        const int last = int(view.points().size()) - 1;
        const RooflineView::Point &p = view.points()[size_t(last)];
        const QPoint at(int(std::lround(view.plot()->xAxis->coordToPixel(p.intensity))),
                        int(std::lround(view.plot()->yAxis->coordToPixel(p.achievedTflops))));
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, at);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toString(), p.name);
        QCOMPARE(spy.at(0).at(1).toString(), p.shapes);
        view.activatePoint(0);
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(1).at(0).toString(), view.points().front().name);
    }

    void unknownGpuDrawsNoRoof()
    {
        RooflineView view;
        view.setRun(run(QStringLiteral("hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz")));
        QVERIFY(!view.roof().known);
        QCOMPARE(view.roofLineCount(), 0);
        QVERIFY(view.noteLabel()->text().contains(QStringLiteral("No roof")));
        view.setRun(nullptr);
        QVERIFY(view.points().empty());
        QCOMPARE(view.plot()->graphCount(), 0);
    }

    void opsModelColumns()
    {
        const auto r = run(kH100);
        QVERIFY(r);
        OpsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setGpuRoof(decideGpuRoof(r->facts.devices));
        model.setAttribution(attributionOf(r));
        QCOMPARE(model.columnCount(), int(OpsModel::ColumnCount));
        // Grouped by name (the default): a name of several shapes has no roofline of its own, each
        // of its shape rows has its own — the same as that shape's flat row.
        int childrenWithEfficiency = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            const QModelIndex parent = model.index(row, 0);
            for (int child = 0; child < model.rowCount(parent); ++child) {
                const OpRoofline *rl = model.rooflineAt(model.index(child, OpsModel::EfficiencyColumn, parent));
                QVERIFY(rl);
                childrenWithEfficiency += rl->efficiencyPct ? 1 : 0;
            }
            if (model.rowCount(parent) > 1)
                QCOMPARE(model.index(row, OpsModel::EfficiencyColumn).data().toString(), QStringLiteral("—"));
        }
        model.setGroupByShapes(true);  // one flat row per name and shapes
        int withEfficiency = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            const QModelIndex eff = model.index(row, OpsModel::EfficiencyColumn);
            const QModelIndex rate = model.index(row, OpsModel::AchievedTflopsColumn);
            const OpRoofline *rl = model.roofline(row);
            QVERIFY(rl);
            if (rl->efficiencyPct) {
                ++withEfficiency;
                QCOMPARE(eff.data(RawValueRole).toDouble(), *rl->efficiencyPct);
                QVERIFY(eff.data().toString().endsWith(QStringLiteral("%")));
            } else {
                QCOMPARE(eff.data().toString(), QStringLiteral("—"));
                QVERIFY(!eff.data(Qt::ToolTipRole).toString().isEmpty());  // says why
            }
            if (rl->achievedTflops)
                QCOMPARE(rate.data(SortRole).toDouble(), *rl->achievedTflops);
        }
        QVERIFY(withEfficiency >= 5);
        QVERIFY(childrenWithEfficiency >= 1);
        model.setGroupByShapes(false);
        model.setGpuRoof(GpuRoof{});
        for (int row = 0; row < model.rowCount(); ++row)
            QCOMPARE(model.index(row, OpsModel::EfficiencyColumn).data().toString(), QStringLiteral("—"));
    }
};

QTEST_MAIN(TestRooflineView)
#include "tst_rooflineview.moc"
