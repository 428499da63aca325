#include "sqliteexport.h"

#include "chrometraceexport.h"
#include "redaction.h"
#include "run.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryFile>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <sqlite3.h>

namespace goblin {

namespace {

constexpr const char *kSchema = R"sql(
CREATE TABLE schema_version (version INTEGER NOT NULL, generator TEXT NOT NULL, generator_version TEXT NOT NULL);
CREATE TABLE runs (run_id INTEGER PRIMARY KEY, name TEXT, path TEXT, profile TEXT, run_kind TEXT,
    run_kind_reason TEXT, step_time_s REAL, step_time_state TEXT, step_time_source TEXT, step_plan_kind TEXT,
    steps INTEGER, verdict TEXT, command TEXT, report_json TEXT);
CREATE TABLE facts (run_id INTEGER, key TEXT, value TEXT, state TEXT, source TEXT);
CREATE TABLE devices (run_id INTEGER, name TEXT, model TEXT, memory_gb REAL, memory_state TEXT,
    memory_source TEXT, file TEXT, trace_device INTEGER, shared_memory INTEGER);
CREATE TABLE quantities (run_id INTEGER, key TEXT, value REAL, state TEXT, source TEXT, scope TEXT);
CREATE TABLE steps (run_id INTEGER, step_index INTEGER, name TEXT, start_s REAL, duration_s REAL,
    gpu_util_pct REAL, host_busy_fraction REAL, hbm_peak_gb REAL, devices INTEGER, partial INTEGER,
    outlier INTEGER, outlier_reason TEXT);
CREATE TABLE budget (run_id INTEGER, step_index INTEGER, bucket TEXT, seconds REAL, share_of_step REAL,
    state TEXT, source TEXT);
CREATE TABLE kernels (run_id INTEGER, name TEXT, calls INTEGER, total_s REAL, mean_s REAL, min_s REAL, max_s REAL,
    share_of_kernel_time REAL);
CREATE TABLE ops (run_id INTEGER, name TEXT, input_shapes TEXT, calls INTEGER, kernels INTEGER, device_self_s REAL,
    device_total_s REAL, host_self_s REAL, host_total_s REAL, host_self_gpu_idle_s REAL);
CREATE TABLE modules (run_id INTEGER, module_id INTEGER, parent_id INTEGER, depth INTEGER, name TEXT, kind TEXT,
    calls INTEGER, device_s REAL, host_s REAL);
CREATE TABLE timeline (run_id INTEGER, file TEXT, device INTEGER, rank INTEGER, step_index INTEGER, window_s REAL,
    busy_s REAL, compute_s REAL, comm_s REAL, exposed_comm_s REAL, memcpy_s REAL, copy_only_s REAL,
    h2d_copy_only_s REAL, idle_s REAL, idle_data_loading_s REAL, idle_host_busy_s REAL, idle_nothing_s REAL);
CREATE TABLE telemetry (run_id INTEGER, time_s REAL, gpu INTEGER, util_pct REAL, hbm_used_gb REAL,
    hbm_total_gb REAL, power_w REAL, in_job_window INTEGER);
CREATE TABLE collectives (run_id INTEGER, name TEXT, bytes REAL, calls INTEGER, time_s REAL, algbw_gbps REAL,
    busbw_gbps REAL, row_json TEXT);
CREATE TABLE diagnostics (run_id INTEGER, severity TEXT, file TEXT, line INTEGER, message TEXT);
)sql";

/// A value for a statement's parameter: null, integer, real or text.
using Cell = std::variant<std::monostate, qint64, double, QString>;

Cell fromJson(const QJsonValue &v)
{
    if (v.isDouble()) {
        const double d = v.toDouble();
        return std::isfinite(d) ? Cell(d) : Cell();
    }
    if (v.isBool())
        return Cell(qint64(v.toBool() ? 1 : 0));
    if (v.isString())
        return Cell(v.toString());
    if (v.isArray() || v.isObject())
        return Cell(QString::fromUtf8(v.isArray() ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                                  : QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact)));
    return Cell();
}

