// Whole run folders through the engine: the reference profile must reproduce the reference's
// RunMetrics (expected.reference*.json were printed by shared/reference/oracle.py, see
// data/runs/make_fixtures.sh); every report must validate against resources/report.schema.json
// and be strict JSON; bad folders must give diagnostics, never a crash.

#include "report.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QDir>
#include <QMap>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace goblin;

class TestRunFolders : public QObject
{
    Q_OBJECT

private:
    static QStringList runFolders()
    {
        return QDir(test::dataPath(QStringLiteral("runs"))).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    }

    static QJsonObject schema()
    {
        return QJsonDocument::fromJson(test::readAll(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/report.schema.json")))
            .object();
    }

    /// The run folders that hold nothing the workbench reads (issue 23): loadRun() fails on them,
    /// naming each file and why; the reference's reading of them is still kept (as
    /// LoadResult::unreadableRun) and still equals what Python prints.
    static QMap<QString, QStringList> nothingReadable()
    {
        return {
            {QStringLiteral("bad-empty-files"),
             {"trace.csv is empty (0 bytes)", "torch_profile.json is empty (0 bytes)", "amd_smi.csv is empty (0 bytes)"}},
            {QStringLiteral("bad-folder-as-file"),
             {"trace.csv is a folder, not a file", "torch_profile.json is a folder, not a file",
              "amd_smi.csv is a folder, not a file"}},
            {QStringLiteral("bad-garbage"),
             {"trace.csv is not a kernel trace (binary data", "torch_profile.json is not a chrome trace (binary data",
              "amd_smi.csv is not amd-smi telemetry (binary data"}},
            {QStringLiteral("bad-header-only"), {"trace.csv: has a header", "torch_profile.json: the trace holds no events",
                                                 "amd_smi.csv: a header (line 1) but no data rows"}},
            {QStringLiteral("bad-missing-all"), {"no trace.csv, torch_profile.json, amd_smi.csv", "README (text"}},
            // Every timestamp written as 8.1097E+14: no kernel has a duration left.
            {QStringLiteral("real-omniperf-crlf"), {"trace.csv: timestamps are written in floating-point notation"}},
            // rocprofv3's statistics file in trace.csv's place: no dispatch at all.
            {QStringLiteral("real-stats-as-trace"), {"trace.csv: a statistics file"}},
        };
    }

    /// The analysis a load produced: the run, or what was read of a folder with nothing readable.
    static std::shared_ptr<const RunAnalysis> analysed(const QString &folder, const LoadResult &loaded)
    {
        if (nothingReadable().contains(folder)) {
            if (loaded.outcome != LoadOutcome::Failed || loaded.run)
                return nullptr;
            return loaded.unreadableRun;
        }
        return loaded.outcome == LoadOutcome::Finished ? loaded.run : nullptr;
    }

    /// Warnings carry Python exception texts and the path the oracle was given; compare the
    /// part before either.
    static QString warningKey(QString w)
    {
        for (const QString &cut : {QStringLiteral(" ("), QStringLiteral(" at ")}) {
            const int i = w.indexOf(cut);
            if (i >= 0)
                w = w.left(i);
        }
        return w;
    }

private slots:
    void referenceParity_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("expectedFile");
        QTest::addColumn<int>("precision");
        QTest::addColumn<int>("steps");
        for (const QString &f : runFolders()) {
            const QString dir = test::dataPath(QStringLiteral("runs/") + f);
            if (QFile::exists(dir + QStringLiteral("/expected.reference.json")))
                QTest::newRow(qPrintable(f)) << f << QStringLiteral("expected.reference.json") << int(Precision::None) << 0;
            if (QFile::exists(dir + QStringLiteral("/expected.reference.fp16.json")))
                QTest::newRow(qPrintable(f + QStringLiteral(" fp16 steps=7")))
                    << f << QStringLiteral("expected.reference.fp16.json") << int(Precision::Fp16) << 7;
        }
    }

    void referenceParity()
    {
        QFETCH(QString, folder);
        QFETCH(QString, expectedFile);
        QFETCH(int, precision);
        QFETCH(int, steps);
        const QString dir = test::dataPath(QStringLiteral("runs/") + folder);
        const LoadResult loaded = loadRun(dir);
        const auto run = analysed(folder, loaded);
        QVERIFY2(run, qPrintable(loaded.error));
        Thresholds t;
        t.precision = Precision(precision);
        if (steps > 0)
            t.steps = steps;
        QJsonObject metrics = buildReport(*run, HeuristicsProfile::Reference, t).value("metrics").toObject();
        QJsonObject expected = QJsonDocument::fromJson(test::readAll(dir + QLatin1Char('/') + expectedFile)).object();
        QVERIFY(!expected.isEmpty());

        QStringList actualWarnings, expectedWarnings;
        for (const QJsonValue &w : metrics.take(QStringLiteral("warnings")).toArray())
            actualWarnings << warningKey(w.toString());
        for (const QJsonValue &w : expected.take(QStringLiteral("warnings")).toArray())
            expectedWarnings << warningKey(w.toString());
        QCOMPARE(actualWarnings, expectedWarnings);

        QString difference;
        if (!test::jsonNearlyEqual(expected, metrics, 1e-9, &difference)) {
            QFile actualOut(dir + QLatin1Char('/') + expectedFile + QStringLiteral(".actual"));
            if (actualOut.open(QIODevice::WriteOnly))
                actualOut.write(QJsonDocument(metrics).toJson());
            QFAIL(qPrintable(difference));
        }
    }

    void referenceCrashesWeDoNot_data()
    {
        QTest::addColumn<QString>("folder");
        for (const QString &f : runFolders())
            if (QFile::exists(test::dataPath(QStringLiteral("runs/%1/expected.reference.crash.txt").arg(f))))
                QTest::newRow(qPrintable(f)) << f;
    }

    void referenceCrashesWeDoNot()
    {
        // The reference raises (e.g. UnicodeDecodeError) on these folders; the workbench reports
        // it and carries on.
        QFETCH(QString, folder);
        const LoadResult loaded = loadRun(test::dataPath(QStringLiteral("runs/") + folder));
        const auto run = analysed(folder, loaded);
        QVERIFY2(run, qPrintable(loaded.error));
        const QJsonObject report = buildReport(*run, HeuristicsProfile::Reference, Thresholds());
        QVERIFY(!report.value("diagnostics").toArray().isEmpty());
        bool mentionsCrash = false;
        for (const QJsonValue &d : report.value("diagnostics").toArray())
            mentionsCrash = mentionsCrash || d.toObject().value("message").toString().contains(QLatin1String("reference"));
        QVERIFY2(mentionsCrash, "a diagnostic must say the reference would fail here");
    }

    void reportsValidateAndAreStrict_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("profile");
        for (const QString &f : runFolders()) {
            QTest::newRow(qPrintable(f + QStringLiteral(" workbench"))) << f << int(HeuristicsProfile::Workbench);
            QTest::newRow(qPrintable(f + QStringLiteral(" reference"))) << f << int(HeuristicsProfile::Reference);
        }
    }

