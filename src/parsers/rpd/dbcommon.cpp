#include "dbcommon.h"

#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "rocpd/rocpdfile.h"
#include "rocpdreader.h"

#include <QFileInfo>
#include <QLocale>

#include <algorithm>
#include <cstring>
#include <limits>
#include <tuple>

namespace goblin::dbread
{

std::chrono::milliseconds deadlineFor(qint64 bytes)
{
    return std::chrono::seconds(10) + std::chrono::seconds(std::max<qint64>(0, bytes) >> 20);
}

std::optional<OpenRefusal> openUntrusted(const QString &path, UntrustedConnection &into, UntrustedLimits limits)
{
    rocpd::Connection &conn = into.conn;
    const rocpd::FileCheck check = rocpd::checkFile(path);
    into.sideFiles = check.sideFiles;
    into.wal = check.wal;
    if (!check.ok)
        return OpenRefusal{false, check.problem + QStringLiteral("; no kernels read from it"),
                           QStringLiteral("not a readable SQLite file")};
    if (!conn.open(path))
        return OpenRefusal{
            true, QStringLiteral("cannot be opened as an SQLite database (%1); no kernels read from it").arg(conn.error()),
            QStringLiteral("unreadable SQLite file")};
    if (limits.deadline.count() == 0)
        limits.deadline = deadlineFor(QFileInfo(path).size());
    into.guard.emplace(conn.handle(), limits);
    QString error;
    if (!readSchema(conn, into.schema, error))
        return OpenRefusal{true,
                           QStringLiteral("cannot be read as an SQLite database (%1): damaged or half-copied; no "
                                          "kernels read from it")
                               .arg(into.guard->stalled() ? into.guard->describeError() : error),
                           QStringLiteral("unreadable SQLite file")};
    return std::nullopt;
}


namespace
{

/// rpd: what the reader needs of each table (rpd_tracer schema 2 and 3, rocpd_python's schema).
const std::vector<std::pair<const char *, std::vector<const char *>>> &rpdColumns()
{
    static const std::vector<std::pair<const char *, std::vector<const char *>>> c{
        {"rocpd_op", {"id", "gpuId", "queueId", "start", "end", "description_id", "opType_id"}},
        {"rocpd_api", {"id", "pid", "tid", "start", "end", "apiName_id", "args_id"}},
        {"rocpd_string", {"id", "string"}},
    };
    return c;
}

/// The authorizer: reads, the functions the readers call, the schema pragmas. Everything else
/// (writes would fail on the read-only connection anyway; ATTACH, other PRAGMAs, recursive CTEs)
/// is refused.
int authorize(void *, int action, const char *a, const char *, const char *, const char *)
{
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
        return SQLITE_OK;
    case SQLITE_PRAGMA:
        return a && (std::strcmp(a, "table_info") == 0 || std::strcmp(a, "table_xinfo") == 0 ||
                     std::strcmp(a, "table_list") == 0)
                   ? SQLITE_OK
                   : SQLITE_DENY;
    case SQLITE_UPDATE:
        // pragma_table_info() asks for the schema table's columns as an update (it reads them);
        // the connection is read-only and immutable, so nothing can be written either way.
        return a && (std::strcmp(a, "sqlite_master") == 0 || std::strcmp(a, "sqlite_schema") == 0) ? SQLITE_OK
                                                                                                   : SQLITE_DENY;
    default:
        return SQLITE_DENY;
    }
}

/// How often (in virtual-machine instructions) the progress handler looks at the clock: small,
/// so that a costly expression per row cannot make the checks seconds apart; a clock read per
/// thousand instructions costs well under 1 % of a scan.
constexpr int kProgressInstructions = 1000;

} // namespace

Guard::Guard(sqlite3 *db, std::chrono::milliseconds stallLimit, std::chrono::milliseconds deadline)
    : Guard(db, UntrustedLimits{stallLimit, deadline})
{
}

