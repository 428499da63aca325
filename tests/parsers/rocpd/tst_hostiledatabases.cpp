// Crafted databases against the three database readers (rocpd, rpd, Nsight Systems), issue 36:
// a stranger's file must neither hang nor crash the workbench nor take its memory. Each row builds
// one crafted file from a real fixture (tests/data/rocpd, rpd, nsys) with the sqlite3 C API in a
// temporary folder, reads it in this process (the diagnostics, the names) and with the
// goblin-workbench executable (`report`: the time, a signal, the peak resident size of the child),
// and asks: done within 10 s, no crash, a diagnostic naming the file (saying why, for a refusal),
// peak memory at most 512 MiB. GOBLIN_HOSTILE_KEEP=DIR copies every crafted folder to DIR/<row>
// (to measure another build on the same files).
#include "kernels/namepool.h"
#include "kerneltraceparser.h"
#include "rocpd/rocpdfile.h"
#include "rpd/dbcommon.h"
#include "databasefixture.h"
#include "testsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <sqlite3.h>
#include <QThread>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include <algorithm>

using namespace goblin;
using goblin::test::diagnosticsText;
using goblin::test::execSql;

namespace
{

constexpr qint64 kTimeLimitMs = 10'000;
constexpr qint64 kMemoryLimitBytes = qint64(512) << 20;
const QByteArray kRocpdSuffix = "_0000a3a6_d6f7_7a74_85e3_0f431fce674a";

/// Where a schema keeps its kernel names, and how to find the string of a kernel that is used.
struct Schema {
    QString fixture;       ///< under tests/data
    QString rel;           ///< the crafted copy in the run folder
    QByteArray nameTable;  ///< the table of kernel names
    QByteArray nameColumn; ///< its column
    QByteArray usedNameId; ///< SQL: the id (rowid) of a kernel name some dispatch uses
};

Schema schemaOf(const QString &name)
{
    if (name == QLatin1String("rocpd"))
        return {QStringLiteral("rocpd/single-v3-metric-1gpu/48213_results.db"), QStringLiteral("run/48213_results.db"),
                "rocpd_info_kernel_symbol" + kRocpdSuffix, "display_name",
                "SELECT kernel_id FROM rocpd_kernel_dispatch" + kRocpdSuffix + " LIMIT 1"};
    if (name == QLatin1String("rpd"))
        return {QStringLiteral("rpd/matmul_result.rpd"), QStringLiteral("run/matmul_result.rpd"), "rocpd_string",
                "string",
                "SELECT o.description_id FROM rocpd_op o JOIN rocpd_string s ON s.id = o.opType_id WHERE s.string IN "
                "('KernelExecution', 'Task') LIMIT 1"};
    return {QStringLiteral("nsys/generated-2gpu.sqlite"), QStringLiteral("run/generated-2gpu.sqlite"), "StringIds",
            "value", "SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1"};
}

/// A scratch connection for building a crafted file (writable, no journal: the files are large).
class Builder
{
public:
    explicit Builder(const QString &path)
    {
        m_ok = sqlite3_open(path.toUtf8().constData(), &m_db) == SQLITE_OK &&
               exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;");
    }
    ~Builder() { sqlite3_close(m_db); }
    bool ok() const { return m_ok; }
    QString error() const { return m_error; }

