// Tests for rocmProfileData (.rpd) databases read as a kernel source (src/parsers/rpd/). The
// fixture is a real rpd_tracer file (tests/data/rpd/matmul_result.rpd, PROVENANCE.md); the
// expected numbers (tests/data/rpd/matmul_result.expected.json) are plain SQL counts made by
// scripts/rpd_count.py, which also checks them against rpd2tracing's JSON twin of the file.
// Variants (markers, Task ops, schema 3, shuffled rows, hostile files) are built by the tests
// from that fixture in a temporary folder.
#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "kerneltraceparser.h"
#include "rocpd/rocpdfile.h"
#include "rpd/dbcommon.h"
#include "rpd/rpdreader.h"
#include "databasefixture.h"
#include "testsupport.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <sqlite3.h>

#include <algorithm>
#include <map>

using namespace goblin;
using goblin::test::diagnosticsText;
using goblin::test::execSql;
using goblin::test::findDiagnostic;
using goblin::test::folderState;

namespace
{

const QString kFixture = QStringLiteral("rpd/matmul_result.rpd");





/// A copy of the fixture at `rel` under `dir`, writable (the tests change it).
QString copyFixture(const QString &dir, const QString &rel)
{
    const QString path = QDir(dir).filePath(rel);
    QDir().mkpath(QFileInfo(path).absolutePath());
    if (!QFile::copy(test::dataPath(kFixture), path))
        return QString();
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    return path;
}

QJsonObject expected()
{
    return QJsonDocument::fromJson(test::readAll(test::dataPath(QStringLiteral("rpd/matmul_result.expected.json"))))
        .object();
}

qint64 eventsOfKind(const GpuTimeline &t, GpuEventKind kind)
{
    qint64 n = 0;
    for (const GpuTimelineFile &f : t.files)
        for (const GpuDeviceTimeline &d : f.devices)
            for (const GpuEvent &e : d.events)
                n += e.kind == kind;
    return n;
}

int namesUsed(const KernelReading &r)
{
    return int(std::count_if(r.perName.begin(), r.perName.end(), [](const KernelNameStats &s) { return s.calls > 0; }));
}

} // namespace

class TestRpdReader : public QObject
{
    Q_OBJECT

private slots:
    void matchesSqlCounts();
    void recognisedByTables_data();
    void recognisedByTables();
    void markersTasksAndSchema3();
    void rowsOutOfOrder();
    void directCallFeedsWorkbenchOnly();
    void hostileFiles_data();
    void hostileFiles();
    void lockedDatabase();
    void progressAndCancel();
    void guardRefusesAndStops();
    void gzippedDatabase_data();
    void gzippedDatabase();
};

