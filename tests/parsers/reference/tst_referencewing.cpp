// The reference wing alone: this test links goblin_parsers_reference (and the parser core), not
// the workbench's readings, not the entries, not the model. It reads each run folder's three
// inputs with only the reference's readings attached (reference/referencerun) and assembles the
// reference's RunMetrics (reference/runmetrics), which must match what shared/reference/oracle.py
// printed for the folder (expected.reference*.json, see data/runs/make_fixtures.sh) to 1e-9.
// That the workbench cannot reach this code, nor this code the workbench, is checked by the link
// of this executable and by the ctest parsers_wings_separate (cmake/CheckParserWings.cmake).

#include "reference/referencerun.h"
#include "reference/runmetrics.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace goblin;

namespace {

QString dataPath(const QString &relative)
{
    return QStringLiteral(GOBLIN_TEST_DATA "/") + relative;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList runFolders()
{
    return QDir(dataPath(QStringLiteral("runs"))).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
}

/// Warnings carry Python exception texts and the path the oracle was given: the part before either.
QString warningKey(QString w)
{
    for (const QString &cut : {QStringLiteral(" ("), QStringLiteral(" at ")}) {
        const qsizetype i = w.indexOf(cut);
        if (i >= 0)
            w = w.left(i);
    }
    return w;
}

/// Numbers within `tol` relative, everything else equal; `difference` says where not.
bool nearlyEqual(const QJsonValue &expected, const QJsonValue &actual, double tol, QString &difference,
                 const QString &path = QStringLiteral("metrics"))
{
    auto fail = [&](const QString &why) {
        difference = QStringLiteral("%1: %2 (expected %3, actual %4)")
                         .arg(path, why, QString::fromUtf8(QJsonDocument(QJsonArray{expected}).toJson(QJsonDocument::Compact)),
                              QString::fromUtf8(QJsonDocument(QJsonArray{actual}).toJson(QJsonDocument::Compact)));
        return false;
    };
    if (expected.isDouble() && actual.isDouble()) {
        const double e = expected.toDouble(), a = actual.toDouble();
        return std::fabs(e - a) <= std::max(tol * std::max(std::fabs(e), std::fabs(a)), 1e-15)
                   ? true
                   : fail(QStringLiteral("numbers differ"));
    }
    if (expected.type() != actual.type())
        return fail(QStringLiteral("types differ"));
    if (expected.isObject()) {
        const QJsonObject eo = expected.toObject(), ao = actual.toObject();
        if (eo.keys() != ao.keys())
            return fail(QStringLiteral("keys differ"));
        for (auto it = eo.begin(); it != eo.end(); ++it)
            if (!nearlyEqual(it.value(), ao.value(it.key()), tol, difference, path + QLatin1Char('.') + it.key()))
                return false;
        return true;
    }
    if (expected.isArray()) {
        const QJsonArray ea = expected.toArray(), aa = actual.toArray();
        if (ea.size() != aa.size())
            return fail(QStringLiteral("array sizes differ"));
        for (qsizetype i = 0; i < ea.size(); ++i)
            if (!nearlyEqual(ea[i], aa[i], tol, difference, path + QStringLiteral("[%1]").arg(i)))
                return false;
        return true;
    }
    return expected == actual ? true : fail(QStringLiteral("values differ"));
}

} // namespace

class TestReferenceWing : public QObject
{
    Q_OBJECT

private slots:
    void runMetricsMatchTheOracle_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("expectedFile");
        QTest::addColumn<QString>("precision");  // empty: config=None
        QTest::addColumn<int>("steps");
        int rows = 0;
        for (const QString &f : runFolders()) {
            const QString dir = dataPath(QStringLiteral("runs/") + f);
            if (QFile::exists(dir + QStringLiteral("/expected.reference.json"))) {
                QTest::newRow(qPrintable(f)) << f << QStringLiteral("expected.reference.json") << QString() << 10;
                ++rows;
            }
            if (QFile::exists(dir + QStringLiteral("/expected.reference.fp16.json"))) {
                QTest::newRow(qPrintable(f + QStringLiteral(" fp16 steps=7")))
                    << f << QStringLiteral("expected.reference.fp16.json") << QStringLiteral("fp16") << 7;
                ++rows;
            }
        }
        QVERIFY2(rows >= 20, "the run fixtures with oracle output are missing");
    }