    bool exec(const QByteArray &sql)
    {
        char *message = nullptr;
        if (sqlite3_exec(m_db, sql.constData(), nullptr, nullptr, &message) == SQLITE_OK)
            return true;
        m_error = QString::fromUtf8(message ? message : sqlite3_errmsg(m_db)) + QStringLiteral(" in ") +
                  QString::fromUtf8(sql.left(300));
        sqlite3_free(message);
        return false;
    }
    QList<QByteArray> texts(const QByteArray &sql)
    {
        QList<QByteArray> out;
        sqlite3_stmt *st = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.constData(), -1, &st, nullptr) != SQLITE_OK) {
            m_error = QString::fromUtf8(sqlite3_errmsg(m_db));
            return out;
        }
        while (sqlite3_step(st) == SQLITE_ROW)
            out << QByteArray(reinterpret_cast<const char *>(sqlite3_column_text(st, 0)));
        sqlite3_finalize(st);
        return out;
    }
    qint64 integer(const QByteArray &sql)
    {
        const QList<QByteArray> t = texts(sql);
        return t.isEmpty() ? -1 : t.front().toLongLong();
    }

    /// Views and triggers go first: renaming or dropping a table they use would fail.
    bool dropViewsAndTriggers()
    {
        for (const QByteArray &kind : {QByteArray("view"), QByteArray("trigger")})
            for (const QByteArray &name : texts("SELECT name FROM sqlite_master WHERE type = '" + kind + "'"))
                if (!exec("DROP " + kind.toUpper() + " \"" + name + "\""))
                    return false;
        return true;
    }

    /// `column` of `table` made a VIRTUAL generated column computing `expression` (the original
    /// values kept as `<column>_stored`). Added by ALTER TABLE, which evaluates nothing: an INSERT
    /// would compute the expression for every row here, in the test.
    bool makeGenerated(const QByteArray &table, const QByteArray &column, const QByteArray &expression)
    {
        return dropViewsAndTriggers() &&
               exec("ALTER TABLE \"" + table + "\" RENAME COLUMN \"" + column + "\" TO \"" + column +
                    "_stored\"; ALTER TABLE \"" + table + "\" ADD COLUMN \"" + column + "\" GENERATED ALWAYS AS (" +
                    expression + ") VIRTUAL;");
    }

    /// `table` replaced by an FTS5 virtual table with the same columns and rows.
    bool makeVirtual(const QByteArray &table)
    {
        if (!dropViewsAndTriggers())
            return false;
        QByteArrayList columns;
        for (const QByteArray &name : texts("SELECT name FROM pragma_table_info('" + table + "')"))
            columns << "\"" + name + "\"";
        return exec("ALTER TABLE \"" + table + "\" RENAME TO crafted_old; CREATE VIRTUAL TABLE \"" + table +
                    "\" USING fts5(" + columns.join(", ") + "); INSERT INTO \"" + table +
                    "\" SELECT * FROM crafted_old; DROP TABLE crafted_old;");
    }

    /// The value of `column` in the row `rowid` of `table` made `bytes` long ('K' repeated),
    /// written in 1 MiB pieces so that building it costs this process no more.
    bool storeLongValue(const QByteArray &table, const QByteArray &column, qint64 rowid, qint64 bytes)
    {
        // An index on the column would be rewritten with the value; blob writes refuse indexed columns.
        for (const QByteArray &index : texts("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '" +
                                             table + "' AND sql IS NOT NULL"))
            if (!exec("DROP INDEX \"" + index + "\""))
                return false;
        if (!exec("UPDATE \"" + table + "\" SET \"" + column + "\" = zeroblob(" + QByteArray::number(bytes) +
                  ") WHERE rowid = " + QByteArray::number(rowid)))
            return false;
        sqlite3_blob *blob = nullptr;
        if (sqlite3_blob_open(m_db, "main", table.constData(), column.constData(), rowid, 1, &blob) != SQLITE_OK) {
            m_error = QString::fromUtf8(sqlite3_errmsg(m_db));
            return false;
        }
        const QByteArray piece(1 << 20, 'K');
        bool ok = true;
        for (qint64 at = 0; ok && at < bytes; at += piece.size())
            ok = sqlite3_blob_write(blob, piece.constData(), int(std::min<qint64>(piece.size(), bytes - at)),
                                    int(at)) == SQLITE_OK;
        sqlite3_blob_close(blob);
        return ok;
    }

private:
    sqlite3 *m_db = nullptr;
    bool m_ok = false;
    QString m_error;
};