Guard::Guard(sqlite3 *db, const UntrustedLimits &limits) : m_db(db), m_limits(limits)
{
    m_last = std::chrono::steady_clock::now();
    m_deadlineAt = limits.deadline.count() > 0 ? m_last + limits.deadline : std::chrono::steady_clock::time_point::max();
    int ignored = 0;
    // A view or trigger in a stranger's file could run anything SQL can (an endless recursive
    // view included); the readers read plain tables, so views are switched off altogether.
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, &ignored);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &ignored);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &ignored);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &ignored);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &ignored);
    // No value longer than the limit is ever materialised (SQLite checks before it allocates),
    // no statement can attach a file. The schema is parsed under the same limits: a crafted
    // CREATE statement megabytes long or nested hundreds deep is refused as it is read.
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, limits.maxValueBytes);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
    sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 200);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
    sqlite3_set_authorizer(db, &authorize, nullptr);
    sqlite3_progress_handler(db, kProgressInstructions, &Guard::onProgress, this);
    sqlite3_trace_v2(db, SQLITE_TRACE_STMT | SQLITE_TRACE_ROW, &Guard::onTrace, this);
}

Guard::~Guard()
{
    sqlite3_trace_v2(m_db, 0, nullptr, nullptr);
    sqlite3_progress_handler(m_db, 0, nullptr, nullptr);
    sqlite3_set_authorizer(m_db, nullptr, nullptr);
}

int Guard::onTrace(unsigned type, void *self, void *, void *)
{
    auto *g = static_cast<Guard *>(self);
    ++g->m_events;
    if (type == SQLITE_TRACE_STMT && g->m_stop == Stop::Stalled)
        g->m_stop = Stop::None; // a new statement: the last one's stall is history
    return 0;
}

int Guard::onProgress(void *self)
{
    auto *g = static_cast<Guard *>(self);
    const auto now = std::chrono::steady_clock::now();
    if (g->m_events != g->m_eventsSeen) { // a statement started or a row came since the last look
        g->m_eventsSeen = g->m_events;
        g->m_last = now;
    }
    if (now > g->m_deadlineAt) {
        g->m_stop = Stop::Deadline;
        return 1; // SQLITE_INTERRUPT
    }
    if (now - g->m_last > g->m_limits.stallLimit) {
        g->m_stop = Stop::Stalled;
        return 1;
    }
    return 0;
}

QString Guard::describeError() const
{
    const QString sqlite = QString::fromUtf8(sqlite3_errmsg(m_db));
    switch (m_stop) {
    case Stop::Deadline:
        return QStringLiteral("reading it took longer than %1 s, the limit for a database of its size, and was "
                              "stopped (%2): a query that costly is not a profiler's file")
            .arg(m_limits.deadline.count() / 1000.0, 0, 'f', 1)
            .arg(sqlite);
    case Stop::Stalled:
        return QStringLiteral("a query ran for %1 s without a row and was stopped (%2)")
            .arg(m_limits.stallLimit.count() / 1000.0, 0, 'f', 1)
            .arg(sqlite);
    case Stop::None:
        break;
    }
    if (sqlite3_errcode(m_db) == SQLITE_TOOBIG)
        return QStringLiteral("a value is longer than %1, the most one string may hold here (%2)")
            .arg(describeBytes(m_limits.maxValueBytes), sqlite);
    return sqlite;
}

QString queryError(sqlite3 *db, const Guard *guard)
{
    return guard ? guard->describeError() : QString::fromUtf8(sqlite3_errmsg(db));
}

bool readSchema(rocpd::Connection &conn, SchemaObjects &out, QString &error)
{
    sqlite3_stmt *stmt = nullptr;
    if (sqlite3_prepare_v2(conn.handle(), "SELECT type, name FROM sqlite_master", -1, &stmt, nullptr) != SQLITE_OK) {
        error = QString::fromUtf8(sqlite3_errmsg(conn.handle()));
        return false;
    }
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const auto *type = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0));
        const auto *name = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 1));
        if (type && name)
            out.emplace(name, type);
    }
    if (rc != SQLITE_DONE)
        error = QString::fromUtf8(sqlite3_errmsg(conn.handle()));
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE)
        return false;
    // sqlite_master says "table" for a virtual table too; SQLite's own table list tells them apart
    // (from the parsed schema: nothing of the table is read).
    if (sqlite3_prepare_v2(conn.handle(), "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'virtual'",
                           -1, &stmt, nullptr) != SQLITE_OK) {
        error = QString::fromUtf8(sqlite3_errmsg(conn.handle()));
        return false;
    }
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const auto *name = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0));
        if (name)
            out[name] = "virtual table";
    }
    if (rc != SQLITE_DONE)
        error = QString::fromUtf8(sqlite3_errmsg(conn.handle()));
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE;
}

