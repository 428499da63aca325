// The workbench profile must read close to what really happened: the fixture folders made with
// make_run.py carry the simulated timeline's ground truth (truth.json.expected, --truth).

#include "report.h"
#include "metrics.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <cmath>

using namespace goblin;

class TestWorkbenchTruth : public QObject
{
    Q_OBJECT

private slots:
    void readsCloseToTruth_data()
    {
        QTest::addColumn<QString>("folder");
        const QDir runs(test::dataPath(QStringLiteral("runs")));
        for (const QString &f : runs.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            if (QFile::exists(runs.filePath(f + QStringLiteral("/truth.json.expected"))) && !f.startsWith(QLatin1String("bad-")))
                QTest::newRow(qPrintable(f)) << f;
    }

    void readsCloseToTruth()
    {
        QFETCH(QString, folder);
        const QString dir = test::dataPath(QStringLiteral("runs/") + folder);
        const QJsonObject truth = QJsonDocument::fromJson(test::readAll(dir + QStringLiteral("/truth.json.expected"))).object();
        const QJsonObject window = truth.value("torch_window").toObject();
        const LoadResult loaded = loadRun(dir);
        QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
        const ProfileAnalysis &w = loaded.run->workbench;
        const RunMetrics m = computeMetrics(w, Thresholds());

        // Step time: the mean of the CPU-lane ProfilerStep events of the profiled window (or the
        // trace span when the trace has none).
        const double truthStep = window.value("step_time_s").toDouble();
        QVERIFY2(std::fabs(w.stepTimeS - truthStep) <= 1e-3 * truthStep,
                 qPrintable(QStringLiteral("step %1 s, truth %2 s").arg(w.stepTimeS).arg(truthStep)));

        // Host busy: union of top-level CPU ops over the step windows; 0.01 with steps, 0.1 without.
        const double truthBusy = window.value("host_busy_frac").toDouble();
        const double busyTolerance = w.stepsFound > 0 ? 0.01 : 0.1;
        QVERIFY2(std::fabs(w.hostBusyFraction - truthBusy) <= busyTolerance,
                 qPrintable(QStringLiteral("host busy %1, truth %2").arg(w.hostBusyFraction).arg(truthBusy)));

        // Utilisation follows kernel time per wall time (what amd-smi reports); these small
        // fixtures are shorter than the telemetry period, so it comes from kernel time here.
        const double truthUtil = truth.value("kernel_time_frac").toDouble() * 100.0;
        QVERIFY2(std::fabs(w.gpuUtilPct - truthUtil) <= 10.0,
                 qPrintable(QStringLiteral("util %1 %, truth %2 %").arg(w.gpuUtilPct).arg(truthUtil)));

        // Collectives per step per GPU, not the trace-wide sum.
        const double truthComm = truth.value("collective_s_per_step_per_gpu").toDouble();
        QVERIFY2(std::fabs(m.wasteBudget.commExcess - truthComm) <= 0.2 * truthComm + 1e-9,
                 qPrintable(QStringLiteral("comm %1 s, truth %2 s").arg(m.wasteBudget.commExcess).arg(truthComm)));
        if (truthComm > 0) {
            // …where the reference's trace-wide sum is several steps' and GPUs' worth.
            QVERIFY(loaded.run->reference.budgetInputs.commExcessS > 2.0 * truthComm);
        }

        // Generic share of GEMM time: every GEMM, Tensile Cijk_ included, is recognised.
        const double gemm = double(w.classTotals.gemmNs);
        const double share = gemm > 0 ? double(w.classTotals.genericGemmNs) / gemm : 0.0;
        QVERIFY2(std::fabs(share - truth.value("generic_gemm_share_of_gemm").toDouble()) < 1e-6,
                 qPrintable(QStringLiteral("generic share %1").arg(share)));

        // HBM: never more than the true peak (GB, not MB misread), and read at all.
        QVERIFY(w.hbmPeakGb > 0.0);
        QVERIFY(w.hbmPeakGb <= truth.value("hbm_peak_gb").toDouble() * 1.01);
    }
};

QTEST_GUILESS_MAIN(TestWorkbenchTruth)
#include "tst_workbenchtruth.moc"