/// The real rpd_tracer file: the workbench's kernels, timeline and host activity equal the
/// SQL counts of scripts/rpd_count.py; the reference reads nothing from it.
void TestRpdReader::matchesSqlCounts()
{
    QTemporaryDir tmp;
    QVERIFY(!copyFixture(tmp.path(), QStringLiteral("matmul_result.rpd")).isEmpty());
    QFile::setPermissions(tmp.filePath(QStringLiteral("matmul_result.rpd")), QFile::ReadOwner);
    const QStringList before = folderState(tmp.path());
    const KernelTrace t = parseKernelTraces(tmp.path());
    QCOMPARE(folderState(tmp.path()), before);
    const QJsonObject x = expected();
    QVERIFY2(x.value(QStringLiteral("twin_check")).toObject().value(QStringLiteral("agrees")).toBool(),
             "rpd_count.py's cross-check with rpd2tracing's JSON failed");

    QCOMPARE(int(t.files.size()), 1);
    QCOMPARE(t.files.front().format, QStringLiteral("rpd"));
    QVERIFY2(t.files.front().dialect.contains(QStringLiteral("schema 2")), qPrintable(t.files.front().dialect));
    QCOMPARE(t.files.front().rowsRead, qint64(85));
    QCOMPARE(t.workbench.rowsUsed, qint64(x.value(QStringLiteral("kernels_used")).toInteger()));
    QCOMPARE(t.workbench.totalNs, qint64(x.value(QStringLiteral("kernel_total_ns")).toInteger()));
    QCOMPARE(namesUsed(t.workbench), x.value(QStringLiteral("kernel_names_used")).toInt());
    QVERIFY(t.workbench.hasTimestamps);
    QCOMPARE(t.workbench.firstStartNs, qint64(x.value(QStringLiteral("first_start_ns")).toInteger()));
    QCOMPARE(t.workbench.lastEndNs, qint64(x.value(QStringLiteral("last_end_ns")).toInteger()));
    QCOMPARE(t.workbench.agents, QStringList{QStringLiteral("GPU 2")});
    // The reference reads no rpd: its "trace.csv not found" stands.
    QVERIFY(!t.referenceFileFound);
    QCOMPARE(t.reference.rowsUsed, qint64(0));

    QCOMPARE(t.timeline.files.size(), size_t(1));
    const GpuTimelineFile &f = t.timeline.files.front();
    QCOMPARE(f.source, QStringLiteral("rpd"));
    QCOMPARE(f.file, QStringLiteral("matmul_result.rpd"));
    const QJsonArray perGpu = x.value(QStringLiteral("per_gpu")).toArray();
    QCOMPARE(int(f.devices.size()), x.value(QStringLiteral("gpus")).toInt());
    for (const QJsonValue &g : perGpu) {
        const auto it = std::find_if(f.devices.begin(), f.devices.end(), [&](const GpuDeviceTimeline &d) {
            return d.device == g.toObject().value(QStringLiteral("gpu")).toInteger();
        });
        QVERIFY(it != f.devices.end());
        qint64 kernels = 0, totalNs = 0;
        for (const GpuEvent &e : it->events)
            if (e.kind == GpuEventKind::Kernel) {
                ++kernels;
                totalNs += e.endNs - e.startNs;
            }
        QCOMPARE(kernels, qint64(g.toObject().value(QStringLiteral("kernels")).toInteger()));
        QCOMPARE(totalNs, qint64(g.toObject().value(QStringLiteral("total_ns")).toInteger()));
    }
    QCOMPARE(eventsOfKind(t.timeline, GpuEventKind::Memcpy), qint64(x.value(QStringLiteral("copies")).toInteger()));
    QCOMPARE(eventsOfKind(t.timeline, GpuEventKind::Memset), qint64(x.value(QStringLiteral("memsets")).toInteger()));

    QCOMPARE(qint64(t.host.runtimeCalls.size()), qint64(x.value(QStringLiteral("runtime_calls")).toInteger()));
    QCOMPARE(qint64(t.host.ranges.size()), qint64(x.value(QStringLiteral("marker_ranges")).toInteger()));
    QCOMPARE(t.host.files, QStringList{QStringLiteral("matmul_result.rpd")});
    QCOMPARE(t.host.runtimeName, QStringLiteral("HIP"));
    const QString monitor =
        QStringLiteral("%1 rocpd_monitor samples").arg(x.value(QStringLiteral("monitor_samples")).toInt());
    const Diagnostic *d = findDiagnostic(t.diagnostics, QStringLiteral("matmul_result.rpd"), monitor);
    QVERIFY2(d && d->severity == Severity::Info, qPrintable(diagnosticsText(t.diagnostics)));
    QVERIFY2(findDiagnostic(t.diagnostics, QStringLiteral("matmul_result.rpd"),
                            QStringLiteral("%1 rocpd_api rows are rpd_tracer's own overhead records")
                                .arg(x.value(QStringLiteral("overhead_records")).toInt())),
             qPrintable(diagnosticsText(t.diagnostics)));
    QVERIFY2(
        findDiagnostic(t.diagnostics, QStringLiteral("trace.csv"), QStringLiteral("the reference reads neither kind")),
        qPrintable(diagnosticsText(t.diagnostics)));
}