QStringList columnsOf(rocpd::Connection &conn, const QString &table)
{
    QStringList out;
    sqlite3_stmt *stmt = nullptr;
    // table_xinfo, not table_info: a generated column counts as present (the reader then refuses
    // it by name) instead of making the file look like another kind.
    if (sqlite3_prepare_v2(conn.handle(), "SELECT name FROM pragma_table_xinfo(?1)", -1, &stmt, nullptr) != SQLITE_OK)
        return out;
    const QByteArray name = table.toUtf8();
    sqlite3_bind_text(stmt, 1, name.constData(), int(name.size()), SQLITE_STATIC);
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0));
        out << QString::fromUtf8(text ? text : "");
    }
    sqlite3_finalize(stmt);
    return out;
}

namespace
{
QStringList names(const std::vector<const char *> &list)
{
    QStringList out;
    for (const char *name : list)
        out << QLatin1String(name);
    return out;
}
} // namespace

QStringList notTables(const SchemaObjects &schema, const std::vector<const char *> &required)
{
    return notTables(schema, names(required));
}

QStringList notTables(const SchemaObjects &schema, const QStringList &required)
{
    QStringList out;
    for (const QString &name : required) {
        const auto it = schema.find(name.toStdString());
        if (it == schema.end())
            out << QStringLiteral("%1 (missing)").arg(name);
        else if (it->second != "table")
            out << QStringLiteral("%1 (a %2, not a table)").arg(name, QString::fromStdString(it->second));
    }
    return out;
}

QStringList generatedColumns(rocpd::Connection &conn, const QStringList &tables)
{
    QStringList out;
    sqlite3_stmt *stmt = nullptr;
    // hidden: 0 a column, 1 hidden (virtual tables), 2 generated VIRTUAL, 3 generated STORED.
    if (sqlite3_prepare_v2(conn.handle(), "SELECT name FROM pragma_table_xinfo(?1) WHERE hidden IN (2, 3)", -1, &stmt,
                           nullptr) != SQLITE_OK)
        return {QStringLiteral("(its columns cannot be listed: %1)").arg(QString::fromUtf8(sqlite3_errmsg(conn.handle())))};
    for (const QString &table : tables) {
        const QByteArray name = table.toUtf8();
        sqlite3_reset(stmt);
        sqlite3_bind_text(stmt, 1, name.constData(), int(name.size()), SQLITE_TRANSIENT);
        int rc;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            const auto *column = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0));
            // The column's name is the file's: quoted only as far as a diagnostic needs.
            out << QStringLiteral("%1.%2 (a generated column)")
                       .arg(table, QString::fromUtf8(column ? column : "?").left(64));
            if (out.size() >= 8)
                break;
        }
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            out << QStringLiteral("%1 (its columns cannot be listed: %2)")
                       .arg(table, QString::fromUtf8(sqlite3_errmsg(conn.handle())));
        if (out.size() >= 8)
            break;
    }
    sqlite3_finalize(stmt);
    return out;
}

QStringList unsafeTables(UntrustedConnection &source, const std::vector<const char *> &required,
                         const std::vector<const char *> &optional)
{
    return unsafeTablesOf(source, names(required), names(optional));
}

QStringList unsafeTablesOf(UntrustedConnection &source, const QStringList &required, const QStringList &optional)
{
    QStringList out = notTables(source.schema, required);
    QStringList plain;
    for (const QString &name : required + optional) {
        const auto it = source.schema.find(name.toStdString());
        if (it != source.schema.end() && it->second == "table")
            plain << name;
    }
    out << generatedColumns(source.conn, plain);
    return out;
}

