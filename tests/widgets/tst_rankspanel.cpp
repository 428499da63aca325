// The Ranks tab (issue 23, item 4): one stacked bar per rank of its seven buckets and the
// unattributed rest in the budget chart's order, the straggler (the rank the others wait for:
// most own work per step) outlined and named, its definition said in the tab, and unknown
// buckets drawn as no segment and "—" in the table. Run: tests/data/runs/ranks-4traces.

#include "budgetformula.h"
#include "customplot.h"
#include "liveanalysis.h"
#include "modelroles.h"
#include "ranksmodel.h"
#include "rankspanel.h"
#include "testsupport.h"

#include <QTableView>
#include <QTest>
#include <cmath>

using namespace goblin;

class TestRanksPanel : public QObject
{
    Q_OBJECT

private slots:
    void oneBarPerRankStragglerMarked_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<int>("ranks");
        QTest::newRow("four chrome traces") << "runs/ranks-4traces" << 4;
        QTest::newRow("one process") << "runs/comm-heavy" << 1;
    }
    void oneBarPerRankStragglerMarked()
    {
        QFETCH(QString, run);
        QFETCH(int, ranks);
        LiveAnalysis live;
        RanksPanel panel(&live);
        panel.resize(1200, 320);
        panel.show();
        QCOMPARE(panel.barCount(), 0);
        const LoadResult loaded = loadRun(test::dataPath(run));
        QVERIFY(loaded.run);
        live.setRun(loaded.run);
        live.flush();
        const Derived &derived = live.derived();
        QCOMPARE(int(derived.ranks.size()), ranks);
        QCOMPARE(panel.barCount(), ranks);
        QCOMPARE(panel.model()->rowCount(), ranks);

        // The straggler: the most own work per step (RankSpread), marked on its bar and its row.
        const int straggler = ranks >= 2 ? derived.spread->ownWorkSPerStep.stragglerIndex : -1;
        QCOMPARE(panel.markedStragglerBar(), straggler);
        for (int bar = 0; bar < ranks; ++bar) {
            QCOMPARE(panel.barLabel(bar).contains(QStringLiteral("straggler")), bar == straggler);
            QCOMPARE(panel.model()->index(bar, RanksModel::RankColumn).data().toString().contains(QStringLiteral("straggler")),
                     bar == straggler);
        }
        if (straggler >= 0) {
            for (const RankResult &r : derived.ranks)
                QVERIFY(r.ownWorkSPerStep() <= derived.ranks[std::size_t(straggler)].ownWorkSPerStep());
            QVERIFY2(panel.spreadText().contains(
                         QStringLiteral("Straggler: rank %1").arg(derived.ranks[std::size_t(straggler)].inputs->rank)),
                     qPrintable(panel.spreadText()));
            QVERIFY(panel.spreadText().contains(QStringLiteral("wait")));
        }
        QVERIFY(panel.definitionText().contains(QStringLiteral("own work")));
        QVERIFY(panel.definitionText().contains(QStringLiteral("longest step is usually one that waits")));

        // Each bar is the rank's own budget in the budget chart's rows; an unknown bucket has no
        // segment and reads "—".
        for (int bar = 0; bar < ranks; ++bar) {
            const WasteBudget &b = derived.ranks[std::size_t(bar)].budget;
            for (int row = 0; row <= kUnattributedRow; ++row) {
                const bool unknown = b.state(row) == ValueState::Unknown;
                QCOMPARE(panel.barSeconds(bar, row), unknown ? 0.0 : budgetRowSeconds(b, row));
                const int column = row == kUnattributedRow ? int(RanksModel::UnattributedColumn)
                                                           : RanksModel::FirstBucketColumn + row;
                QCOMPARE(panel.model()->index(bar, column).data().toString() == QStringLiteral("—"), unknown);
            }
        }

        // The hover text names the rank and its buckets.
        QCustomPlot *chart = panel.chart();
        chart->replot();
        const int bar = std::max(0, straggler);
        const QPointF onBar(chart->xAxis->coordToPixel(bar), chart->yAxis->coordToPixel(chart->yAxis->range().lower)
                                                                 - 2.0);
        const QString tip = panel.toolTipAt(onBar);
        QVERIFY2(tip.contains(QStringLiteral("Rank %1").arg(derived.ranks[std::size_t(bar)].inputs->rank)), qPrintable(tip));
        QVERIFY2(tip.contains(budgetRowLabel(1)), qPrintable(tip));
        QVERIFY(!panel.grab().isNull());

        live.setRun(nullptr);
        QCOMPARE(panel.barCount(), 0);
    }
};

QTEST_MAIN(TestRanksPanel)
#include "tst_rankspanel.moc"