void TestRpdReader::recognisedByTables_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow(".rpd") << QStringLiteral("run.rpd");
    QTest::newRow(".db") << QStringLiteral("profile.db");
    QTest::newRow(".sqlite3 in a host folder") << QStringLiteral("node01/trace.sqlite3");
}

/// The file's tables decide, not its name.
void TestRpdReader::recognisedByTables()
{
    QFETCH(QString, name);
    QTemporaryDir tmp;
    QVERIFY(!copyFixture(tmp.path(), name).isEmpty());
    const KernelTrace t = parseKernelTraces(tmp.path());
    QCOMPARE(int(t.files.size()), 1);
    QCOMPARE(t.files.front().relativePath, name);
    QCOMPARE(t.files.front().format, QStringLiteral("rpd"));
    QCOMPARE(t.workbench.rowsUsed, qint64(expected().value(QStringLiteral("kernels_used")).toInteger()));
}

/// UserMarker rows are marker ranges (instants when start == end); a Task op (a kernel replayed
/// from a HIP graph) is a kernel; other op types are named; schema 3 reads the markers' text from
/// rocpd_ustring.
void TestRpdReader::markersTasksAndSchema3()
{
    for (const bool schema3 : {false, true}) {
        QTemporaryDir tmp;
        const QString path = copyFixture(tmp.path(), QStringLiteral("m.rpd"));
        const QByteArray args = schema3 ? "rocpd_ustring" : "rocpd_string";
        QString error;
        QByteArray sql = "INSERT INTO rocpd_string(id, string) VALUES (900, 'UserMarker'), (901, 'Task'), "
                         "(902, 'my_graph_kernel(float*)'), (903, 'Barrier');";
        if (schema3)
            sql += "UPDATE rocpd_metadata SET value = '3' WHERE tag = 'schema_version';"
                   "CREATE TABLE rocpd_ustring(id integer PRIMARY KEY, string varchar(4096) NOT NULL);";
        sql += "INSERT INTO " + args +
               "(id, string) VALUES (910, 'ProfilerStep#1'), (911, 'checkpoint');"
               "INSERT INTO rocpd_api(pid, tid, start, \"end\", apiName_id, args_id) VALUES "
               "(77, 78, 8306020565000000, 8306020600000000, 900, 910), (77, 78, 8306020610000000, 8306020610000000, "
               "900, 911);"
               "INSERT INTO rocpd_op(gpuId, queueId, sequenceId, completionSignal, start, \"end\", description_id, "
               "opType_id) "
               "VALUES (2, 0, 0, '', 8306020700000000, 8306020700001000, 902, 901),"
               "(2, 0, 0, '', 8306020700002000, 8306020700003000, 1, 903);";
        QVERIFY2(execSql(path, sql, &error), qPrintable(error));
        const KernelTrace t = parseKernelTraces(tmp.path());
        const QJsonObject x = expected();
        QCOMPARE(t.workbench.rowsUsed, qint64(x.value(QStringLiteral("kernels_used")).toInteger()) + 1);
        QCOMPARE(t.workbench.totalNs, qint64(x.value(QStringLiteral("kernel_total_ns")).toInteger()) + 1000);
        QCOMPARE(t.host.ranges.size(), size_t(2));
        std::vector<MarkerRange> ranges = t.host.ranges;
        std::sort(ranges.begin(), ranges.end(),
                  [](const MarkerRange &a, const MarkerRange &b) { return a.startNs < b.startNs; });
        QCOMPARE(ranges[0].name, QStringLiteral("ProfilerStep#1"));
        QCOMPARE(ranges[0].process, qint64(77));
        QCOMPARE(ranges[0].thread, qint64(78));
        QCOMPARE(ranges[0].endNs - ranges[0].startNs, qint64(35'000'000));
        QCOMPARE(ranges[1].name, QStringLiteral("checkpoint"));
        QCOMPARE(ranges[1].endNs, ranges[1].startNs);
        QCOMPARE(qint64(t.host.runtimeCalls.size()), qint64(x.value(QStringLiteral("runtime_calls")).toInteger()));
        QVERIFY2(findDiagnostic(t.diagnostics, QStringLiteral("m.rpd"), QStringLiteral("1 Barrier")),
                 qPrintable(diagnosticsText(t.diagnostics)));
        QVERIFY(t.files.front().dialect.contains(schema3 ? QStringLiteral("schema 3") : QStringLiteral("schema 2")));
        // Steps come of the marker named like a step, as for the CSV API traces.
        const ApiTraces api = apiTracesFrom(t.host);
        QCOMPARE(api.stepRanges, qint64(1));
    }
}