Recognition recognise(const QString &path)
{
    Recognition out;
    UntrustedConnection source;
    UntrustedLimits limits;
    limits.stallLimit = std::chrono::seconds(5);
    limits.deadline = std::chrono::seconds(10); // the schema only, whatever the file's size
    if (openUntrusted(path, source, limits))
        return out;
    rocpd::Connection &conn = source.conn;
    const SchemaObjects &schema = source.schema;
    auto has = [&](const char *name) { return schema.count(name) > 0; };
    // rocprofv3's rocpd (rocpd_metadata_<guid>) is the rocpd reader's, whatever else the file holds.
    for (const auto &[name, type] : schema)
        if (name.rfind("rocpd_metadata_", 0) == 0)
            return out;
    if (has("rocpd_op") && has("rocpd_api") && has("rocpd_string")) {
        QStringList missing;
        for (const auto &[table, columns] : rpdColumns()) {
            const auto it = schema.find(table);
            if (it->second != "table") {
                out.kind = DatabaseKind::Rpd; // the reader refuses it, naming the view
                return out;
            }
            const QStringList have = columnsOf(conn, QLatin1String(table));
            for (const char *c : columns)
                if (!have.contains(QLatin1String(c)))
                    missing << QStringLiteral("%1.%2").arg(QLatin1String(table), QLatin1String(c));
        }
        if (missing.isEmpty())
            out.kind = DatabaseKind::Rpd;
        else
            out.incompleteRpd = missing.join(QStringLiteral(", "));
        return out;
    }
    if (has("StringIds")) {
        for (const char *t : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
                              "NVTX_EVENTS", "TARGET_INFO_GPU"})
            if (has(t)) {
                out.kind = DatabaseKind::Nsys;
                return out;
            }
        // nsys profile without --trace=cuda (or nvtx): the export's own tables, no activity to read.
        for (const char *t : {"TARGET_INFO_SESSION_START_TIME", "EXPORT_META_DATA", "META_DATA_EXPORT", "ThreadNames"})
            if (has(t)) {
                out.kind = DatabaseKind::NsysWithoutCuda;
                return out;
            }
    }
    return out;
}

RowCounts sweepSortedRows(const std::vector<DeviceRow> &rows, const std::vector<std::string> &localNames,
                          KernelSink &sink, EventTimeline &timeline)
{
    constexpr qint64 kMaxPlausibleKernelNs = 86'400'000'000'000; // as the CSV reader: no kernel runs a day
    RowCounts counts;
    KernelReading &w = *sink.workbench.reading;
    qint64 lastDevice = std::numeric_limits<qint64>::min();
    std::string agentLabel;
    for (const DeviceRow &r : rows) {
        long long duration = 0;
        if (__builtin_sub_overflow(r.endNs, r.startNs, &duration) || duration < 0) {
            ++counts.negativeRows;
            if (r.kind == GpuEventKind::Kernel) {
                ++counts.skippedKernels;
                ++w.rowsSkippedNonPositive;
            }
            continue;
        }
        counts.devices.insert(r.device);
        if (r.kind != GpuEventKind::Kernel) {
            ++(r.kind == GpuEventKind::Memcpy ? counts.copyRows : counts.memsetRows);
            timeline.add(localNames[r.nameId], r.pid, r.device, r.stream, r.kind, r.startNs, r.endNs);
            continue;
        }
        timeline.add(sink.names.view(r.nameId), r.pid, r.device, r.stream, r.kind, r.startNs, r.endNs);
        if (duration == 0) {
            ++counts.zeroRows;
            ++counts.skippedKernels;
            ++w.rowsSkippedNonPositive;
            continue;
        }
        if (duration > kMaxPlausibleKernelNs) {
            ++counts.implausibleRows;
            ++counts.skippedKernels;
            ++w.rowsSkippedUnreadable;
            continue;
        }
        if (r.device != lastDevice) {
            lastDevice = r.device;
            agentLabel = "GPU " + std::to_string(r.device);
        }
        sink.workbench.use(r.nameId, duration);
        sink.workbench.span(r.startNs, r.endNs);
        sink.workbench.agents.add(sink.host, agentLabel);
        ++counts.used;
    }
    return counts;
}

void sortRows(std::vector<DeviceRow> &rows)
{
    std::sort(rows.begin(), rows.end(), [](const DeviceRow &a, const DeviceRow &b) {
        return std::tie(a.startNs, b.endNs, a.device, a.stream, a.order) <
               std::tie(b.startNs, a.endNs, b.device, b.stream, b.order);
    });
}

EventTimeline::EventTimeline(const QString &source, const QString &file)
{
    m_file.source = source;
    m_file.file = file;
}

