// Thresholds explained where they are dragged (issue 26, point 4): each threshold shows the run's
// value with its state and says what crosses when the line passes it, with the live numbers of
// the derived results — counted here independently from the steps' measured slices.

#include "formatting.h"
#include "liveanalysis.h"
#include "sweep.h"
#include "testsupport.h"
#include "thresholdeditor.h"
#include "thresholdpanel.h"
#include "windowfixture.h"
#include "workbenchsession.h"

#include <QDoubleSpinBox>
#include <QLabel>
#include <QSlider>
#include <QTest>
#include <limits>

using namespace goblin;

class TestThresholdCrossing : public QObject
{
    Q_OBJECT

private slots:
    void dataWaitGate_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<double>("utilBelow");
        QTest::addColumn<double>("hostAbove");
        QTest::newRow("slow-step-idle, defaults") << "slow-step-idle" << 30.0 << 0.5;
        QTest::newRow("slow-step-idle, util below 90") << "slow-step-idle" << 90.0 << 0.0;
        QTest::newRow("datawait-20ms, util below 100") << "datawait-20ms" << 100.0 << 0.2;
        QTest::newRow("comm-heavy, util below 70") << "comm-heavy" << 70.0 << 0.1;
    }
    void dataWaitGate()
    {
        QFETCH(QString, run);
        QFETCH(double, utilBelow);
        QFETCH(double, hostAbove);
        const LoadResult loaded = loadRun(test::dataPath("runs/" + run));
        QVERIFY(loaded.run);
        WorkbenchSession session;
        ThresholdPanel panel(&session);
        session.openRun(loaded.run);
        session.editor()->changeValue(ThresholdField::GpuUtilBelow, utilBelow);
        session.editor()->changeValue(ThresholdField::HostBusyAbove, hostAbove);
        session.live()->flush();
        const Derived &derived = session.live()->derived();
        const StepSeries *steps = derived.steps();
        QVERIFY2(steps && steps->measured(), "a run with measured steps");

        // Steps whose idle during host work is data wait: some device under the util line with its
        // host above the host line; and the nearest device values on either side of the line.
        int counted = 0, gated = 0;
        double above = std::numeric_limits<double>::infinity(), below = -1.0;
        for (const StepInputs &step : steps->steps) {
            if (step.partial)
                continue;  // out of the run's mean
            bool any = false;
            for (const MeasuredSlice &s : step.slices) {
                any = any || (s.hostKnown && s.utilPct() < utilBelow && s.hostBusyFraction > hostAbove);
                if (!s.hostKnown || !(s.hostBusyFraction > hostAbove))
                    continue;  // moving the util line past it changes nothing
                if (s.utilPct() > utilBelow)
                    above = std::min(above, s.utilPct());
                else
                    below = std::max(below, s.utilPct());
            }
            ++counted;
            gated += any ? 1 : 0;
        }
        const QString text = panel.crossingLabel(ThresholdField::GpuUtilBelow)->text();
        QCOMPARE(text, ThresholdPanel::crossingText(ThresholdField::GpuUtilBelow, loaded.run.get(), derived));
        QVERIFY2(text.contains(QStringLiteral("— %1 of %2 step(s) now").arg(gated).arg(counted)), qPrintable(text));
        QVERIFY2(text.startsWith(QStringLiteral("Below %1:").arg(formatPercent(utilBelow))), qPrintable(text));
        if (std::isfinite(above) && above <= 100.0)
            QVERIFY2(text.contains(QStringLiteral("%1 up").arg(formatPercent(above, 2))), qPrintable(text));
        if (below >= 0.0)
            QVERIFY2(text.contains(QStringLiteral("%1 down").arg(formatPercent(below, 2))), qPrintable(text));
        // The same count under the host-busy line, and in every tooltip of the row.
        const QString host = panel.crossingLabel(ThresholdField::HostBusyAbove)->text();
        QVERIFY2(host.contains(QStringLiteral("— %1 of %2 step(s) now").arg(gated).arg(counted)), qPrintable(host));
        QVERIFY(panel.slider(ThresholdField::GpuUtilBelow)->toolTip().contains(text));
        QVERIFY(panel.spinBox(ThresholdField::GpuUtilBelow)->toolTip().contains(text));
        // The run's value beside it, with its state.
        const Quantity &util = derived.quantities[QuantityKey::GpuUtilPct];
        QVERIFY(util.value);
        QCOMPARE(panel.runValueLabel(ThresholdField::GpuUtilBelow)->text(), QStringLiteral("run: %1").arg(formatPercent(*util.value)));
        QCOMPARE(panel.runStateLabel(ThresholdField::GpuUtilBelow)->text(), valueStateName(util.state));
        // The hint keeps its height whatever it says: a drag must not move the window's layout.
        const int height = panel.crossingLabel(ThresholdField::GpuUtilBelow)->height();
        session.editor()->changeValue(ThresholdField::GpuUtilBelow, utilBelow > 50 ? 1.0 : 99.0);
        session.live()->flush();
        QCOMPARE(panel.crossingLabel(ThresholdField::GpuUtilBelow)->height(), height);
    }

    void noHostNoEffect()
    {
        // A kernel trace alone: nothing shows the host, the idle stays unattributed at any line.
        const LoadResult loaded = loadRun(test::dataPath("runs/real-rocm63-2021"));
        QVERIFY(loaded.run);
        WorkbenchSession session;
        ThresholdPanel panel(&session);
        session.openRun(loaded.run);
        session.live()->flush();
        for (ThresholdField f : {ThresholdField::GpuUtilBelow, ThresholdField::HostBusyAbove})
            QVERIFY2(panel.crossingLabel(f)->text().startsWith(QStringLiteral("No effect on this run")),
                     qPrintable(panel.crossingLabel(f)->text()));
        QCOMPARE(panel.runValueLabel(ThresholdField::HostBusyAbove)->text(), QStringLiteral("run: —"));
        QVERIFY(panel.runStateLabel(ThresholdField::HostBusyAbove)->text().isEmpty());
    }

    void weightsSayWhatTheyMean_data()
    {
        QTest::addColumn<int>("field");
        QTest::newRow("precision weight") << int(ThresholdField::PrecisionWeight);
        QTest::newRow("headroom weight") << int(ThresholdField::HeadroomWeight);
    }
    void weightsSayWhatTheyMean()
    {
        QFETCH(int, field);
        WorkbenchSession session;
        ThresholdPanel panel(&session);
        QVERIFY(panel.crossingLabel(ThresholdField(field))->text().isEmpty());  // no run, nothing to say
        session.openRun(test::makeFakeRun());
        session.live()->flush();
        const WasteBudget &b = session.live()->derived().metrics.wasteBudget;
        const double seconds = field == int(ThresholdField::PrecisionWeight) ? b.precisionPath : b.memoryHeadroom;
        QVERIFY(seconds > 0.0);
        const QString text = panel.crossingLabel(ThresholdField(field))->text();
        QVERIFY2(text.contains(QStringLiteral("an assumption, not measured")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("%1 per step now").arg(formatSeconds(seconds))), qPrintable(text));
        // It follows the weight: a zero weight books nothing.
        session.editor()->changeValue(ThresholdField(field), 0.0);
        session.live()->flush();
        QVERIFY2(panel.crossingLabel(ThresholdField(field))->text().contains(QStringLiteral("0 s per step now")),
                 qPrintable(panel.crossingLabel(ThresholdField(field))->text()));
    }

    void hbmTargetSaysThePeak()
    {
        WorkbenchSession session;
        ThresholdPanel panel(&session);
        session.openRun(test::makeFakeRun());  // HBM peak 100 of 192 GB: 52.1 %
        session.live()->flush();
        const QString on = panel.crossingLabel(ThresholdField::HbmTarget)->text();
        QVERIFY2(on.contains(formatPercent(100.0 * 100.0 / 192.0)), qPrintable(on));
        QVERIFY2(on.contains(QStringLiteral("per step now")), qPrintable(on));
        session.editor()->changeValue(ThresholdField::HbmTarget, 40.0);
        session.live()->flush();
        QVERIFY2(panel.crossingLabel(ThresholdField::HbmTarget)->text().contains(
                     QStringLiteral("none, the target is at or below the peak")),
                 qPrintable(panel.crossingLabel(ThresholdField::HbmTarget)->text()));
    }
};

QTEST_MAIN(TestThresholdCrossing)
#include "tst_thresholdcrossing.moc"