    void reportsValidateAndAreStrict()
    {
        QFETCH(QString, folder);
        QFETCH(int, profile);
        const LoadResult loaded = loadRun(test::dataPath(QStringLiteral("runs/") + folder));
        const auto run = analysed(folder, loaded);
        QVERIFY2(run, qPrintable(loaded.error));
        const QJsonObject report = buildReport(*run, HeuristicsProfile(profile), Thresholds());
        const QStringList errors = test::validateJsonSchema(report, schema());
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
        const QByteArray text = QJsonDocument(report).toJson();
        QJsonParseError error;
        QJsonDocument::fromJson(text, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        for (const QJsonValue &d : report.value("diagnostics").toArray())
            QVERIFY(!d.toObject().value("message").toString().isEmpty());
    }

    void badFoldersNameTheirFiles_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QStringList>("filesNamed");
        QTest::newRow("empty files") << "bad-empty-files"
                                     << QStringList{"trace.csv", "torch_profile.json", "amd_smi.csv"};
        QTest::newRow("binary garbage") << "bad-garbage" << QStringList{"trace.csv", "torch_profile.json", "amd_smi.csv"};
        QTest::newRow("folders where files should be")
            << "bad-folder-as-file" << QStringList{"trace.csv", "torch_profile.json", "amd_smi.csv"};
        QTest::newRow("header without rows") << "bad-header-only" << QStringList{"trace.csv", "amd_smi.csv"};
        QTest::newRow("truncated json") << "bad-truncated-json" << QStringList{"torch_profile.json"};
        QTest::newRow("NaN and negative values") << "bad-nan-negative" << QStringList{"trace.csv", "amd_smi.csv"};
        QTest::newRow("nothing in the folder") << "bad-missing-all"
                                               << QStringList{"trace.csv", "torch_profile.json", "amd_smi.csv"};
    }

