// The bundled example run folder: small, read without problems, and data-bound. The workbench
// measures its data wait on the timeline (the GPUs idle inside the DataLoader ranges) at every
// threshold; the reference profile's formulas show it only once the GPU-utilisation threshold is
// dragged above the run's utilisation. If the example is ever regenerated, these keep it useful.

#include "derived.h"
#include "metrics.h"
#include "runanalysis.h"

#include <QDir>
#include <QFileInfo>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <optional>

using namespace goblin;

namespace {

QString exampleDir()
{
    return QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run");
}

} // namespace

class TestExampleRun : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void isSmall();
    void readsWithoutWarnings();
    void workbenchMeasuresTheDataWait();
    void referenceThresholdMovesDataWait();

private:
    std::shared_ptr<const RunAnalysis> m_run;
};

void TestExampleRun::initTestCase()
{
    const LoadResult result = loadRun(exampleDir());
    QCOMPARE(int(result.outcome), int(LoadOutcome::Finished));
    QVERIFY(result.run);
    m_run = result.run;
}

void TestExampleRun::isSmall()
{
    qint64 bytes = 0;
    const QFileInfoList files = QDir(exampleDir()).entryInfoList(QDir::Files);
    for (const QFileInfo &file : files)
        bytes += file.size();
    QVERIFY2(bytes < 2 * 1024 * 1024, qPrintable(QStringLiteral("%1 bytes").arg(bytes)));
    for (const char *name : {"trace.csv", "torch_profile.json", "amd_smi.csv"})
        QVERIFY2(QFileInfo::exists(exampleDir() + QLatin1Char('/') + QLatin1String(name)), name);
}

void TestExampleRun::readsWithoutWarnings()
{
    for (const Diagnostic &d : m_run->diagnostics)
        QVERIFY2(d.severity == Severity::Info,
                 qPrintable(QStringLiteral("%1:%2: %3").arg(d.file).arg(d.line).arg(d.message)));
    QVERIFY(m_run->kernels.names.size() > 10);
    QVERIFY(m_run->torch.eventCount > 1000);
    QVERIFY(m_run->smi.samples.size() > 20);
    QCOMPARE(m_run->smi.gpuCount, 2);
}

void TestExampleRun::workbenchMeasuresTheDataWait()
{
    // make_run --data-wait-ms 350: the GPUs wait 350 ms (±15 %) of every step inside
    // enumerate(DataLoader). Measured, that is data wait at any threshold, and never useful GPU.
    std::optional<double> useful;
    for (double below : {0.0, 30.0, 60.0, 100.0}) {
        Thresholds thresholds;
        thresholds.gpuUtilBelowPct = below;
        const Derived d = deriveResults(*m_run, HeuristicsProfile::Workbench, thresholds);
        const WasteBudget &b = d.metrics.wasteBudget;
        QVERIFY(d.budgetMeasured);
        const double stepS = b.terms.stepS;
        QVERIFY2(b.dataWait > 0.3 && b.dataWait < 0.45, qPrintable(QString::number(b.dataWait)));
        QVERIFY2(b.dataWait > 0.5 * stepS, qPrintable(QString::number(b.dataWait / stepS)));
        QCOMPARE(b.state(1), ValueState::Measured);
        QVERIFY(b.usefulGpu <= b.terms.computeS);
        double sum = b.unattributed;
        for (int i = 0; i < WasteBudget::BucketCount; ++i)
            sum += b.bucket(i);
        QVERIFY2(std::abs(sum - stepS) < 1e-9 * stepS, qPrintable(QStringLiteral("%1 vs %2").arg(sum).arg(stepS)));
        if (useful)
            QCOMPARE(b.usefulGpu, *useful);  // no threshold moves time into useful GPU
        useful = b.usefulGpu;
    }
}

void TestExampleRun::referenceThresholdMovesDataWait()
{
    // The reference's formulas on the same folder: data-bound (host busier than 0.5, utilisation
    // between 30 % and 60 %), so data wait is 0 at 30 % and appears at 60 %, out of useful GPU.
    const ProfileAnalysis &analysis = m_run->reference;
    QVERIFY2(analysis.budgetInputs.hostBusyFraction > 0.5, qPrintable(QString::number(analysis.budgetInputs.hostBusyFraction)));
    QVERIFY2(analysis.budgetInputs.gpuUtilPct > 30.0 && analysis.budgetInputs.gpuUtilPct < 60.0,
             qPrintable(QString::number(analysis.budgetInputs.gpuUtilPct)));

    Thresholds thresholds;
    const WasteBudget at30 = computeMetrics(analysis, thresholds).wasteBudget;
    thresholds.gpuUtilBelowPct = 60.0;
    const WasteBudget at60 = computeMetrics(analysis, thresholds).wasteBudget;

    QCOMPARE(at30.dataWait, 0.0);
    const double stepS = analysis.budgetInputs.stepTimeS;
    const double util = analysis.budgetInputs.gpuUtilPct / 100.0;
    const double hostBusy = analysis.budgetInputs.hostBusyFraction;
    QVERIFY(qFuzzyCompare(at60.dataWait, stepS * (1.0 - util) * hostBusy));
    QVERIFY2(at60.dataWait > 0.1 * stepS, qPrintable(QString::number(at60.dataWait)));
    // Host gap does not depend on the threshold; the data wait comes out of useful GPU time
    // (clamped at 0: the reference's per-run sums can overspend the step).
    QCOMPARE(at60.hostGap, at30.hostGap);
    const double expectedUseful = std::max(0.0, at30.usefulGpu - at60.dataWait);
    QVERIFY2(std::abs(at60.usefulGpu - expectedUseful) < 1e-12 * stepS,
             qPrintable(QStringLiteral("useful %1 -> %2, data wait %3").arg(at30.usefulGpu).arg(at60.usefulGpu).arg(at60.dataWait)));
}

QTEST_GUILESS_MAIN(TestExampleRun)
#include "tst_examplerun.moc"