qint64 maxRssBytes(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    return qint64(usage.ru_maxrss) * 1024;
}

} // namespace

class TestHostileDatabases : public QObject
{
    Q_OBJECT

private slots:
    void craftedDatabase_data();
    void craftedDatabase();
    void deadlineStopsAQueryThatKeepsYieldingRows();
    void namesOnlyBoundIntoSql();
    void longNamesCutOnce();
};

void TestHostileDatabases::craftedDatabase_data()
{
    QTest::addColumn<QString>("schema");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected"); // in a non-Info diagnostic of the file; empty: read as usual
    for (const QString &schema : {QStringLiteral("rocpd"), QStringLiteral("rpd"), QStringLiteral("nsys")}) {
        auto row = [&](const char *what, const QString &kind, const QString &expected) {
            QTest::addRow("%s: %s", qPrintable(schema), what) << schema << kind << expected;
        };
        row("costly generated name column", QStringLiteral("costly"), QStringLiteral("a generated column"));
        row("200 MB names from a generated column", QStringLiteral("generated200mb"),
            QStringLiteral("a generated column"));
        row("name table is a virtual table", QStringLiteral("virtual"), QStringLiteral("a virtual table"));
        row("name table is a view", QStringLiteral("view"), QStringLiteral("a view, not a table"));
        row("150 MB stored kernel name", QStringLiteral("stored150mb"), QStringLiteral("longer than 16"));
        row("1 MB stored kernel name", QStringLiteral("stored1mb"), QStringLiteral("were cut to their first 16 KiB"));
        row("triggers on every table", QStringLiteral("triggers"), QString());
    }
    QTest::addRow("rocpd: table suffix injecting SQL into pragma_table_info")
        << QStringLiteral("rocpd") << QStringLiteral("injection") << QStringLiteral("suffixes no rocpd writer makes");
}

