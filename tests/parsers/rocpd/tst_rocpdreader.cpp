// Tests for rocpd input: rocprofv3's SQLite databases (tests/data/rocpd, made with
// shared/tools/make_rocpd.py from the run fixtures in tests/data/runs, see PROVENANCE.md) read
// as a kernel source. The expectation is always the same run's trace.csv: its report (both
// profiles) and its timeline. Bad databases are built by the tests from those fixtures.
#include "kerneltraceparser.h"
#include "report.h"
#include "runanalysis.h"
#include "databasefixture.h"
#include "testsupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QJsonArray>
#include <functional>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using namespace goblin;
using goblin::test::execSql;

namespace
{

/// Every file under `dir`, relative, sorted.
QStringList listing(const QString &dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << QDir(dir).relativeFilePath(it.next());
    out.sort();
    return out;
}

bool copyTree(const QString &from, const QString &to)
{
    for (const QString &rel : listing(from)) {
        QDir().mkpath(QFileInfo(QDir(to).filePath(rel)).absolutePath());
        if (!QFile::copy(QDir(from).filePath(rel), QDir(to).filePath(rel)))
            return false;
    }
    return true;
}

/// A run folder in `tmp`: the run fixture's torch trace and telemetry plus the databases of
/// `rocpdFixture` (no trace.csv).
QString assembleRun(const QTemporaryDir &tmp, const QString &runFixture, const QString &rocpdFixture)
{
    const QString run = tmp.filePath(QStringLiteral("run"));
    QDir().mkpath(run);
    for (const char *name : {"torch_profile.json", "torch_profile.json.gz", "amd_smi.csv"}) {
        const QString src = test::dataPath(QStringLiteral("runs/%1/%2").arg(runFixture, QLatin1String(name)));
        if (QFileInfo::exists(src))
            QFile::copy(src, QDir(run).filePath(QLatin1String(name)));
    }
    copyTree(test::dataPath(QStringLiteral("rocpd/") + rocpdFixture), run);
    return run;
}

QString diagnosticsText(const Diagnostics &diags)
{
    QStringList out;
    for (const Diagnostic &d : diags)
        out << QStringLiteral("%1:%2 %3").arg(d.file).arg(d.line).arg(d.message);
    return out.join(QLatin1Char('\n'));
}

/// (device, name, start, end, stream id) of every timeline event, sorted: comparable across
/// sources whatever their row order and name ids.
using EventKey = std::tuple<qint64, std::string, qint64, qint64, qint64>;
std::vector<EventKey> timelineEvents(const GpuTimeline &t)
{
    std::vector<EventKey> out;
    for (const GpuTimelineFile &f : t.files)
        for (const GpuDeviceTimeline &d : f.devices)
            for (const GpuEvent &e : d.events)
                out.emplace_back(d.device, f.names.at(e.nameId), e.startNs, e.endNs, d.streams.at(e.stream));
    std::sort(out.begin(), out.end());
    return out;
}

std::map<qint64, qint64> eventsPerDevice(const GpuTimeline &t)
{
    std::map<qint64, qint64> out;
    for (const GpuTimelineFile &f : t.files)
        for (const GpuDeviceTimeline &d : f.devices)
            out[d.device] += qint64(d.events.size());
    return out;
}

/// The table suffix of the first process of a rocpd file.
QByteArray firstSuffix(const QString &path)
{
    sqlite3 *db = nullptr;
    QByteArray out;
    sqlite3_stmt *stmt = nullptr;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT substr(name, 15) FROM sqlite_master WHERE name LIKE 'rocpd_metadata_%' AND type = 'table'",
                           -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
        out = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return out;
}

const char *const kSingle = "single-v3-metric-1gpu/48213_results.db";

/// (run fixture with trace.csv, rocpd fixture made from that trace.csv)
const std::pair<const char *, const char *> kFixtures[] = {
    {"v3-metric-1gpu", "single-v3-metric-1gpu"},
    {"rocm7-monwatch-kineto", "merged-rocm7-monwatch-kineto"},
    {"mixed-flashrocm", "split-mixed-flashrocm"},
    {"rocm62-monitor-2gpu", "sys-rocm62-monitor-2gpu"},
};

} // namespace