    void runMetricsMatchTheOracle()
    {
        QFETCH(QString, folder);
        QFETCH(QString, expectedFile);
        QFETCH(QString, precision);
        QFETCH(int, steps);
        const QString dir = dataPath(QStringLiteral("runs/") + folder);
        const reference::ReferenceInputs in = reference::readReferenceInputs(dir);
        const reference::ReferenceRun run = reference::assembleRun(in.kernels, in.torch, in.smi, dir);
        const std::optional<QString> config = precision.isEmpty() ? std::nullopt : std::optional<QString>(precision);
        QJsonObject metrics = reference::runMetricsJson(run, reference::wasteBudget(run, config), steps);
        QJsonObject expected = QJsonDocument::fromJson(readAll(dir + QLatin1Char('/') + expectedFile)).object();
        QVERIFY(!expected.isEmpty());

        QStringList actualWarnings, expectedWarnings;
        for (const QJsonValue &w : metrics.take(QStringLiteral("warnings")).toArray())
            actualWarnings << warningKey(w.toString());
        for (const QJsonValue &w : expected.take(QStringLiteral("warnings")).toArray())
            expectedWarnings << warningKey(w.toString());
        QCOMPARE(actualWarnings, expectedWarnings);

        QString difference;
        QVERIFY2(nearlyEqual(expected, metrics, 1e-9, difference), qPrintable(difference));
    }

    void crashesAreNamed_data()
    {
        QTest::addColumn<QString>("folder");
        for (const QString &f : runFolders())
            if (QFile::exists(dataPath(QStringLiteral("runs/%1/expected.reference.crash.txt").arg(f))))
                QTest::newRow(qPrintable(f)) << f;
    }

    void crashesAreNamed()
    {
        // Where the reference raises out of parse(), one of its readings says so, naming Python's
        // exception (the first word of what oracle.py printed).
        QFETCH(QString, folder);
        const QString dir = dataPath(QStringLiteral("runs/") + folder);
        const QString crash = QString::fromUtf8(readAll(dir + QStringLiteral("/expected.reference.crash.txt")));
        const QString exception = crash.section(QLatin1Char(':'), 0, 0).trimmed();
        QVERIFY(!exception.isEmpty());
        const reference::ReferenceInputs in = reference::readReferenceInputs(dir);
        const bool named = (in.kernels.reference.wouldCrash && in.kernels.reference.readFailure.contains(exception)) ||
                           (in.torch.reference.readFailed && in.torch.reference.readFailure.contains(exception)) ||
                           (in.smi.reference.readFailed && in.smi.reference.readFailure.contains(exception));
        QVERIFY2(named, qPrintable(QStringLiteral("no reference reading names %1").arg(exception)));
    }

    void everyPlanReadsTheSame_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("HTA MI250 (plain)") << QStringLiteral("torch/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json");
        QTest::newRow("generated, no metadata (plain)") << QStringLiteral("torch/gen_none.json");
    }

    void everyPlanReadsTheSame()
    {
        // The reference consumer alone behind the reader core: tiny chunks, and ranges read on
        // helper threads and absorbed in range order, give the reading of one plain pass.
        QFETCH(QString, file);
        const QString path = dataPath(file);
        const TorchTrace whole = reference::readReferenceTorch(path, file, TorchReadPlan{size_t(2) << 20, 0});
        QVERIFY(!whole.reference.readFailed);
        QVERIFY(whole.reference.stepTimeSeconds.has_value());
        QVERIFY(whole.eventCount > 0);
        const QFileInfo info(path);
        int rangesCounted = 0;
        for (const TorchReadPlan plan : {TorchReadPlan{4096, 0}, TorchReadPlan{4096, qint64(info.size() / 7 + 1)},
                                         TorchReadPlan{1 << 16, qint64(info.size() / 3 + 1)}}) {
            const TorchTrace t = reference::readReferenceTorch(path, file, plan);
            rangesCounted += t.parallelRanges;
            QCOMPARE(t.eventCount, whole.eventCount);
            QCOMPARE(t.reference.readFailed, whole.reference.readFailed);
            QCOMPARE(t.reference.profilerSteps, whole.reference.profilerSteps);
            QCOMPARE(t.reference.stepTimeSource, whole.reference.stepTimeSource);
            QCOMPARE(t.reference.hostBusySource, whole.reference.hostBusySource);
            // Merged ranges add their sums as a whole: equal to within a few ulps, not bit for bit.
            QVERIFY(std::fabs(*t.reference.stepTimeSeconds - *whole.reference.stepTimeSeconds) <=
                    1e-12 * std::fabs(*whole.reference.stepTimeSeconds));
            QCOMPARE(t.reference.hostBusyFraction.has_value(), whole.reference.hostBusyFraction.has_value());
            if (whole.reference.hostBusyFraction)
                QVERIFY(std::fabs(*t.reference.hostBusyFraction - *whole.reference.hostBusyFraction) <= 1e-12);
            // Only the reference's consumer was attached: the workbench's reading stays empty.
            QVERIFY(!t.workbench.stepTimeSeconds && t.timeline.files.empty() && t.file.dialect.isEmpty());
        }
        QVERIFY2(rangesCounted > 0, "no plan had byte ranges read on helper threads and merged");
    }
};

QTEST_GUILESS_MAIN(TestReferenceWing)
#include "tst_referencewing.moc"