/// Rows stored out of time order: the timeline's events are sorted per device and the first
/// kernel used is the earliest one.
void TestRpdReader::rowsOutOfOrder()
{
    QTemporaryDir tmp;
    const QString path = copyFixture(tmp.path(), QStringLiteral("r.rpd"));
    QString error;
    QVERIFY2(execSql(path,
                     "CREATE TABLE shuffled AS SELECT * FROM rocpd_op ORDER BY (id * 7919) % 85 DESC;"
                     "DROP VIEW op; DROP VIEW busy; DROP VIEW top; DROP VIEW kernel; DROP VIEW copyop;"
                     "DROP TABLE rocpd_op; ALTER TABLE shuffled RENAME TO rocpd_op;",
                     &error),
             qPrintable(error));
    const KernelTrace t = parseKernelTraces(tmp.path());
    const QJsonObject x = expected();
    QCOMPARE(t.workbench.rowsUsed, qint64(x.value(QStringLiteral("kernels_used")).toInteger()));
    QCOMPARE(t.workbench.totalNs, qint64(x.value(QStringLiteral("kernel_total_ns")).toInteger()));
    for (const GpuTimelineFile &f : t.timeline.files)
        for (const GpuDeviceTimeline &d : f.devices)
            for (size_t i = 1; i < d.events.size(); ++i)
                QVERIFY(d.events.startNs(i - 1) <= d.events.startNs(i));
    // The first name used (firstRow 0) is that of the earliest kernel.
    const auto first = std::find_if(t.workbench.perName.begin(), t.workbench.perName.end(),
                                    [](const KernelNameStats &s) { return s.firstRow == 0; });
    QVERIFY(first != t.workbench.perName.end());
    QVERIFY(QByteArray::fromStdString(t.names[size_t(first - t.workbench.perName.begin())])
                .startsWith("Cijk_Ailk_Bljk_SB"));
}

/// readRpdDatabase itself: one InputFileInfo, the workbench accumulator fed, no reference.
void TestRpdReader::directCallFeedsWorkbenchOnly()
{
    KernelTrace trace;
    kernels::NamePool names;
    kernels::Accumulator wb;
    wb.reading = &trace.workbench;
    KernelSink sink{names, nullptr, wb, 0};
    const ReadOutcome outcome = readRpdDatabase(test::dataPath(kFixture), QStringLiteral("x.rpd"), sink, trace);
    QCOMPARE(int(outcome), int(ReadOutcome::Read));
    QCOMPARE(trace.files.size(), size_t(1));
    QCOMPARE(trace.workbench.rowsUsed, qint64(expected().value(QStringLiteral("kernels_used")).toInteger()));
    QCOMPARE(trace.reference.rowsUsed, qint64(0));
}