void TestHostileDatabases::craftedDatabase()
{
    QFETCH(QString, schema);
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    const Schema s = schemaOf(schema);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString runDir = tmp.filePath(QStringLiteral("run"));
    QVERIFY(QDir().mkpath(runDir));
    const QString path = tmp.filePath(s.rel);
    if (kind != QLatin1String("injection")) {
        QVERIFY(QFile::copy(test::dataPath(s.fixture), path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    }
    // Built in a forked child: SQLite expands a zeroblob that is not a record's last column, and
    // this process's peak resident size must stay that of the reading, which is measured below.
    const auto build = [&]() -> QString {
        Builder db(path);
        if (!db.ok())
            return db.error();
        bool built = true;
        if (kind == QLatin1String("costly")) {
            // 8 MB of work per value read: minutes for a table of names, were it evaluated.
            built = db.makeGenerated(s.nameTable, s.nameColumn,
                                     "\"" + s.nameColumn + "_stored\" || substr(replace(hex(zeroblob(4000000)), '0', "
                                                           "'a'), 1, 0)");
        } else if (kind == QLatin1String("generated200mb")) {
            built = db.makeGenerated(s.nameTable, s.nameColumn, "replace(hex(zeroblob(100000000)), '0', 'a')");
        } else if (kind == QLatin1String("virtual")) {
            built = db.makeVirtual(s.nameTable);
        } else if (kind == QLatin1String("view")) {
            built = db.dropViewsAndTriggers() &&
                    db.exec("ALTER TABLE \"" + s.nameTable + "\" RENAME TO crafted_data; CREATE VIEW \"" + s.nameTable +
                            "\" AS SELECT * FROM crafted_data;");
        } else if (kind == QLatin1String("stored150mb") || kind == QLatin1String("stored1mb")) {
            const qint64 id = db.integer(s.usedNameId);
            built = id >= 0 && db.storeLongValue(s.nameTable, s.nameColumn, id,
                                                 kind == QLatin1String("stored1mb") ? (qint64(1) << 20) : 150'000'000);
        } else if (kind == QLatin1String("triggers")) {
            built = db.exec("CREATE TABLE crafted_log(x);");
            int n = 0;
            for (const QByteArray &table : db.texts("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
                                                    "LIKE 'sqlite_%' AND name != 'crafted_log'"))
                built = built && db.exec("CREATE TRIGGER crafted_" + QByteArray::number(++n) + " BEFORE DELETE ON \"" +
                                         table + "\" BEGIN INSERT INTO crafted_log VALUES (1); END;");
        } else if (kind == QLatin1String("injection")) {
            // The suffix closes the quoted table name of pragma_table_info('…') and appends an
            // endless recursive query; every table a rocpd process needs exists under it.
            const QByteArray suffix = "_x') UNION ALL SELECT name FROM (WITH RECURSIVE r(name) AS (SELECT 'a' UNION "
                                      "ALL SELECT name FROM r) SELECT name FROM r) --";
            built = db.exec("CREATE TABLE \"rocpd_metadata" + suffix + "\"(id, tag, value); INSERT INTO \"rocpd_metadata" +
                            suffix + "\" VALUES (1, 'schema_version', '3'), (2, 'guid', 'g');");
            for (const char *base : {"rocpd_info_node", "rocpd_kernel_dispatch", "rocpd_info_agent", "rocpd_event",
                                     "rocpd_string", "rocpd_info_kernel_symbol", "rocpd_info_queue",
                                     "rocpd_info_process", "rocpd_info_thread"})
                built = built && db.exec("CREATE TABLE \"" + QByteArray(base) + suffix + "\"(id, guid);");
        }
        return built ? QString() : db.error() + QStringLiteral(" ");
    };
    const pid_t builder = fork();
    QVERIFY(builder >= 0);
    if (builder == 0) {
        const QString error = build();
        if (!error.isEmpty())
            std::fprintf(stderr, "building the crafted database failed: %s\n", qPrintable(error));
        _exit(error.isEmpty() ? 0 : 1);
    }
    int builderStatus = 0;
    QCOMPARE(waitpid(builder, &builderStatus, 0), builder);
    QVERIFY2(WIFEXITED(builderStatus) && WEXITSTATUS(builderStatus) == 0, "the crafted database was not built");
    if (const QByteArray keep = qgetenv("GOBLIN_HOSTILE_KEEP"); !keep.isEmpty()) {
        const QString into = QDir(QString::fromLocal8Bit(keep))
                                 .filePath(QString::fromLatin1(QTest::currentDataTag()).replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9]+")), QStringLiteral("-")));
        QDir(into).removeRecursively();
        QDir().mkpath(into);
        QFile::copy(path, QDir(into).filePath(QFileInfo(path).fileName()));
    }

    // In this process: the diagnostics and the names.
    const qint64 rssBefore = maxRssBytes(RUSAGE_SELF);
    QElapsedTimer clock;
    clock.start();
    const KernelTrace t = parseKernelTraces(runDir);
    const qint64 inProcessMs = clock.elapsed();
    const qint64 rssGrowth = maxRssBytes(RUSAGE_SELF) - rssBefore;
    qInfo("in process: %lld ms, peak resident size grew %lld MiB", qlonglong(inProcessMs), qlonglong(rssGrowth >> 20));
    QVERIFY2(inProcessMs < kTimeLimitMs, qPrintable(QStringLiteral("%1 ms").arg(inProcessMs)));
    QVERIFY2(rssGrowth <= kMemoryLimitBytes, qPrintable(QStringLiteral("%1 MiB").arg(rssGrowth >> 20)));
    const QString rel = QFileInfo(s.rel).fileName();
    bool named = false;
    for (const Diagnostic &d : t.diagnostics)
        if (d.file.endsWith(rel) && d.severity != Severity::Info && d.message.contains(expected))
            named = true;
    if (expected.isEmpty()) // read as usual: its row in the inputs names it
        named = std::any_of(t.files.begin(), t.files.end(),
                                      [&](const InputFileInfo &f) { return f.relativePath.endsWith(rel); });
    QVERIFY2(named, qPrintable(diagnosticsText(t.diagnostics)));
    for (const std::string &name : t.names)
        QVERIFY2(name.size() <= kernels::kMaxNameBytes, qPrintable(QStringLiteral("a name of %1 bytes").arg(name.size())));
    if (expected.isEmpty() || kind == QLatin1String("stored1mb") || kind == QLatin1String("stored150mb"))
        QVERIFY2(t.workbench.rowsUsed > 0, qPrintable(diagnosticsText(t.diagnostics))); // the rest is read
    else
        QCOMPARE(t.workbench.rowsUsed, qint64(0));

    // As a user runs it: the executable, its time, its exit and its peak resident size (wait4:
    // this child's own, which starts from this process's peak, the reading's, as it is spawned).
    const QByteArray binary = GOBLIN_APP_BINARY;
    const QByteArray runArg = runDir.toLocal8Bit();
    const QByteArray jsonArg = tmp.filePath(QStringLiteral("report.json")).toLocal8Bit();
    std::vector<char *> argv{const_cast<char *>(binary.constData()), const_cast<char *>("report"),
                             const_cast<char *>(runArg.constData()), const_cast<char *>("--json"),
                             const_cast<char *>(jsonArg.constData()), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    std::vector<char *> envp{const_cast<char *>("QT_QPA_PLATFORM=offscreen"), nullptr}; // no display
    pid_t app = -1;
    clock.restart();
    QCOMPARE(posix_spawn(&app, binary.constData(), &actions, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    rusage usage{};
    pid_t done = 0;
    while ((done = wait4(app, &status, WNOHANG, &usage)) == 0 && clock.elapsed() < 3 * kTimeLimitMs)
        QThread::msleep(10);
    const qint64 appMs = clock.elapsed();
    if (done == 0) {
        kill(app, SIGKILL);
        wait4(app, &status, 0, &usage);
    }
    const qint64 appPeak = qint64(usage.ru_maxrss) * 1024;
    qInfo("report: %lld ms, exit %d, peak resident size %lld MiB", qlonglong(appMs),
          WIFEXITED(status) ? WEXITSTATUS(status) : -1, qlonglong(appPeak >> 20));
    QVERIFY2(done == app && appMs < kTimeLimitMs, qPrintable(QStringLiteral("report ran %1 ms").arg(appMs)));
    QVERIFY2(WIFEXITED(status), "report ended by a signal");
    QVERIFY2(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1, "report exit code neither 0 nor 1");
    QVERIFY2(appPeak <= kMemoryLimitBytes, qPrintable(QStringLiteral("%1 MiB").arg(appPeak >> 20)));
}

/// The deadline stops a statement even while it produces rows (the stall watchdog would not), and
/// says so; the next statement fails at once.
void TestHostileDatabases::deadlineStopsAQueryThatKeepsYieldingRows()
{
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("d.db"));
    QString error;
    QVERIFY2(execSql(path,
                     "CREATE TABLE t(x); WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r LIMIT 3000) "
                     "INSERT INTO t SELECT x FROM r;",
                     &error),
             qPrintable(error));
    rocpd::Connection conn;
    QVERIFY(conn.open(path));
    dbread::Guard guard(conn.handle(), std::chrono::seconds(20), std::chrono::milliseconds(400));
    qint64 rows = 0;
    QElapsedTimer clock;
    clock.start();
    QVERIFY(!dbread::eachRow(conn.handle(), guard, "SELECT a.x FROM t a, t b, t c", error, [&](sqlite3_stmt *) {
        ++rows;
        return true;
    }));
    QVERIFY2(clock.elapsed() < 3'000, qPrintable(QStringLiteral("%1 ms").arg(clock.elapsed())));
    QVERIFY(rows > 0);
    QCOMPARE(guard.stop(), dbread::Guard::Stop::Deadline);
    QVERIFY2(error.contains(QStringLiteral("took longer than 0.4 s")), qPrintable(error));
    QVERIFY(!dbread::eachRow(conn.handle(), guard, "SELECT sum(x) FROM t", error, [](sqlite3_stmt *) { return true; }));
}

/// A table name from the file is only ever a bound parameter: a quote in it reads as a name.
void TestHostileDatabases::namesOnlyBoundIntoSql()
{
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("n.db"));
    const QString evil = QStringLiteral("t') UNION ALL SELECT 'injected' --");
    QString error;
    QVERIFY2(execSql(path, "CREATE TABLE \"" + evil.toUtf8() + "\"(a, b GENERATED ALWAYS AS (a * 2) VIRTUAL);", &error),
             qPrintable(error));
    dbread::UntrustedConnection source;
    QVERIFY(!dbread::openUntrusted(path, source));
    QCOMPARE(dbread::columnsOf(source.conn, evil), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    QCOMPARE(dbread::generatedColumns(source.conn, {evil}), QStringList{evil + QStringLiteral(".b (a generated column)")});
    QVERIFY(!rocpd::validSuffix(QStringLiteral("_x') --")));
    QVERIFY(!rocpd::validSuffix(QStringLiteral("_") + QString(101, QLatin1Char('a'))));
    QVERIFY(rocpd::validSuffix(QStringLiteral("_0000a3a6_d6f7_7a74_85e3_0f431fce674a")));
    QVERIFY(rocpd::validSuffix(QStringLiteral("_8a6f56259041093dad0a26fa50ea82b5")));
}

/// A long name is cut once, to at most kMaxNameBytes, at a character boundary; two long names that
/// share their first bytes stay two names; names up to the cap are untouched.
void TestHostileDatabases::longNamesCutOnce()
{
    using kernels::kMaxNameBytes;
    kernels::NamePool pool;
    const std::string exact(kMaxNameBytes, 'a');
    QCOMPARE(pool.intern(exact), 0u);
    QCOMPARE(pool.view(0), std::string_view(exact));
    const size_t mark = pool.cutMark();
    // Built by appends: gcc 12 warns (-Warray-bounds, a false positive) on string + literal here.
    std::string a(kMaxNameBytes, 'x'), b(kMaxNameBytes, 'x');
    a.append("\xc3\xa9").append(1000, 'a');
    b.append("\xc3\xa9").append(1000, 'b');
    const std::uint32_t ia = pool.intern(a), ib = pool.intern(b);
    QVERIFY(ia != ib);
    QCOMPARE(pool.intern(a), ia);
    QVERIFY(pool.view(ia).size() <= kMaxNameBytes);
    QCOMPARE(kernels::cutName(pool.view(ia)), std::string(pool.view(ia)));
    QVERIFY(QString::fromUtf8(pool.view(ia).data(), qsizetype(pool.view(ia).size())).contains(QStringLiteral("cut: ")));
    const kernels::NameCuts cuts = pool.cutsSince(mark);
    QCOMPARE(cuts.count, std::int64_t(2));
    QCOMPARE(cuts.longestBytes, std::uint64_t(a.size()));
    QVERIFY(cuts.message().contains(QStringLiteral("2 name(s) longer than 16 KiB")));
    // A cut inside a two-byte character backs up to its start: the kept text is valid UTF-8.
    const std::string accents = std::string(1, 'y') + [] {
        std::string s;
        for (size_t i = 0; i < kMaxNameBytes; ++i)
            s += "\xc3\xa9";
        return s;
    }();
    const std::string cut = kernels::cutName(accents);
    QVERIFY(cut.size() <= kMaxNameBytes);
    QVERIFY(QString::fromUtf8(cut.data(), qsizetype(cut.size())).toUtf8() == QByteArray(cut.data(), qsizetype(cut.size())));
}

QTEST_GUILESS_MAIN(TestHostileDatabases)
#include "tst_hostiledatabases.moc"