Cell integerFrom(const QJsonValue &v)
{
    return v.isDouble() ? Cell(qint64(v.toDouble())) : Cell();
}

Cell real(double v)
{
    return std::isfinite(v) ? Cell(v) : Cell();
}

/// The open database and its prepared inserts.
class Writer
{
public:
    explicit Writer(sqlite3 *db) : m_db(db) {}
    ~Writer()
    {
        for (auto &[sql, statement] : m_statements)
            sqlite3_finalize(statement);
    }
    bool exec(const char *sql)
    {
        char *message = nullptr;
        if (sqlite3_exec(m_db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
            m_error = QString::fromUtf8(message ? message : sqlite3_errmsg(m_db));
            sqlite3_free(message);
            return false;
        }
        return true;
    }
    /// INSERT INTO `table` VALUES (cells…).
    bool insert(const char *table, std::initializer_list<Cell> cells)
    {
        if (!m_error.isEmpty())
            return false;
        const std::string key = std::string(table) + '/' + std::to_string(cells.size());
        sqlite3_stmt *&statement = m_statements[key];
        if (!statement) {
            std::string sql = std::string("INSERT INTO ") + table + " VALUES (";
            for (std::size_t i = 0; i < cells.size(); ++i)
                sql += i ? ",?" : "?";
            sql += ")";
            if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
                m_error = QString::fromUtf8(sqlite3_errmsg(m_db));
                return false;
            }
        }
        int i = 1;
        for (const Cell &c : cells) {
            if (const auto *n = std::get_if<qint64>(&c))
                sqlite3_bind_int64(statement, i, *n);
            else if (const auto *d = std::get_if<double>(&c))
                sqlite3_bind_double(statement, i, *d);
            else if (const auto *s = std::get_if<QString>(&c)) {
                const QByteArray utf8 = s->toUtf8();
                sqlite3_bind_text(statement, i, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT);
            } else
                sqlite3_bind_null(statement, i);
            ++i;
        }
        const int rc = sqlite3_step(statement);
        sqlite3_reset(statement);
        sqlite3_clear_bindings(statement);
        if (rc != SQLITE_DONE) {
            m_error = QString::fromUtf8(sqlite3_errmsg(m_db));
            return false;
        }
        return true;
    }
    const QString &error() const { return m_error; }

private:
    sqlite3 *m_db;
    std::map<std::string, sqlite3_stmt *> m_statements;
    QString m_error;
};

constexpr qint64 kRunId = 1;

void writeRun(Writer &w, const QJsonObject &report)
{
    const QJsonObject step = report[QLatin1String("quantities")][QLatin1String("step_time_s")].toObject();
    QStringList argv;
    for (const QJsonValue &v : report[QLatin1String("command")].toArray())
        argv << v.toString();
    w.insert("schema_version", {qint64(kSqliteExportSchemaVersion), report[QLatin1String("generator")][QLatin1String("name")].toString(),
                                report[QLatin1String("generator")][QLatin1String("version")].toString()});
    w.insert("runs", {kRunId, fromJson(report[QLatin1String("run")][QLatin1String("name")]),
                      fromJson(report[QLatin1String("run")][QLatin1String("path")]), fromJson(report[QLatin1String("profile")]),
                      fromJson(report[QLatin1String("run_kind")]), fromJson(report[QLatin1String("run_kind_reason")]),
                      fromJson(step[QLatin1String("value")]), fromJson(step[QLatin1String("state")]),
                      fromJson(step[QLatin1String("source")]), fromJson(report[QLatin1String("step_plan")][QLatin1String("kind")]),
                      qint64(report[QLatin1String("per_step")].toArray().size()),
                      fromJson(report[QLatin1String("budget")][QLatin1String("verdict")]), argv.join(QLatin1Char(' ')),
                      QString::fromUtf8(QJsonDocument(report).toJson(QJsonDocument::Compact))});
}