void TestRpdReader::hostileFiles_data()
{
    QTest::addColumn<QByteArray>("kind");
    QTest::addColumn<QString>("expected");
    QTest::newRow("endless recursive view for rocpd_op")
        << QByteArray("recursive") << QStringLiteral("rocpd_op (a view, not a table)");
    QTest::newRow("every table a view") << QByteArray("allviews") << QStringLiteral("a view, not a table");
    QTest::newRow("empty file") << QByteArray("empty") << QStringLiteral("is empty (0 bytes)");
    QTest::newRow("not SQLite") << QByteArray("garbage") << QStringLiteral("is not an SQLite database");
    QTest::newRow("truncated (half-copied)") << QByteArray("truncated") << QStringLiteral("is truncated");
    QTest::newRow("foreign SQLite file") << QByteArray("foreign") << QStringLiteral("without rocpd tables");
    QTest::newRow("rpd names, columns missing") << QByteArray("columns") << QStringLiteral("not read as rpd either");
    QTest::newRow("malformed pages") << QByteArray("malformed") << QString();
}

/// A stranger's file: refused or read within seconds, with a diagnostic naming the file (never
/// Info only), nothing written into the folder.
void TestRpdReader::hostileFiles()
{
    QFETCH(QByteArray, kind);
    QFETCH(QString, expected);
    QTemporaryDir tmp;
    const QString rel = QStringLiteral("host/evil.rpd");
    const QString path = tmp.filePath(rel);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QString error;
    if (kind == "empty" || kind == "garbage") {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        if (kind == "garbage")
            f.write(QByteArray(8192, '\x5a'));
    } else if (kind == "foreign") {
        QVERIFY(execSql(path, "CREATE TABLE results(x); INSERT INTO results VALUES (1);"));
    } else {
        QVERIFY(!copyFixture(tmp.path(), rel).isEmpty());
        QFile f(path);
        if (kind == "recursive") {
            QVERIFY2(
                execSql(path,
                        "DROP VIEW op; DROP VIEW busy; DROP VIEW top; DROP VIEW kernel; DROP VIEW copyop;"
                        "DROP TABLE rocpd_op; CREATE VIEW rocpd_op AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL "
                        "SELECT x + 1 FROM r) SELECT x AS id, 2 AS gpuId, 0 AS queueId, 0 AS sequenceId, x AS start, "
                        "x + 1 AS \"end\", 1 AS description_id, 40 AS opType_id FROM r;",
                        &error),
                qPrintable(error));
        } else if (kind == "allviews") {
            QVERIFY2(
                execSql(
                    path,
                    "DROP VIEW op; DROP VIEW busy; DROP VIEW top; DROP VIEW kernel; DROP VIEW copyop; DROP VIEW api;"
                    "DROP VIEW copy; DROP VIEW ktop;"
                    "ALTER TABLE rocpd_op RENAME TO o; ALTER TABLE rocpd_api RENAME TO a; ALTER TABLE rocpd_string "
                    "RENAME TO s; CREATE VIEW rocpd_op AS SELECT * FROM o; CREATE VIEW rocpd_api AS SELECT * FROM a;"
                    "CREATE VIEW rocpd_string AS SELECT * FROM s;",
                    &error),
                qPrintable(error));
        } else if (kind == "columns") {
            QVERIFY2(execSql(path,
                             "DROP VIEW op; DROP VIEW busy; DROP VIEW top; DROP VIEW kernel; DROP VIEW copyop;"
                             "ALTER TABLE rocpd_op DROP COLUMN queueId;",
                             &error),
                     qPrintable(error));
        } else if (kind == "truncated") {
            QVERIFY(f.resize(f.size() / 2));
        } else if (kind == "malformed") {
            QVERIFY(f.open(QIODevice::ReadWrite));
            f.seek(8192);
            f.write(QByteArray(int(f.size() - 8192), '\xa5'));
        }
    }
    QFile::setPermissions(path, QFile::ReadOwner); // nothing may be written, not even by accident
    const QStringList before = folderState(tmp.path());
    QElapsedTimer timer;
    timer.start();
    const KernelTrace t = parseKernelTraces(tmp.path());
    QVERIFY2(timer.elapsed() < 10'000, qPrintable(QStringLiteral("%1 ms").arg(timer.elapsed())));
    QCOMPARE(folderState(tmp.path()), before);
    const Diagnostic *found = nullptr;
    for (const Diagnostic &d : t.diagnostics)
        if (d.file == rel && d.severity != Severity::Info && d.message.contains(expected))
            found = &d;
    QVERIFY2(found, qPrintable(diagnosticsText(t.diagnostics)));
    QCOMPARE(int(t.files.size()), 1);
    QCOMPARE(t.files.front().relativePath, rel);
    if (kind == "malformed")
        QVERIFY(t.workbench.rowsUsed <= 29);
    else
        QCOMPARE(t.workbench.rowsUsed, qint64(0));
}

/// A database another process holds an exclusive lock on, with a hot journal beside it: the
/// immutable open reads the main file, says that the journal is not read, writes nothing.
void TestRpdReader::lockedDatabase()
{
    QTemporaryDir tmp;
    const QString path = copyFixture(tmp.path(), QStringLiteral("busy.rpd"));
    sqlite3 *writer = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &writer), SQLITE_OK);
    const QByteArray sql = "PRAGMA journal_mode = DELETE; BEGIN EXCLUSIVE; DELETE FROM rocpd_op;";
    QCOMPARE(sqlite3_exec(writer, sql.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
    QVERIFY(QFileInfo::exists(path + QStringLiteral("-journal")));
    const QStringList before = folderState(tmp.path());
    QElapsedTimer timer;
    timer.start();
    const KernelTrace t = parseKernelTraces(tmp.path());
    QVERIFY(timer.elapsed() < 10'000);
    QCOMPARE(folderState(tmp.path()), before);
    sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(writer);
    QVERIFY2(findDiagnostic(t.diagnostics, QStringLiteral("busy.rpd"), QStringLiteral("locked")),
             qPrintable(diagnosticsText(t.diagnostics)));
    QCOMPARE(t.workbench.rowsUsed, qint64(expected().value(QStringLiteral("kernels_used")).toInteger()));
}

/// Progress ends at the file's size and never goes back; false cancels.
void TestRpdReader::progressAndCancel()
{
    QTemporaryDir tmp;
    const QString path = copyFixture(tmp.path(), QStringLiteral("p.rpd"));
    std::vector<qint64> seen;
    const KernelTrace t = parseKernelTraces(tmp.path(), [&](qint64 bytes) {
        seen.push_back(bytes);
        return true;
    });
    QVERIFY(!t.cancelled);
    QVERIFY(!seen.empty());
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QCOMPARE(seen.back(), QFileInfo(path).size());
    const KernelTrace c = parseKernelTraces(tmp.path(), [](qint64) { return false; });
    QVERIFY(c.cancelled);
}

/// The connection guard the rpd and nsys readers use: views, recursive queries, other PRAGMAs
/// and ATTACH are refused; a statement that yields no row for longer than the limit is stopped.
void TestRpdReader::guardRefusesAndStops()
{
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("g.db"));
    QString error;
    QVERIFY2(execSql(path,
                     "CREATE TABLE t(x); WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r LIMIT 2000) "
                     "INSERT INTO t SELECT x FROM r; CREATE VIEW v AS SELECT * FROM t;",
                     &error),
             qPrintable(error));
    const QStringList before = folderState(tmp.path());
    rocpd::Connection conn;
    QVERIFY(conn.open(path));
    dbread::Guard guard(conn.handle(), std::chrono::milliseconds(300));
    auto run = [&](const QByteArray &sql, qint64 *value = nullptr) {
        error.clear();
        return dbread::eachRow(conn.handle(), guard, sql, error, [&](sqlite3_stmt *st) {
            if (value)
                *value = sqlite3_column_int64(st, 0);
            return true;
        });
    };
    qint64 n = 0;
    QVERIFY2(run("SELECT count(*) FROM t", &n), qPrintable(error));
    QCOMPARE(n, qint64(2000));
    QCOMPARE(dbread::columnsOf(conn, QStringLiteral("t")), QStringList{QStringLiteral("x")});
    QVERIFY(!run("SELECT count(*) FROM v"));
    QVERIFY(!run("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r"));
    QVERIFY(!run("PRAGMA journal_mode = WAL"));
    QVERIFY(!run("ATTACH DATABASE ':memory:' AS m"));
    QVERIFY(!run("CREATE TEMP TABLE z(x)"));
    QElapsedTimer timer;
    timer.start();
    QVERIFY(!run("SELECT count(*) FROM t a, t b, t c")); // 8e9 rows, no row out for minutes
    QVERIFY2(timer.elapsed() < 5'000, qPrintable(QStringLiteral("%1 ms").arg(timer.elapsed())));
    QVERIFY(guard.stalled());
    QVERIFY2(error.contains(QStringLiteral("without a row")), qPrintable(error));
    QVERIFY(run("SELECT count(*) FROM t", &n));
    QCOMPARE(folderState(tmp.path()), before);
}

/// A gzipped rpd (matmul_result.rpd.gz is `gzip -9` of the fixture) reads as the plain one: it is
/// inflated into a temporary file that is gone afterwards; a damaged one gets a diagnostic.
void TestRpdReader::gzippedDatabase_data()
{
    QTest::addColumn<int>("keepBytes");  // of the compressed file; -1: all
    QTest::addColumn<QString>("problem");  // empty: read
    QTest::newRow("whole") << -1 << QString();
    QTest::newRow("truncated") << 5000 << QStringLiteral("could not be inflated");
    QTest::newRow("gzip header only") << 10 << QStringLiteral("could not be inflated");
}

void TestRpdReader::gzippedDatabase()
{
    QFETCH(int, keepBytes);
    QFETCH(QString, problem);
    QTemporaryDir tmp;
    QByteArray gz = test::readAll(test::dataPath(QStringLiteral("rpd/matmul_result.rpd.gz")));
    QVERIFY(gz.size() > 5000);
    if (keepBytes >= 0)
        gz.truncate(keepBytes);
    const QString rel = QStringLiteral("matmul_result.rpd.gz");
    {
        QFile f(tmp.filePath(rel));
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(gz), gz.size());
    }
    const QStringList before = folderState(tmp.path());
    const QStringList tempBefore = QDir(QDir::tempPath()).entryList({QStringLiteral("goblin-workbench-*.sqlite")});
    const KernelTrace t = parseKernelTraces(tmp.path());
    QCOMPARE(folderState(tmp.path()), before);
    QCOMPARE(QDir(QDir::tempPath()).entryList({QStringLiteral("goblin-workbench-*.sqlite")}), tempBefore);
    if (!problem.isEmpty()) {
        const Diagnostic *d = findDiagnostic(t.diagnostics, rel, problem);
        QVERIFY2(d && d->severity == Severity::Warning, qPrintable(diagnosticsText(t.diagnostics)));
        QCOMPARE(t.workbench.rowsUsed, qint64(0));
        return;
    }
    const QJsonObject x = expected();
    QCOMPARE(int(t.files.size()), 1);
    QCOMPARE(t.files.front().format, QStringLiteral("rpd"));
    QVERIFY(t.files.front().compressed);
    QCOMPARE(t.files.front().sizeBytes, qint64(gz.size()));
    QCOMPARE(t.workbench.rowsUsed, qint64(x.value(QStringLiteral("kernels_used")).toInteger()));
    QCOMPARE(t.workbench.totalNs, qint64(x.value(QStringLiteral("kernel_total_ns")).toInteger()));
    QCOMPARE(t.timeline.files.size(), size_t(1));
    QCOMPARE(t.timeline.files.front().file, rel);
    QCOMPARE(qint64(t.host.runtimeCalls.size()), qint64(x.value(QStringLiteral("runtime_calls")).toInteger()));
    QCOMPARE(t.host.files, QStringList{rel});
}

QTEST_GUILESS_MAIN(TestRpdReader)
#include "tst_rpdreader.moc"