class TestRocpdReader : public QObject
{
    Q_OBJECT

private slots:
    void reportEqualsCsv_data();
    void reportEqualsCsv();
    void timelineEqualsCsv_data();
    void timelineEqualsCsv();
    void firstUseInRocpd2csvOrder_data();
    void firstUseInRocpd2csvOrder();
    void processesKept_data();
    void processesKept();
    void noSideFiles_data();
    void noSideFiles();
    void badDatabase_data();
    void badDatabase();
    void lockedDatabase();
    void csvTraceWins();
    void progressAndCancel();
    void lz4ViewsDoNotMatter();
    void markerRegions();
};

void TestRocpdReader::reportEqualsCsv_data()
{
    QTest::addColumn<QString>("run");
    QTest::addColumn<QString>("rocpd");
    QTest::addColumn<int>("profile");
    for (const auto &[run, rocpd] : kFixtures)
        for (int profile : {int(HeuristicsProfile::Reference), int(HeuristicsProfile::Workbench)})
            QTest::addRow("%s-%s", rocpd, profile == int(HeuristicsProfile::Reference) ? "reference" : "workbench")
                << QString::fromLatin1(run) << QString::fromLatin1(rocpd) << profile;
}

/// The hard requirement: the report from a folder with the database equals the report from the
/// same run's trace.csv (1e-9 relative); only `inputs`, `diagnostics` and `run` may differ.
void TestRocpdReader::reportEqualsCsv()
{
    QFETCH(QString, run);
    QFETCH(QString, rocpd);
    QFETCH(int, profile);
    QTemporaryDir tmp;
    const QString dbRun = assembleRun(tmp, run, rocpd);
    QVERIFY(!QFileInfo::exists(QDir(dbRun).filePath(QStringLiteral("trace.csv"))));

    const LoadResult csv = loadRun(test::dataPath(QStringLiteral("runs/") + run));
    const LoadResult db = loadRun(dbRun);
    QVERIFY(csv.run && db.run);
    QVERIFY2(db.run->kernels.workbench.rowsUsed > 0, qPrintable(diagnosticsText(db.run->kernels.diagnostics)));
    QCOMPARE(db.run->kernels.files.front().format, QStringLiteral("rocpd"));
    const QJsonObject a = buildReport(*csv.run, HeuristicsProfile(profile), Thresholds());
    QJsonObject b = buildReport(*db.run, HeuristicsProfile(profile), Thresholds());
    // Texts that name the kernel file (the cross-check with the torch trace's GPU events, the
    // utilisation's source) name the database where the other names trace.csv; numbers and every
    // other text must be equal.
    const QString dbName = db.run->kernels.files.front().relativePath;
    std::function<QJsonValue(const QJsonValue &)> rename = [&](const QJsonValue &v) -> QJsonValue {
        if (v.isString())
            return QString(v.toString())
                .replace(dbName, QStringLiteral("trace.csv"))
                .replace(QStringLiteral("GPU timeline of rocpd"), QStringLiteral("GPU timeline of trace.csv"));
        if (v.isArray()) {
            QJsonArray out;
            for (const QJsonValue &item : v.toArray())
                out.append(rename(item));
            return out;
        }
        if (v.isObject()) {
            QJsonObject out;
            const QJsonObject in = v.toObject();
            for (auto it = in.begin(); it != in.end(); ++it)
                out.insert(it.key(), rename(it.value()));
            return out;
        }
        return v;
    };
    for (const char *section : {"metrics", "aggregates"})
        b.insert(QLatin1String(section), rename(b.value(QLatin1String(section))));
    for (const char *section : {"metrics", "aggregates", "thresholds", "profile"}) {
        QString difference;
        QVERIFY2(a.contains(QLatin1String(section)), section);
        QVERIFY2(test::jsonNearlyEqual(a.value(QLatin1String(section)), b.value(QLatin1String(section)), 1e-9,
                                       &difference, QLatin1String(section)),
                 qPrintable(difference));
    }
    const QJsonObject schema =
        QJsonDocument::fromJson(test::readAll(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/report.schema.json"))).object();
    QVERIFY(!schema.isEmpty());
    const QStringList violations = test::validateJsonSchema(b, schema);
    QVERIFY2(violations.isEmpty(), qPrintable(violations.join(QLatin1Char('\n'))));
    // The reference reads the database as rocpd2csv's trace.csv: no "kernel trace not found".
    QVERIFY(db.run->kernels.referenceFileFound);
    QCOMPARE(db.run->kernels.reference.rowsUsed, csv.run->kernels.reference.rowsUsed);
    QCOMPARE(db.run->kernels.reference.agentCount, csv.run->kernels.reference.agentCount);
}

void TestRocpdReader::timelineEqualsCsv_data()
{
    QTest::addColumn<QString>("run");
    QTest::addColumn<QString>("rocpd");
    for (const auto &[run, rocpd] : kFixtures)
        QTest::newRow(rocpd) << QString::fromLatin1(run) << QString::fromLatin1(rocpd);
}

/// The timeline from the database holds the CSV's kernels: per device the same count, and the
/// same (device, name, start, end, queue) events.
void TestRocpdReader::timelineEqualsCsv()
{
    QFETCH(QString, run);
    QFETCH(QString, rocpd);
    const KernelTrace csv = parseKernelTraces(test::dataPath(QStringLiteral("runs/") + run));
    const KernelTrace db = parseKernelTraces(test::dataPath(QStringLiteral("rocpd/") + rocpd));
    QVERIFY(!csv.timeline.empty());
    QVERIFY(!db.timeline.empty());
    for (const GpuTimelineFile &f : db.timeline.files) {
        QCOMPARE(f.source, QStringLiteral("rocpd"));
        for (const GpuDeviceTimeline &d : f.devices) {
            QVERIFY(d.pid > 0);
            QVERIFY(!d.rank.has_value());
            QCOMPARE(d.source, QStringLiteral("rocpd"));
        }
    }
    QCOMPARE(csv.timeline.files.front().source, QStringLiteral("trace.csv"));
    const std::map<qint64, qint64> perDevice = eventsPerDevice(db.timeline);
    QCOMPARE(perDevice, eventsPerDevice(csv.timeline));
    qint64 total = 0;
    for (const auto &[device, count] : perDevice)
        total += count;
    QCOMPARE(total, csv.files.front().rowsRead); // every CSV row has a name and end >= start here
    QVERIFY(timelineEvents(db.timeline) == timelineEvents(csv.timeline));
}

void TestRocpdReader::firstUseInRocpd2csvOrder_data()
{
    timelineEqualsCsv_data();
}

/// Names and agents are first used in rocpd2csv's order (start, then end descending), not in
/// the order the rows are stored: worked out here from the CSV's timeline, independently.
void TestRocpdReader::firstUseInRocpd2csvOrder()
{
    QFETCH(QString, run);
    QFETCH(QString, rocpd);
    const KernelTrace csv = parseKernelTraces(test::dataPath(QStringLiteral("runs/") + run));
    const KernelTrace db = parseKernelTraces(test::dataPath(QStringLiteral("rocpd/") + rocpd));
    // Every used row (end > start) of the CSV as (start, -end, name, device).
    std::vector<std::tuple<qint64, qint64, std::string, qint64>> rows;
    for (const GpuTimelineFile &f : csv.timeline.files)
        for (const GpuDeviceTimeline &d : f.devices)
            for (const GpuEvent &e : d.events)
                if (e.endNs > e.startNs)
                    rows.emplace_back(e.startNs, -e.endNs, f.names[e.nameId], d.device);
    std::sort(rows.begin(), rows.end());
    std::vector<std::string> expectedNames;
    QStringList expectedAgents;
    for (const auto &[start, negEnd, name, device] : rows) {
        if (std::find(expectedNames.begin(), expectedNames.end(), name) == expectedNames.end())
            expectedNames.push_back(name);
        const QString agent = QStringLiteral("Agent %1").arg(device);
        if (!expectedAgents.contains(agent))
            expectedAgents << agent;
    }
    for (const KernelReading *r : {&db.reference, &db.workbench}) {
        std::vector<size_t> ids;
        for (size_t id = 0; id < r->perName.size(); ++id)
            if (r->perName[id].calls > 0)
                ids.push_back(id);
        std::sort(ids.begin(), ids.end(), [&](size_t a, size_t b) { return r->perName[a].firstRow < r->perName[b].firstRow; });
        std::vector<std::string> names;
        for (size_t id : ids)
            names.push_back(db.names[id]);
        QVERIFY(names == expectedNames);
        QCOMPARE(r->agents, expectedAgents);
    }
}

void TestRocpdReader::processesKept_data()
{
    QTest::addColumn<QString>("rocpd");
    QTest::addColumn<int>("files");
    QTest::addColumn<int>("processes");
    QTest::newRow("single") << QStringLiteral("single-v3-metric-1gpu") << 1 << 1;
    QTest::newRow("merged, two processes in one file") << QStringLiteral("merged-rocm7-monwatch-kineto") << 1 << 2;
    QTest::newRow("one file per process in <host>/") << QStringLiteral("split-mixed-flashrocm") << 2 << 2;
}

/// A multi-process database (or one file per process) keeps its processes apart: devices carry
/// the pid, so later work can treat them as ranks.
void TestRocpdReader::processesKept()
{
    QFETCH(QString, rocpd);
    QFETCH(int, files);
    QFETCH(int, processes);
    const KernelTrace t = parseKernelTraces(test::dataPath(QStringLiteral("rocpd/") + rocpd));
    QCOMPARE(int(t.files.size()), files);
    QCOMPARE(int(t.timeline.files.size()), files);
    std::set<qint64> pids;
    for (const GpuTimelineFile &f : t.timeline.files)
        for (const GpuDeviceTimeline &d : f.devices)
            pids.insert(d.pid);
    QCOMPARE(int(pids.size()), processes);
    QVERIFY(t.files.front().dialect.contains(QStringLiteral("%1 process").arg(processes / files)));
}

void TestRocpdReader::noSideFiles_data()
{
    QTest::addColumn<QString>("rocpd");
    QTest::newRow("single, rollback journal") << QStringLiteral("single-v3-metric-1gpu");
    QTest::newRow("merged, WAL journal") << QStringLiteral("merged-rocm7-monwatch-kineto");
    QTest::newRow("split") << QStringLiteral("split-mixed-flashrocm");
    QTest::newRow("rocprof-sys") << QStringLiteral("sys-rocm62-monitor-2gpu");
}

/// Reading never writes into the run folder: no -wal, -shm or -journal file appears, even for
/// a WAL-mode file (which an ordinary read-only open would leave them beside).
void TestRocpdReader::noSideFiles()
{
    QFETCH(QString, rocpd);
    const QString dir = test::dataPath(QStringLiteral("rocpd/") + rocpd);
    const QStringList before = listing(dir);
    const KernelTrace t = parseKernelTraces(dir);
    QVERIFY(t.workbench.rowsUsed > 0);
    QCOMPARE(listing(dir), before);
    if (rocpd.startsWith(QLatin1String("merged"))) { // the fixture really is WAL: byte 18 of the header
        QFile f(QDir(dir).filePath(QStringLiteral("merged.db")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(int(f.read(20).at(18)), 2);
    }
}

void TestRocpdReader::badDatabase_data()
{
    QTest::addColumn<QByteArray>("kind");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty file") << QByteArray("empty") << QStringLiteral("is empty (0 bytes)");
    QTest::newRow("not SQLite") << QByteArray("garbage") << QStringLiteral("is not an SQLite database");
    QTest::newRow("older RPD schema") << QByteArray("rpd") << QStringLiteral("older rocmProfileData (RPD");
    QTest::newRow("foreign tables") << QByteArray("foreign") << QStringLiteral("without rocpd tables");
    QTest::newRow("no tables") << QByteArray("notables") << QStringLiteral("with no tables");
    QTest::newRow("truncated") << QByteArray("truncated") << QStringLiteral("is truncated");
    QTest::newRow("malformed pages") << QByteArray("malformed") << QStringLiteral("malformed");
    QTest::newRow("zero dispatches") << QByteArray("nodispatch") << QStringLiteral("holds no kernel dispatches");
    QTest::newRow("schema version 4") << QByteArray("schema4") << QStringLiteral("schema version \"4\" is not supported");
    QTest::newRow("dispatch without agent row") << QByteArray("dropout")
                                                << QStringLiteral("1 of 160 kernel dispatches lack");
}

/// Every bad database gives a diagnostic naming the file and the problem, never a crash and
/// never a silent zero.
void TestRocpdReader::badDatabase()
{
    QFETCH(QByteArray, kind);
    QFETCH(QString, expected);
    QTemporaryDir tmp;
    const QString rel = QStringLiteral("host/results.db");
    const QString path = tmp.filePath(rel);
    QDir().mkpath(QFileInfo(path).absolutePath());
    const QString single = test::dataPath(QLatin1String("rocpd/") + QLatin1String(kSingle));
    QString error;
    if (kind == "empty" || kind == "garbage") {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        if (kind == "garbage")
            f.write(QByteArray(4096, '\x5a'));
    } else if (kind == "rpd") {
        QVERIFY2(execSql(path, "CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, string TEXT);"
                               "CREATE TABLE rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER, start INTEGER, end INTEGER);"
                               "CREATE TABLE rocpd_api(id INTEGER PRIMARY KEY, apiName_id INTEGER);"
                               "INSERT INTO rocpd_op VALUES (1, 0, 10, 20);",
                         &error),
                 qPrintable(error));
    } else if (kind == "foreign") {
        QVERIFY(execSql(path, "CREATE TABLE results(x); INSERT INTO results VALUES (1);"));
    } else if (kind == "notables") {
        QVERIFY(execSql(path, "PRAGMA user_version = 7;"));
    } else {
        QVERIFY(QFile::copy(single, path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        const QByteArray sfx = firstSuffix(path);
        QVERIFY(!sfx.isEmpty());
        QFile f(path);
        if (kind == "truncated") {
            QVERIFY(f.resize(f.size() / 2));
        } else if (kind == "malformed") {
            // Overwrite the pages after the schema with garbage, keeping the size.
            QVERIFY(f.open(QIODevice::ReadWrite));
            f.seek(f.size() / 2);
            f.write(QByteArray(int(f.size() / 2 - 512), '\xa5'));
        } else if (kind == "nodispatch") {
            QVERIFY(execSql(path, "DELETE FROM rocpd_kernel_dispatch" + sfx + ";"));
        } else if (kind == "schema4") {
            QVERIFY(execSql(path, "UPDATE rocpd_metadata" + sfx + " SET value = '4' WHERE tag = 'schema_version';"));
        } else if (kind == "dropout") {
            QVERIFY(execSql(path, "UPDATE rocpd_kernel_dispatch" + sfx + " SET agent_id = 999 WHERE id = 1;"));
        }
    }
    const QStringList before = listing(tmp.path());
    const KernelTrace t = parseKernelTraces(tmp.path());
    QCOMPARE(listing(tmp.path()), before);
    const Diagnostic *found = nullptr;
    for (const Diagnostic &d : t.diagnostics)
        if (d.file == rel && d.message.contains(expected))
            found = &d;
    QVERIFY2(found, qPrintable(diagnosticsText(t.diagnostics)));
    QVERIFY(found->severity != Severity::Info);
    QCOMPARE(int(t.files.size()), 1);
    QCOMPARE(t.files.front().relativePath, rel);
    if (kind == "dropout") {
        QCOMPARE(t.workbench.rowsUsed, qint64(159)); // read, minus the dispatch the view would drop
        QVERIFY(t.referenceFileFound);
    } else if (kind == "malformed") {
        // Some rows may come before the damage; never more than the file holds, never silently.
        QVERIFY(t.workbench.rowsUsed < 160);
    } else {
        QCOMPARE(t.workbench.rowsUsed, qint64(0));
        QVERIFY(t.timeline.empty());
        // Nothing readable stood in for trace.csv: the reference's "not found" stays.
        QCOMPARE(t.referenceFileFound, kind == "nodispatch");
    }
}

/// A database another process is writing (an exclusive lock and a hot journal beside it): the
/// immutable open still reads the main file and says that the journal's part is not read.
void TestRocpdReader::lockedDatabase()
{
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("123_results.db"));
    QVERIFY(QFile::copy(test::dataPath(QLatin1String("rocpd/") + QLatin1String(kSingle)), path));
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    sqlite3 *writer = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &writer), SQLITE_OK);
    const QByteArray sql = "PRAGMA journal_mode = DELETE; BEGIN EXCLUSIVE; CREATE TABLE pending(x); "
                           "INSERT INTO pending VALUES (1);";
    QCOMPARE(sqlite3_exec(writer, sql.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
    QVERIFY(QFileInfo::exists(path + QStringLiteral("-journal")));
    const KernelTrace t = parseKernelTraces(tmp.path());
    sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(writer);
    bool warned = false;
    for (const Diagnostic &d : t.diagnostics)
        warned = warned || (d.file == QStringLiteral("123_results.db") && d.message.contains(QStringLiteral("locked")));
    QVERIFY2(warned, qPrintable(diagnosticsText(t.diagnostics)));
    QCOMPARE(t.workbench.rowsUsed, qint64(160));
}

/// trace.csv present: the database is named, not read (both profiles read trace.csv).
void TestRocpdReader::csvTraceWins()
{
    QTemporaryDir tmp;
    QVERIFY(QFile::copy(test::dataPath(QStringLiteral("runs/v3-metric-1gpu/trace.csv")), tmp.filePath(QStringLiteral("trace.csv"))));
    QVERIFY(QFile::copy(test::dataPath(QLatin1String("rocpd/") + QLatin1String(kSingle)), tmp.filePath(QStringLiteral("x.db"))));
    const KernelTrace t = parseKernelTraces(tmp.path());
    QCOMPARE(int(t.files.size()), 1);
    QCOMPARE(t.files.front().relativePath, QStringLiteral("trace.csv"));
    QCOMPARE(t.timeline.files.size(), size_t(1));
    QCOMPARE(t.timeline.files.front().source, QStringLiteral("trace.csv"));
    bool named = false;
    for (const Diagnostic &d : t.diagnostics)
        named = named || (d.file == QStringLiteral("x.db") && d.message.contains(QStringLiteral("not read")));
    QVERIFY(named);
}

/// Progress counts the database's bytes (up to its size, never backwards); a false return cancels.
void TestRocpdReader::progressAndCancel()
{
    const QString dir = test::dataPath(QStringLiteral("rocpd/split-mixed-flashrocm"));
    const qint64 total = QFileInfo(QDir(dir).filePath(QStringLiteral("node01/48213_results.db"))).size() +
                         QFileInfo(QDir(dir).filePath(QStringLiteral("node01/48214_results.db"))).size();
    std::vector<qint64> seen;
    const KernelTrace t = parseKernelTraces(dir, [&](qint64 bytes) {
        seen.push_back(bytes);
        return true;
    });
    QVERIFY(!t.cancelled);
    QVERIFY(!seen.empty());
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QCOMPARE(seen.back(), total);
    int calls = 0;
    const KernelTrace c = parseKernelTraces(dir, [&](qint64) { return ++calls < 3; });
    QVERIFY(c.cancelled);
}

/// Newer rocpd files wrap columns of the rocpd_* views in lz4_decompress(), a function only
/// the rocpd Python package registers: any query over such a view fails. The reader joins the
/// per-process tables itself, so such views (here: kernels and rocpd_kernel_dispatch
/// redefined that way) change nothing.
void TestRocpdReader::lz4ViewsDoNotMatter()
{
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("1_results.db"));
    QVERIFY(QFile::copy(test::dataPath(QLatin1String("rocpd/") + QLatin1String(kSingle)), path));
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    const QByteArray sfx = firstSuffix(path);
    QString error;
    QVERIFY2(execSql(path, "DROP VIEW kernels; DROP VIEW rocpd_kernel_dispatch; "
                           "CREATE VIEW rocpd_kernel_dispatch AS SELECT id, lz4_decompress(extdata) AS extdata FROM "
                           "rocpd_kernel_dispatch" + sfx + "; "
                           "CREATE VIEW kernels AS SELECT * FROM rocpd_kernel_dispatch;",
                     &error),
             qPrintable(error));
    QVERIFY(!execSql(path, "SELECT * FROM kernels;", &error)); // the view really is unusable here
    QVERIFY2(error.contains(QStringLiteral("lz4_decompress")), qPrintable(error));
    const KernelTrace t = parseKernelTraces(tmp.path());
    QCOMPARE(t.workbench.rowsUsed, qint64(160));
    const KernelTrace original = parseKernelTraces(test::dataPath(QStringLiteral("rocpd/single-v3-metric-1gpu")));
    QCOMPARE(t.workbench.totalNs, original.workbench.totalNs);
}

/// roctx ranges are the rocpd_region rows of a MARKER_* category, named by extdata's message (else
/// the region's name): the run's steps when named like steps (tst_stepplan). A HIP region is no
/// marker; an instant mark is kept as one (never a step). The fixtures without markers have none.
void TestRocpdReader::markerRegions()
{
    const KernelTrace t = parseKernelTraces(test::dataPath(QStringLiteral("steps/markers/rocpd-step-markers.db")));
    QStringList names;
    int instants = 0;
    for (const MarkerRange &m : t.host.ranges) {
        names << m.name;
        instants += m.endNs == m.startNs;
        QCOMPARE(m.process, qint64(48213));
    }
    names.sort();
    QCOMPARE(names, (QStringList{QStringLiteral("ProfilerStep#1"), QStringLiteral("ProfilerStep#2"),
                                 QStringLiteral("ProfilerStep#3"), QStringLiteral("ProfilerStep#9")}));
    QCOMPARE(instants, 1);
    QCOMPARE(t.host.files, QStringList{QStringLiteral("rocpd-step-markers.db")});
    QVERIFY(test::findDiagnostic(t.diagnostics, QStringLiteral("rocpd-step-markers.db"),
                                 QStringLiteral("4 roctx marker range(s)/mark(s) read")));

    for (const char *rocpd : {"single-v3-metric-1gpu", "merged-rocm7-monwatch-kineto", "split-mixed-flashrocm"}) {
        const KernelTrace none = parseKernelTraces(test::dataPath(QStringLiteral("rocpd/") + QLatin1String(rocpd)));
        QVERIFY(none.host.empty());
        QVERIFY(none.host.files.isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestRocpdReader)
#include "tst_rocpdreader.moc"