void writeFacts(Writer &w, const QJsonObject &report, SqliteExportCounts &n)
{
    const QJsonObject facts = report[QLatin1String("facts")].toObject();
    // The run's facts (capacity, program …), its step plan and its job, one row each.
    QJsonObject rows = facts;
    rows.remove(QStringLiteral("devices"));
    for (const char *key : {"step_plan", "job"})
        if (report.contains(QLatin1String(key)))
            rows[QLatin1String(key)] = report[QLatin1String(key)];
    for (auto it = rows.begin(); it != rows.end(); ++it) {
        const QJsonValue v = it.value();
        w.insert("facts", {kRunId, it.key(), fromJson(v), fromJson(v[QLatin1String("state")]), fromJson(v[QLatin1String("source")])});
    }
    for (const QJsonValue &d : facts[QLatin1String("devices")].toArray()) {
        w.insert("devices", {kRunId, fromJson(d[QLatin1String("name")]), fromJson(d[QLatin1String("model")]),
                             fromJson(d[QLatin1String("memory_gb")]), fromJson(d[QLatin1String("memory_state")]),
                             fromJson(d[QLatin1String("memory_source")]), fromJson(d[QLatin1String("file")]),
                             integerFrom(d[QLatin1String("trace_device")]), fromJson(d[QLatin1String("shared_memory")])});
        ++n.devices;
    }
    const QJsonObject quantities = report[QLatin1String("quantities")].toObject();
    for (auto it = quantities.begin(); it != quantities.end(); ++it) {
        const QJsonValue q = it.value();
        w.insert("quantities", {kRunId, it.key(), fromJson(q[QLatin1String("value")]), fromJson(q[QLatin1String("state")]),
                                fromJson(q[QLatin1String("source")]), fromJson(q[QLatin1String("scope")])});
        ++n.quantities;
    }
}

void writeStepsAndBudget(Writer &w, const QJsonObject &report, SqliteExportCounts &n)
{
    const QJsonObject buckets = report[QLatin1String("budget")][QLatin1String("buckets")].toObject();
    // The run's buckets (step_index NULL), then each step's.
    for (auto it = buckets.begin(); it != buckets.end(); ++it) {
        const QJsonValue b = it.value();
        w.insert("budget", {kRunId, Cell(), it.key(), fromJson(b[QLatin1String("seconds_per_step")]),
                            fromJson(b[QLatin1String("share_of_step")]), fromJson(b[QLatin1String("state")]),
                            fromJson(b[QLatin1String("source")])});
        ++n.budgetRows;
    }
    for (const QJsonValue &s : report[QLatin1String("per_step")].toArray()) {
        const Cell index = integerFrom(s[QLatin1String("index")]);
        w.insert("steps", {kRunId, index, fromJson(s[QLatin1String("name")]), fromJson(s[QLatin1String("start_s")]),
                           fromJson(s[QLatin1String("duration_s")]), fromJson(s[QLatin1String("gpu_util_pct")]),
                           fromJson(s[QLatin1String("host_busy_fraction")]), fromJson(s[QLatin1String("hbm_peak_gb")]),
                           integerFrom(s[QLatin1String("devices")]), fromJson(s[QLatin1String("partial")]),
                           fromJson(s[QLatin1String("outlier")]), fromJson(s[QLatin1String("outlier_reason")])});
        ++n.steps;
        const double duration = s[QLatin1String("duration_s")].toDouble();
        const QJsonObject perStep = s[QLatin1String("waste_budget")].toObject();
        for (auto it = perStep.begin(); it != perStep.end(); ++it) {
            // Bucket keys as budget.buckets names them (per_step says unattributed_s).
            const QString bucket = it.key() == QLatin1String("unattributed_s") ? QStringLiteral("unattributed") : it.key();
            const QJsonValue run = buckets[bucket];
            const double seconds = it.value().toDouble();
            w.insert("budget", {kRunId, index, bucket, fromJson(it.value()),
                                duration > 0.0 && it.value().isDouble() ? real(seconds / duration) : Cell(),
                                fromJson(run[QLatin1String("state")]), fromJson(run[QLatin1String("source")])});
            ++n.budgetRows;
        }
    }
}

