// The reference's reading is the same whether the entries read a folder with both wings attached
// (kerneltraceparser, torchtraceparser, amdsmiparser: what the app does) or the reference wing reads
// it alone (reference/referencerun: what tst_referencewing checks against the oracle). Every run
// fixture, every reference field, exactly; the one documented exception is a rocpd database standing
// in for a missing trace.csv, which only the entries feed to the reference's kernel reading.

#include "amdsmiparser.h"
#include "kerneltraceparser.h"
#include "reference/referencerun.h"
#include "testsupport.h"
#include "torchtraceparser.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTest>

#include <map>
#include <tuple>

using namespace goblin;

namespace {

/// name -> (calls, total, min, max, first row) of the used names: the two readings intern names in
/// different pools (the entries' pool also holds the workbench's names).
std::map<std::string, std::tuple<quint64, qint64, qint64, qint64, qint64>> perName(const KernelTrace &t)
{
    std::map<std::string, std::tuple<quint64, qint64, qint64, qint64, qint64>> out;
    for (size_t id = 0; id < t.reference.perName.size(); ++id) {
        const KernelNameStats &s = t.reference.perName[id];
        if (s.calls > 0)
            out[t.names[id]] = {s.calls, s.totalNs, s.minNs, s.maxNs, s.firstRow};
    }
    return out;
}

} // namespace

class TestReferenceEntries : public QObject
{
    Q_OBJECT

private slots:
    void sameReadingEitherWay_data()
    {
        QTest::addColumn<QString>("folder");
        for (const QString &f :
             QDir(test::dataPath(QStringLiteral("runs"))).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            QTest::newRow(qPrintable(f)) << f;
    }

    void sameReadingEitherWay()
    {
        QFETCH(QString, folder);
        const QString dir = test::dataPath(QStringLiteral("runs/") + folder);
        const reference::ReferenceInputs alone = reference::readReferenceInputs(dir);

        const KernelTrace kernels = parseKernelTraces(dir);
        if (QFileInfo::exists(dir + QStringLiteral("/trace.csv")) || !kernels.referenceFileFound) {
            const KernelReading &a = alone.kernels.reference, &b = kernels.reference;
            QCOMPARE(alone.kernels.referenceFileFound, kernels.referenceFileFound);
            QCOMPARE(alone.kernels.referenceFileEmpty, kernels.referenceFileEmpty);
            QCOMPARE(a.rowsUsed, b.rowsUsed);
            QCOMPARE(a.rowsSkippedNoName, b.rowsSkippedNoName);
            QCOMPARE(a.rowsSkippedNonPositive, b.rowsSkippedNonPositive);
            QCOMPARE(a.totalNs, b.totalNs);
            QCOMPARE(a.hasTimestamps, b.hasTimestamps);
            QCOMPARE(a.firstStartNs, b.firstStartNs);
            QCOMPARE(a.lastEndNs, b.lastEndNs);
            QCOMPARE(a.agentCount, b.agentCount);
            QCOMPARE(a.agents, b.agents);
            QCOMPARE(a.readFailed, b.readFailed);
            QCOMPARE(a.readFailure, b.readFailure);
            QCOMPARE(a.wouldCrash, b.wouldCrash);
            QVERIFY(perName(alone.kernels) == perName(kernels));
        }

        const TorchTrace torch = parseTorchTrace(dir);
        const TorchReading &a = alone.torch.reference, &b = torch.reference;
        QCOMPARE(alone.torch.referenceFileFound, torch.referenceFileFound);
        QCOMPARE(a.tokensPerSec, b.tokensPerSec);
        QCOMPARE(a.mfuPct, b.mfuPct);
        QCOMPARE(a.pytorchVersion, b.pytorchVersion);
        QCOMPARE(a.stepTimeSeconds, b.stepTimeSeconds);
        QCOMPARE(a.stepTimeSource, b.stepTimeSource);
        QCOMPARE(a.hostBusyFraction, b.hostBusyFraction);
        QCOMPARE(a.hostBusySource, b.hostBusySource);
        QCOMPARE(a.profilerSteps, b.profilerSteps);
        QCOMPARE(a.readFailed, b.readFailed);
        QCOMPARE(a.readFailure, b.readFailure);

        const SmiTelemetry smi = parseAmdSmi(dir);
        const SmiReading &x = alone.smi.reference, &y = smi.reference;
        QCOMPARE(alone.smi.referenceFileFound, smi.referenceFileFound);
        QCOMPARE(x.gpuUtilPct, y.gpuUtilPct);
        QCOMPARE(x.hbmPeakGb, y.hbmPeakGb);
        QCOMPARE(x.hbmAvgGb, y.hbmAvgGb);
        QCOMPARE(x.rocmVersion, y.rocmVersion);
        QCOMPARE(x.utilSamples, y.utilSamples);
        QCOMPARE(x.hbmSamples, y.hbmSamples);
        QCOMPARE(x.noHeader, y.noHeader);
        QCOMPARE(x.readFailed, y.readFailed);
        QCOMPARE(x.fileUnreadable, y.fileUnreadable);
        QCOMPARE(x.readFailure, y.readFailure);
    }
};

QTEST_GUILESS_MAIN(TestReferenceEntries)
#include "tst_referenceentries.moc"