void EventTimeline::add(std::string_view name, qint64 pid, qint64 device, qint64 stream, GpuEventKind kind,
                        qint64 startNs, qint64 endNs)
{
    GpuDeviceTimeline *d = nullptr;
    for (GpuDeviceTimeline &candidate : m_file.devices)
        if (candidate.pid == pid && candidate.device == device) {
            d = &candidate;
            break;
        }
    if (!d) {
        GpuDeviceTimeline fresh;
        fresh.source = m_file.source;
        fresh.file = m_file.file;
        fresh.device = device;
        fresh.pid = pid;
        m_file.devices.push_back(std::move(fresh));
        d = &m_file.devices.back();
    }
    GpuEvent e;
    e.startNs = startNs;
    e.endNs = endNs;
    e.kind = kind;
    auto [it, inserted] = m_names.try_emplace(std::string(name), std::uint32_t(m_file.names.size()));
    if (inserted)
        m_file.names.emplace_back(name);
    e.nameId = it->second;
    const auto s = std::find(d->streams.begin(), d->streams.end(), stream);
    if (s != d->streams.end()) {
        e.stream = std::uint16_t(s - d->streams.begin());
    } else if (d->streams.size() > std::numeric_limits<std::uint16_t>::max()) {
        m_streamOverflow = true;
        e.stream = std::numeric_limits<std::uint16_t>::max();
    } else {
        e.stream = std::uint16_t(d->streams.size());
        d->streams.push_back(stream);
    }
    d->events.push_back(e);
    ++m_events;
}

std::string_view trimmedView(const char *text, int bytes)
{
    std::string_view v(text ? text : "", text ? size_t(bytes) : 0);
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!v.empty() && space(v.front()))
        v.remove_prefix(1);
    while (!v.empty() && space(v.back()))
        v.remove_suffix(1);
    return v;
}

std::string trimmed(const char *text, int bytes)
{
    return std::string(trimmedView(text, bytes));
}

StringLookup::StringLookup(sqlite3 *db, const QString &table, const QString &column)
    : StringLookup(db, QStringLiteral("SELECT \"%2\" FROM \"%1\" WHERE id = ?1").arg(table, column).toUtf8())
{
}

StringLookup::StringLookup(sqlite3 *db, const QByteArray &sql, const QByteArray &text2, Strip strip)
    : m_db(db), m_text2(text2), m_strip(strip)
{
    m_ok = sqlite3_prepare_v2(db, sql.constData(), -1, &m_stmt, nullptr) == SQLITE_OK;
    if (!m_ok)
        m_error = QString::fromUtf8(sqlite3_errmsg(db));
}

StringLookup::~StringLookup()
{
    sqlite3_finalize(m_stmt);
}

const std::optional<std::string> &StringLookup::get(qint64 id)
{
    const auto it = m_cache.find(id);
    if (it != m_cache.end())
        return it->second;
    std::optional<std::string> value;
    if (m_ok) {
        sqlite3_reset(m_stmt);
        sqlite3_bind_int64(m_stmt, 1, id);
        if (!m_text2.isNull())
            sqlite3_bind_text(m_stmt, 2, m_text2.constData(), int(m_text2.size()), SQLITE_STATIC);
        const int rc = sqlite3_step(m_stmt);
        if (rc == SQLITE_ROW && sqlite3_column_type(m_stmt, 0) != SQLITE_NULL) {
            const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, 0));
            const int bytes = sqlite3_column_bytes(m_stmt, 0);
            const std::string_view v =
                m_strip ? m_strip(std::string_view(text ? text : "", text ? size_t(bytes) : 0)) : trimmedView(text, bytes);
            if (v.size() > kernels::kMaxNameBytes) {
                m_cuts.add(v.size());
                value = kernels::cutName(v);
            } else {
                value = std::string(v);
            }
        } else if (rc == SQLITE_TOOBIG) {
            ++m_tooLong; // this string only: the next lookup runs as before
        } else if (rc != SQLITE_ROW && rc != SQLITE_DONE && m_error.isEmpty()) {
            m_error = queryError(m_db, m_guard);
        }
        sqlite3_reset(m_stmt); // let go of the value's memory now, not at the next lookup
    }
    return m_cache.emplace(id, std::move(value)).first->second;
}

QString describeBytes(qint64 bytes)
{
    return QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

} // namespace goblin::dbread