void writeKernels(Writer &w, const RunAnalysis &run, const QJsonObject &report, SqliteExportCounts &n)
{
    const bool reference = report[QLatin1String("profile")].toString() == QLatin1String("reference");
    const KernelReading &reading = reference ? run.kernels.reference : run.kernels.workbench;
    const double total = double(reading.totalNs);
    for (std::size_t id = 0; id < reading.perName.size() && id < run.kernels.names.size(); ++id) {
        const KernelNameStats &k = reading.perName[id];
        if (k.calls == 0)
            continue;
        // Names from the run itself pass the export redaction, as the report's do.
        w.insert("kernels", {kRunId, redactSecrets(QString::fromStdString(run.kernels.names[id])), qint64(k.calls), real(double(k.totalNs) * 1e-9),
                             real(double(k.totalNs) * 1e-9 / double(k.calls)), real(double(k.minNs) * 1e-9),
                             real(double(k.maxNs) * 1e-9), total > 0.0 ? real(double(k.totalNs) / total) : Cell()});
        ++n.kernels;
    }
}

void writeOps(Writer &w, const QJsonObject &report, SqliteExportCounts &n)
{
    for (const QJsonValue &op : report[QLatin1String("ops")].toArray()) {
        w.insert("ops", {kRunId, fromJson(op[QLatin1String("name")]), fromJson(op[QLatin1String("input_shapes")]),
                         integerFrom(op[QLatin1String("calls")]), integerFrom(op[QLatin1String("kernels")]),
                         fromJson(op[QLatin1String("device_self_s")]), fromJson(op[QLatin1String("device_total_s")]),
                         fromJson(op[QLatin1String("host_self_s")]), fromJson(op[QLatin1String("host_total_s")]),
                         fromJson(op[QLatin1String("host_self_gpu_idle_s")])});
        ++n.ops;
    }
    // The module tree, flattened depth first; the root (no name) is not a module.
    qint64 nextId = 0;
    const std::function<void(const QJsonObject &, Cell, int)> walk = [&](const QJsonObject &node, Cell parent, int depth) {
        for (const QJsonValue &child : node[QLatin1String("children")].toArray()) {
            const qint64 id = ++nextId;
            w.insert("modules", {kRunId, id, parent, qint64(depth), fromJson(child[QLatin1String("name")]),
                                 fromJson(child[QLatin1String("kind")]), integerFrom(child[QLatin1String("calls")]),
                                 fromJson(child[QLatin1String("device_s")]), fromJson(child[QLatin1String("host_s")])});
            ++n.modules;
            walk(child.toObject(), Cell(id), depth + 1);
        }
    };
    walk(report[QLatin1String("modules")].toObject(), Cell(), 0);
}

void writeTimeline(Writer &w, const QJsonObject &report, SqliteExportCounts &n)
{
    for (const QJsonValue &d : report[QLatin1String("timeline")][QLatin1String("devices")].toArray()) {
        qint64 index = 0;
        for (const QJsonValue &s : d[QLatin1String("per_step")].toArray()) {
            w.insert("timeline", {kRunId, fromJson(d[QLatin1String("file")]), integerFrom(d[QLatin1String("device")]),
                                  integerFrom(d[QLatin1String("rank")]), index++, fromJson(s[QLatin1String("window_s")]),
                                  fromJson(s[QLatin1String("busy_s")]), fromJson(s[QLatin1String("compute_s")]),
                                  fromJson(s[QLatin1String("comm_s")]), fromJson(s[QLatin1String("exposed_comm_s")]),
                                  fromJson(s[QLatin1String("memcpy_s")]), fromJson(s[QLatin1String("copy_only_s")]),
                                  fromJson(s[QLatin1String("h2d_copy_only_s")]), fromJson(s[QLatin1String("idle_s")]),
                                  fromJson(s[QLatin1String("idle_data_loading_s")]),
                                  fromJson(s[QLatin1String("idle_host_busy_s")]), fromJson(s[QLatin1String("idle_nothing_s")])});
            ++n.timelineRows;
        }
    }
}

