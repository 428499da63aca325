// `export-sqlite`: the database's row counts equal the report's, its numbers are the report's,
// every query in docs/sqlite-export.md runs on it, it is written atomically (an older file stays
// whole when a write fails) and never into the run folder.

#include "report.h"
#include "run.h"
#include "runanalysis.h"
#include "sqliteexport.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <sqlite3.h>

using namespace goblin;

namespace {

struct Database {
    sqlite3 *db = nullptr;
    explicit Database(const QString &path) { sqlite3_open_v2(QFile::encodeName(path).constData(), &db, SQLITE_OPEN_READONLY, nullptr); }
    ~Database() { sqlite3_close(db); }
    /// The first column of the first row as a double; NaN when there is none; `error` on failure.
    double scalar(const QString &sql, QString *error = nullptr) const
    {
        sqlite3_stmt *st = nullptr;
        double out = qQNaN();
        if (sqlite3_prepare_v2(db, sql.toUtf8().constData(), -1, &st, nullptr) != SQLITE_OK) {
            if (error)
                *error = QString::fromUtf8(sqlite3_errmsg(db));
            return out;
        }
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
            out = sqlite3_column_double(st, 0);
        while (rc == SQLITE_ROW)
            rc = sqlite3_step(st);
        if (rc != SQLITE_DONE && error)
            *error = QString::fromUtf8(sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return out;
    }
    qint64 count(const QString &table) const { return qint64(scalar(QStringLiteral("SELECT COUNT(*) FROM ") + table)); }
};

struct Exported {
    std::shared_ptr<const RunAnalysis> run;
    QJsonObject report;
};

Exported exportRun(const QString &dir, const QString &path, QString *error)
{
    const LoadResult loaded = loadRun(dir);
    if (loaded.outcome != LoadOutcome::Finished || !loaded.run)
        return {};
    Exported e{loaded.run, buildReport(*loaded.run, HeuristicsProfile::Workbench, Thresholds{})};
    if (!writeSqliteExport(*e.run, e.report, path, error))
        return {};
    return e;
}

} // namespace

class TestSqliteExport : public QObject
{
    Q_OBJECT

private slots:
    void rowsAreTheReports_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::newRow("example run") << QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run");
        QTest::newRow("small run") << test::dataPath(QStringLiteral("window/run-small"));
        QTest::newRow("kernel trace only") << test::dataPath(QStringLiteral("realworld/non-pytorch-kernel-trace"));
        QTest::newRow("four ranks") << test::dataPath(QStringLiteral("runs/ranks-4traces"));
    }
    void rowsAreTheReports()
    {
        QFETCH(QString, dir);
        QTemporaryDir out;
        const QString path = out.filePath(QStringLiteral("run.sqlite"));
        QString error;
        const Exported e = exportRun(dir, path, &error);
        QVERIFY2(e.run, qPrintable(error));
        const Database db(path);
        QVERIFY(db.db);
        QCOMPARE(db.scalar(QStringLiteral("SELECT version FROM schema_version")), double(kSqliteExportSchemaVersion));
        QCOMPARE(db.count(QStringLiteral("runs")), 1);
        QCOMPARE(db.count(QStringLiteral("steps")), e.report["per_step"].toArray().size());
        QCOMPARE(db.count(QStringLiteral("ops")), e.report["ops"].toArray().size());
        QCOMPARE(db.count(QStringLiteral("diagnostics")), e.report["diagnostics"].toArray().size());
        QCOMPARE(db.count(QStringLiteral("kernels")), e.report["aggregates"]["distinct_kernel_names"].toInteger());
        QCOMPARE(db.count(QStringLiteral("devices")), e.report["facts"]["devices"].toArray().size());
        QCOMPARE(db.count(QStringLiteral("telemetry")), qint64(e.run->smi.samples.size()));
        qint64 timelineRows = 0;
        for (const QJsonValue &d : e.report["timeline"]["devices"].toArray())
            timelineRows += d["per_step"].toArray().size();
        QCOMPARE(db.count(QStringLiteral("timeline")), timelineRows);
        // The run's budget rows hold the report's values exactly.
        const QJsonObject buckets = e.report["budget"]["buckets"].toObject();
        for (auto it = buckets.begin(); it != buckets.end(); ++it) {
            const double want = it.value()[QLatin1String("seconds_per_step")].toDouble(qQNaN());
            const double got = db.scalar(
                QStringLiteral("SELECT seconds FROM budget WHERE step_index IS NULL AND bucket = '%1'").arg(it.key()));
            QVERIFY2((qIsNaN(want) && qIsNaN(got)) || want == got, qPrintable(it.key()));
        }
        const QJsonValue step = e.report["quantities"]["step_time_s"]["value"];
        QCOMPARE(db.scalar(QStringLiteral("SELECT step_time_s FROM runs")), step.toDouble(qQNaN()));
    }