    void badFoldersNameTheirFiles()
    {
        QFETCH(QString, folder);
        QFETCH(QStringList, filesNamed);
        const LoadResult loaded = loadRun(test::dataPath(QStringLiteral("runs/") + folder));
        const auto run = analysed(folder, loaded);
        QVERIFY2(run, qPrintable(loaded.error));
        for (const QString &file : filesNamed) {
            bool named = false;
            for (const Diagnostic &d : run->diagnostics)
                named = named || ((d.file == file || d.message.contains(file)) && d.severity != Severity::Info);
            QVERIFY2(named, qPrintable(QStringLiteral("no warning names %1").arg(file)));
        }
    }

    void nothingReadableFails_data()
    {
        QTest::addColumn<QString>("folder");
        for (const QString &f : runFolders())
            QTest::newRow(qPrintable(f)) << f;
    }

    void nothingReadableFails()
    {
        // Issue 23: a folder whose inputs are all empty, refused or unreadable is no run; the
        // message names the folder and says why, file by file. Every other fixture loads.
        QFETCH(QString, folder);
        const QString dir = test::dataPath(QStringLiteral("runs/") + folder);
        const LoadResult loaded = loadRun(dir);
        if (!nothingReadable().contains(folder)) {
            QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
            return;
        }
        QCOMPARE(int(loaded.outcome), int(LoadOutcome::Failed));
        QVERIFY(!loaded.run);
        QVERIFY(loaded.unreadableRun);
        QVERIFY2(loaded.error.startsWith(dir + QStringLiteral(": no input the workbench reads: ")), qPrintable(loaded.error));
        for (const QString &words : nothingReadable().value(folder))
            QVERIFY2(loaded.error.contains(words), qPrintable(QStringLiteral("\"%1\" lacks \"%2\"").arg(loaded.error, words)));
    }

    void nanAndNegativeAreNeverReadAsNumbers()
    {
        // bad-nan-negative: one kernel row has End < Start, one a NaN start, one 'abc' as end;
        // amd_smi.csv has N/A, nan, inf and a negative VRAM value.
        const LoadResult loaded = loadRun(test::dataPath(QStringLiteral("runs/bad-nan-negative")));
        const RunAnalysis &run = *loaded.run;
        QCOMPARE(run.kernels.workbench.rowsUsed, qint64(3));
        QCOMPARE(run.kernels.workbench.totalNs, qint64(500000 + 600000 + 300000));
        QVERIFY(run.smi.workbench.gpuUtilPct.has_value());
        QCOMPARE(*run.smi.workbench.gpuUtilPct, 50.0);  // only the finite 50 %
        // The reference takes min(100, nan) = 100 and min(100, inf) = 100: 83.3 %.
        QVERIFY(qAbs(*run.smi.reference.gpuUtilPct - 250.0 / 3.0) < 1e-9);
    }
};

QTEST_GUILESS_MAIN(TestRunFolders)
#include "tst_runfolders.moc"
