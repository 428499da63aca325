// Tests for Nsight Systems SQLite exports read as a kernel source (src/parsers/nsys/). Fixtures
// (tests/data/nsys, PROVENANCE.md): a real export of pipit's test data (saxpy, one A100,
// gzip-compressed here and inflated by the test into a temporary folder) and a generated
// two-GPU export (scripts/make_nsys_sqlite.py: rows out of order, graphs, memsets, NVTX marks).
// The expected numbers (*.expected.json) are SQL counts made by scripts/nsys_count.py; the
// done-when: the kernel count and the busy time (union of the kernels per GPU) equal them.
#include "kerneltraceparser.h"
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
#include <set>

using namespace goblin;
using goblin::test::diagnosticsText;
using goblin::test::execSql;
using goblin::test::findDiagnostic;
using goblin::test::folderState;

namespace
{

const QString kSaxpy = QStringLiteral("saxpy-mpi-cuda_nsys_perlmutter0");
const QString kGenerated = QStringLiteral("generated-2gpu");





/// The fixture `name` (gzip undone) written to `rel` under `dir`, writable.
QString writeFixture(const QString &dir, const QString &name, const QString &rel)
{
    QString source = test::dataPath(QStringLiteral("nsys/%1.sqlite").arg(name));
    if (!QFileInfo::exists(source))
        source += QStringLiteral(".gz");
    const QByteArray bytes = test::readGunzipped(source);
    const QString path = QDir(dir).filePath(rel);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    if (bytes.isEmpty() || !f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
        return QString();
    return path;
}

QJsonObject expected(const QString &name)
{
    return QJsonDocument::fromJson(test::readAll(test::dataPath(QStringLiteral("nsys/%1.expected.json").arg(name))))
        .object();
}

/// Per device id: the union of the kernel events' intervals (all processes and streams).
std::map<qint64, qint64> busyPerDevice(const GpuTimeline &t)
{
    std::map<qint64, std::vector<std::pair<qint64, qint64>>> spans;
    for (const GpuTimelineFile &f : t.files)
        for (const GpuDeviceTimeline &d : f.devices)
            for (const GpuEvent &e : d.events)
                if (e.kind == GpuEventKind::Kernel && e.endNs > e.startNs)
                    spans[d.device].emplace_back(e.startNs, e.endNs);
    std::map<qint64, qint64> out;
    for (auto &[device, s] : spans) {
        std::sort(s.begin(), s.end());
        qint64 busy = 0, start = s.front().first, end = s.front().second;
        for (const auto &[a, b] : s) {
            if (a > end) {
                busy += end - start;
                start = a;
                end = b;
            } else {
                end = std::max(end, b);
            }
        }
        out[device] = busy + (end - start);
    }
    return out;
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

} // namespace

class TestNsysReader : public QObject
{
    Q_OBJECT

private slots:
    void matchesSqlCounts_data();
    void matchesSqlCounts();
    void recognisedByTables_data();
    void recognisedByTables();
    void rowsOutOfOrderAndPacking();
    void graphTrace();
    void hostileFiles_data();
    void hostileFiles();
    void lockedDatabase();
    void progressAndCancel();
};

void TestNsysReader::matchesSqlCounts_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("real export (saxpy, 1 A100)") << kSaxpy;
    QTest::newRow("generated (2 GPUs, 2 processes)") << kGenerated;
}

/// The done-when of issue 25: an nsys export's kernel count and busy time equal a SQL count.
void TestNsysReader::matchesSqlCounts()
{
    QFETCH(QString, name);
    QTemporaryDir tmp;
    const QString rel = QStringLiteral("report.sqlite");
    QVERIFY(!writeFixture(tmp.path(), name, rel).isEmpty());
    QFile::setPermissions(tmp.filePath(rel), QFile::ReadOwner);
    const QStringList before = folderState(tmp.path());
    const KernelTrace t = parseKernelTraces(tmp.path());
    QCOMPARE(folderState(tmp.path()), before);
    const QJsonObject x = expected(name);

    QCOMPARE(int(t.files.size()), 1);
    QCOMPARE(t.files.front().format, QStringLiteral("nsys-sqlite"));
    QVERIFY2(t.files.front().dialect.startsWith(QStringLiteral("Nsight Systems 20")),
             qPrintable(t.files.front().dialect));
    QCOMPARE(t.files.front().rowsRead, qint64(x.value(QStringLiteral("kernels")).toInteger()));
    QCOMPARE(t.workbench.rowsUsed, qint64(x.value(QStringLiteral("kernels_used")).toInteger()));
    QCOMPARE(t.workbench.totalNs, qint64(x.value(QStringLiteral("kernel_total_ns")).toInteger()));
    QCOMPARE(t.workbench.firstStartNs, qint64(x.value(QStringLiteral("first_start_ns")).toInteger()));
    QCOMPARE(t.workbench.lastEndNs, qint64(x.value(QStringLiteral("last_end_ns")).toInteger()));
    QCOMPARE(int(std::count_if(t.workbench.perName.begin(), t.workbench.perName.end(),
                               [](const KernelNameStats &s) { return s.calls > 0; })),
             x.value(QStringLiteral("kernel_names_used")).toInt());
    QCOMPARE(t.workbench.agentCount, x.value(QStringLiteral("gpus")).toInt());
    QVERIFY(!t.referenceFileFound);
    QCOMPARE(t.reference.rowsUsed, qint64(0));

    // Busy time per GPU: the union of the timeline's kernels against SQL's gaps and islands.
    const std::map<qint64, qint64> busy = busyPerDevice(t.timeline);
    qint64 busyTotal = 0;
    for (const QJsonValue &g : x.value(QStringLiteral("busy_ns_per_gpu")).toArray()) {
        const qint64 device = g.toObject().value(QStringLiteral("gpu")).toInteger();
        QVERIFY(busy.count(device));
        QCOMPARE(busy.at(device), qint64(g.toObject().value(QStringLiteral("busy_ns")).toInteger()));
        busyTotal += busy.at(device);
    }
    QCOMPARE(busyTotal, qint64(x.value(QStringLiteral("busy_ns")).toInteger()));
    QCOMPARE(busy.size(), size_t(x.value(QStringLiteral("gpus")).toInt()));
    QCOMPARE(eventsOfKind(t.timeline, GpuEventKind::Memcpy), qint64(x.value(QStringLiteral("copies")).toInteger()));
    QCOMPARE(eventsOfKind(t.timeline, GpuEventKind::Memset), qint64(x.value(QStringLiteral("memsets")).toInteger()));
    QCOMPARE(t.timeline.files.size(), size_t(1));
    QCOMPARE(t.timeline.files.front().source, QStringLiteral("nsys"));

    // Host activity.
    QCOMPARE(t.host.runtimeName, QStringLiteral("CUDA"));
    QCOMPARE(qint64(t.host.runtimeCalls.size()), qint64(x.value(QStringLiteral("runtime_calls")).toInteger()));
    QCOMPARE(qint64(t.host.ranges.size()), qint64(x.value(QStringLiteral("nvtx_ranges")).toInteger() +
                                                  x.value(QStringLiteral("nvtx_marks")).toInteger()));
    std::set<QString> names;
    for (const MarkerRange &r : t.host.ranges)
        if (r.endNs > r.startNs)
            names.insert(r.name);
    std::set<QString> expectedNames;
    for (const QJsonValue &v : x.value(QStringLiteral("nvtx_range_names")).toArray())
        expectedNames.insert(v.toString());
    QCOMPARE(names, expectedNames);
    for (const QJsonValue &v : x.value(QStringLiteral("gpu_names")).toArray())
        QVERIFY2(findDiagnostic(t.diagnostics, rel, v.toString()), qPrintable(diagnosticsText(t.diagnostics)));
    const qint64 graphKernels = x.value(QStringLiteral("graph_kernels")).toInteger();
    if (graphKernels > 0)
        QVERIFY2(findDiagnostic(t.diagnostics, rel,
                                QStringLiteral("%1 of %2 kernels were launched from CUDA graphs")
                                    .arg(graphKernels)
                                    .arg(x.value(QStringLiteral("kernels")).toInteger())),
                 qPrintable(diagnosticsText(t.diagnostics)));
}

void TestNsysReader::recognisedByTables_data()
{
    QTest::addColumn<QString>("rel");
    QTest::newRow(".sqlite") << QStringLiteral("report.sqlite");
    QTest::newRow("named .rpd") << QStringLiteral("looks_like.rpd");
    QTest::newRow("named .db in a host folder") << QStringLiteral("node02/12345_results.db");
}

/// The tables decide: an nsys export is read as one whatever its name.
void TestNsysReader::recognisedByTables()
{
    QFETCH(QString, rel);
    QTemporaryDir tmp;
    QVERIFY(!writeFixture(tmp.path(), kGenerated, rel).isEmpty());
    const KernelTrace t = parseKernelTraces(tmp.path());
    QCOMPARE(int(t.files.size()), 1);
    QCOMPARE(t.files.front().relativePath, rel);
    QCOMPARE(t.files.front().format, QStringLiteral("nsys-sqlite"));
    QCOMPARE(t.workbench.rowsUsed, qint64(expected(kGenerated).value(QStringLiteral("kernels_used")).toInteger()));
}

/// The generated export stores rows shuffled: each device's events come out sorted by start;
/// pid and tid are unpacked from globalPid/globalTid; devices are (process, GPU).
void TestNsysReader::rowsOutOfOrderAndPacking()
{
    QTemporaryDir tmp;
    QVERIFY(!writeFixture(tmp.path(), kGenerated, QStringLiteral("g.sqlite")).isEmpty());
    const KernelTrace t = parseKernelTraces(tmp.path());
    QCOMPARE(t.timeline.files.size(), size_t(1));
    std::set<std::pair<qint64, qint64>> devices;
    for (const GpuDeviceTimeline &d : t.timeline.files.front().devices) {
        devices.emplace(d.pid, d.device);
        for (size_t i = 1; i < d.events.size(); ++i)
            QVERIFY(d.events.startNs(i - 1) <= d.events.startNs(i));
    }
    const std::set<std::pair<qint64, qint64>> want{{4242, 0}, {4243, 1}};
    QCOMPARE(devices, want);
    std::set<std::pair<qint64, qint64>> threads;
    for (const MarkerRange &r : t.host.ranges)
        threads.emplace(r.process, r.thread);
    const std::set<std::pair<qint64, qint64>> wantThreads{{4242, 4242}, {4243, 4243}};
    QCOMPARE(threads, wantThreads);
    // Two contexts on GPU 0, and the zero-length kernel: both said.
    QVERIFY2(findDiagnostic(t.diagnostics, QStringLiteral("g.sqlite"),
                            QStringLiteral("GPU 0 ran kernels of 2 CUDA contexts")),
             qPrintable(diagnosticsText(t.diagnostics)));
    QVERIFY(findDiagnostic(t.diagnostics, QStringLiteral("g.sqlite"), QStringLiteral("1 kernels with zero duration")));
    // Steps from the NVTX ranges named like a step (the thread with most of them).
    const ApiTraces api = apiTracesFrom(t.host);
    QCOMPARE(api.steps.size(), size_t(6));
    QCOMPARE(api.runtimeName, QStringLiteral("CUDA"));
}

/// A graph-level trace hides the kernels inside the graphs: said as a warning.
void TestNsysReader::graphTrace()
{
    QTemporaryDir tmp;
    const QString path = writeFixture(tmp.path(), kGenerated, QStringLiteral("graphs.sqlite"));
    QString error;
    QVERIFY2(
        execSql(
            path,
            "CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER NOT NULL, "
            "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId "
            "INTEGER, globalPid INTEGER, graphId INTEGER NOT NULL);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (1, 2, 0, 1, 7, 1, 0, 1), (3, 4, 0, 1, 7, 2, 0, 1), "
            "(5, 6, 0, 1, 7, 3, 0, 1);",
            &error),
        qPrintable(error));
    const KernelTrace t = parseKernelTraces(tmp.path());
    const Diagnostic *d =
        findDiagnostic(t.diagnostics, QStringLiteral("graphs.sqlite"), QStringLiteral("3 CUDA graph launches"));
    QVERIFY2(d && d->severity == Severity::Warning, qPrintable(diagnosticsText(t.diagnostics)));
}

void TestNsysReader::hostileFiles_data()
{
    QTest::addColumn<QByteArray>("kind");
    QTest::addColumn<QString>("expected");
    QTest::newRow("endless recursive view for the kernel table")
        << QByteArray("recursive") << QStringLiteral("CUPTI_ACTIVITY_KIND_KERNEL (a view, not a table)");
    QTest::newRow("StringIds a view") << QByteArray("stringview") << QStringLiteral("StringIds (a view, not a table)");
    QTest::newRow("empty file") << QByteArray("empty") << QStringLiteral("is empty (0 bytes)");
    QTest::newRow("truncated (half-copied)") << QByteArray("truncated") << QStringLiteral("is truncated");
    QTest::newRow("kernel table without its columns")
        << QByteArray("columns") << QStringLiteral("has no column streamId");
    QTest::newRow("foreign SQLite file") << QByteArray("foreign") << QStringLiteral("without rocpd tables");
    QTest::newRow("malformed pages") << QByteArray("malformed") << QString();
}

/// A stranger's file: refused or read within seconds, a diagnostic naming the file, the folder
/// untouched.
void TestNsysReader::hostileFiles()
{
    QFETCH(QByteArray, kind);
    QFETCH(QString, expected);
    QTemporaryDir tmp;
    const QString rel = QStringLiteral("evil.sqlite");
    const QString path = tmp.filePath(rel);
    QString error;
    if (kind == "empty") {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
    } else if (kind == "foreign") {
        QVERIFY(
            execSql(path, "CREATE TABLE StringIds_not(x); CREATE TABLE results(x); INSERT INTO results VALUES (1);"));
    } else {
        QVERIFY(!writeFixture(tmp.path(), kGenerated, rel).isEmpty());
        QFile f(path);
        if (kind == "recursive") {
            QVERIFY2(
                execSql(
                    path,
                    "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE "
                    "r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS start, x + 1 AS \"end\", 0 AS "
                    "deviceId, 1 AS contextId, 7 AS streamId, 1 AS demangledName, 1 AS shortName FROM r;",
                    &error),
                qPrintable(error));
        } else if (kind == "stringview") {
            QVERIFY2(
                execSql(path, "ALTER TABLE StringIds RENAME TO s; CREATE VIEW StringIds AS SELECT * FROM s;", &error),
                qPrintable(error));
        } else if (kind == "columns") {
            QVERIFY2(execSql(path, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN streamId;", &error),
                     qPrintable(error));
        } else if (kind == "truncated") {
            QVERIFY(f.resize(f.size() / 2));
        } else if (kind == "malformed") {
            QVERIFY(f.open(QIODevice::ReadWrite));
            f.seek(4096 * 3);
            f.write(QByteArray(int(f.size() - 4096 * 3), '\xa5'));
        }
    }
    QFile::setPermissions(path, QFile::ReadOwner);
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
    if (kind == "malformed")
        QVERIFY(t.workbench.rowsUsed <= 215);
    else
        QCOMPARE(t.workbench.rowsUsed, qint64(0));
}

/// An export another process holds locked, a hot journal beside it: read, and the journal named.
void TestNsysReader::lockedDatabase()
{
    QTemporaryDir tmp;
    const QString path = writeFixture(tmp.path(), kSaxpy, QStringLiteral("busy.sqlite"));
    sqlite3 *writer = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &writer), SQLITE_OK);
    QCOMPARE(sqlite3_exec(writer,
                          "PRAGMA journal_mode = DELETE; BEGIN EXCLUSIVE; DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL;",
                          nullptr, nullptr, nullptr),
             SQLITE_OK);
    QVERIFY(QFileInfo::exists(path + QStringLiteral("-journal")));
    const QStringList before = folderState(tmp.path());
    QElapsedTimer timer;
    timer.start();
    const KernelTrace t = parseKernelTraces(tmp.path());
    QVERIFY(timer.elapsed() < 10'000);
    QCOMPARE(folderState(tmp.path()), before);
    sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(writer);
    QVERIFY2(findDiagnostic(t.diagnostics, QStringLiteral("busy.sqlite"), QStringLiteral("locked")),
             qPrintable(diagnosticsText(t.diagnostics)));
    QCOMPARE(t.workbench.rowsUsed, qint64(expected(kSaxpy).value(QStringLiteral("kernels_used")).toInteger()));
}

void TestNsysReader::progressAndCancel()
{
    QTemporaryDir tmp;
    const QString path = writeFixture(tmp.path(), kSaxpy, QStringLiteral("p.sqlite"));
    std::vector<qint64> seen;
    const KernelTrace t = parseKernelTraces(tmp.path(), [&](qint64 bytes) {
        seen.push_back(bytes);
        return true;
    });
    QVERIFY(!t.cancelled);
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QVERIFY(!seen.empty());
    QCOMPARE(seen.back(), QFileInfo(path).size());
    const KernelTrace c = parseKernelTraces(tmp.path(), [](qint64) { return false; });
    QVERIFY(c.cancelled);
}

QTEST_GUILESS_MAIN(TestNsysReader)
#include "tst_nsysreader.moc"