void writeTelemetryAndRest(Writer &w, const RunAnalysis &run, const QJsonObject &report, SqliteExportCounts &n)
{
    for (const TelemetrySample &s : run.smi.samples) {
        w.insert("telemetry", {kRunId, real(s.timeS), qint64(s.gpu), real(s.utilPct), real(s.hbmUsedGb), real(s.hbmTotalGb),
                               real(s.powerW), qint64(s.inJobWindow ? 1 : 0)});
        ++n.telemetrySamples;
    }
    // The report writes each collective figure as {value, state, source}: the column holds the value.
    const auto figure = [](const QJsonValue &v) { return fromJson(v.isObject() ? v[QLatin1String("value")] : v); };
    for (const QJsonValue &c : report[QLatin1String("collectives")].toArray()) {
        w.insert("collectives", {kRunId, fromJson(c[QLatin1String("name")]), figure(c[QLatin1String("bytes")]),
                                 integerFrom(c[QLatin1String("calls")]), figure(c[QLatin1String("time_s")]),
                                 figure(c[QLatin1String("algbw_gbps")]), figure(c[QLatin1String("busbw_gbps")]),
                                 fromJson(c)});
        ++n.collectives;
    }
    for (const QJsonValue &d : report[QLatin1String("diagnostics")].toArray()) {
        w.insert("diagnostics", {kRunId, fromJson(d[QLatin1String("severity")]), fromJson(d[QLatin1String("file")]),
                                 integerFrom(d[QLatin1String("line")]), fromJson(d[QLatin1String("message")])});
        ++n.diagnostics;
    }
}

} // namespace

bool writeSqliteExport(const RunAnalysis &run, const QJsonObject &report, const QString &path, QString *error,
                       SqliteExportCounts *counts)
{
    const auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (isInsideRunFolder(path, run.runDir))
        return fail(QStringLiteral("%1 is inside the run folder %2; the workbench never writes into a run folder, "
                                   "choose another place")
                        .arg(path, run.runDir));
    const QFileInfo target(path);
    if (target.exists() && !target.isFile())
        return fail(QStringLiteral("%1 exists and is not a regular file").arg(path));
    // The database is made under a temporary name beside the target and renamed over it when
    // complete: a reader never sees half a database, a failure leaves the old file as it was.
    QTemporaryFile temporary(target.absoluteDir().filePath(target.fileName() + QStringLiteral(".XXXXXX.tmp")));
    if (!temporary.open())
        return fail(QStringLiteral("%1: cannot create a file in %2: %3")
                        .arg(path, target.absolutePath(), temporary.errorString()));
    const QString temporaryPath = temporary.fileName();
    temporary.close();

    sqlite3 *db = nullptr;
    if (sqlite3_open_v2(QFile::encodeName(temporaryPath).constData(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        nullptr) != SQLITE_OK) {
        const QString why = QString::fromUtf8(db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return fail(QStringLiteral("%1: %2").arg(path, why));
    }
    SqliteExportCounts n;
    QString problem;
    {
        Writer w(db);
        // One transaction, no journal: the file is private until renamed.
        if (w.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;") && w.exec(kSchema)) {
            writeRun(w, report);
            writeFacts(w, report, n);
            writeStepsAndBudget(w, report, n);
            writeKernels(w, run, report, n);
            writeOps(w, report, n);
            writeTimeline(w, report, n);
            writeTelemetryAndRest(w, run, report, n);
            if (w.error().isEmpty())
                w.exec("COMMIT;");
        }
        problem = w.error();
    }
    if (sqlite3_close(db) != SQLITE_OK && problem.isEmpty())
        problem = QStringLiteral("cannot close the database");
    if (problem.isEmpty()) {
        QFile::setPermissions(temporaryPath, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
        if (std::rename(QFile::encodeName(temporaryPath).constData(), QFile::encodeName(target.absoluteFilePath()).constData()) != 0)
            problem = QStringLiteral("cannot rename the finished database into place");
    }
    if (!problem.isEmpty()) {
        QFile::remove(temporaryPath);
        return fail(QStringLiteral("%1: %2").arg(path, problem));
    }
    if (counts)
        *counts = n;
    return true;
}

} // namespace goblin