    /// Every ```sql block of docs/sqlite-export.md runs on an export.
    void documentedQueriesRun()
    {
        QFile doc(QStringLiteral(GOBLIN_SOURCE_DIR "/docs/sqlite-export.md"));
        QVERIFY(doc.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(doc.readAll());
        static const QRegularExpression block(QStringLiteral("```sql\\n(.*?)```"),
                                              QRegularExpression::DotMatchesEverythingOption);
        QTemporaryDir out;
        const QString path = out.filePath(QStringLiteral("run.sqlite"));
        QString error;
        QVERIFY2(exportRun(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run"), path, &error).run, qPrintable(error));
        const Database db(path);
        int queries = 0;
        for (auto it = block.globalMatch(text); it.hasNext();) {
            const QString sql = it.next().captured(1);
            QString problem;
            db.scalar(sql, &problem);
            QVERIFY2(problem.isEmpty(), qPrintable(sql + QStringLiteral(": ") + problem));
            ++queries;
        }
        QVERIFY(queries >= 5);
    }

    void atomicAndNeverInTheRunFolder()
    {
        const QString dir = test::dataPath(QStringLiteral("window/run-small"));
        QTemporaryDir out;
        const QString path = out.filePath(QStringLiteral("run.sqlite"));
        QString error;
        QVERIFY2(exportRun(dir, path, &error).run, qPrintable(error));
        const qint64 size = QFileInfo(path).size();
        QVERIFY(size > 0);
        // Written again over itself: replaced whole, nothing left beside it.
        QVERIFY2(exportRun(dir, path, &error).run, qPrintable(error));
        QCOMPARE(QDir(out.path()).entryList(QDir::Files), QStringList{QStringLiteral("run.sqlite")});
        // Into the run folder: refused, nothing written there.
        const QStringList before = QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
        QVERIFY(!exportRun(dir, QDir(dir).filePath(QStringLiteral("x.sqlite")), &error).run);
        QVERIFY2(error.contains(QStringLiteral("never writes into a run folder")), qPrintable(error));
        QCOMPARE(QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), before);
        // Into a folder that does not exist: an error naming the path.
        const QString nowhere = out.filePath(QStringLiteral("missing/run.sqlite"));
        QVERIFY(!exportRun(dir, nowhere, &error).run);
        QVERIFY2(error.contains(nowhere), qPrintable(error));
    }

    void commandLine()
    {
        QTemporaryDir out;
        const QString path = out.filePath(QStringLiteral("cli.sqlite"));
        const test::AppRun ok =
            test::runApp({QStringLiteral("export-sqlite"), test::dataPath(QStringLiteral("window/run-small")), QStringLiteral("-o"), path});
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
        QVERIFY(ok.err.contains("wrote"));
        QVERIFY(QFileInfo(path).size() > 0);
        const test::AppRun noOutput =
            test::runApp({QStringLiteral("export-sqlite"), test::dataPath(QStringLiteral("window/run-small"))});
        QCOMPARE(noOutput.exitCode, 2);
        const test::AppRun unreadable = test::runApp(
            {QStringLiteral("export-sqlite"), test::dataPath(QStringLiteral("runs/bad-garbage")), QStringLiteral("-o"), path + "2"});
        QCOMPARE(unreadable.exitCode, 1);
        QVERIFY(!QFileInfo::exists(path + "2"));
    }
};

QTEST_GUILESS_MAIN(TestSqliteExport)
#include "tst_sqliteexport.moc"
