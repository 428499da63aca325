#include "dbcommon.h"

#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "rocpd/rocpdfile.h"
#include "rocpdreader.h"

#include <QLocale>

#include <algorithm>
#include <cstring>
#include <limits>
#include <tuple>

namespace goblin::dbread
{

std::optional<OpenRefusal> openUntrusted(const QString &path, UntrustedConnection &into)
{
    rocpd::Connection &conn = into.conn;
    const rocpd::FileCheck check = rocpd::checkFile(path);
    into.sideFiles = check.sideFiles;
    if (!check.ok)
        return OpenRefusal{false, check.problem + QStringLiteral("; no kernels read from it"),
                           QStringLiteral("not a readable SQLite file")};
    if (!conn.open(path))
        return OpenRefusal{
            true, QStringLiteral("cannot be opened as an SQLite database (%1); no kernels read from it").arg(conn.error()),
            QStringLiteral("unreadable SQLite file")};
    into.guard.emplace(conn.handle());
    QString error;
    if (!readSchema(conn, into.schema, error))
        return OpenRefusal{true,
                           QStringLiteral("cannot be read as an SQLite database (%1): damaged or half-copied; no "
                                          "kernels read from it")
                               .arg(error),
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

/// The authorizer: reads, the functions the readers call, table_info. Everything else (writes
/// would fail on the read-only connection anyway; ATTACH, other PRAGMAs, recursive CTEs) is refused.
int authorize(void *, int action, const char *a, const char *, const char *, const char *)
{
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
        return SQLITE_OK;
    case SQLITE_PRAGMA:
        return a && (std::strcmp(a, "table_info") == 0 || std::strcmp(a, "table_xinfo") == 0) ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_UPDATE:
        // pragma_table_info() asks for the schema table's columns as an update (it reads them);
        // the connection is read-only and immutable, so nothing can be written either way.
        return a && (std::strcmp(a, "sqlite_master") == 0 || std::strcmp(a, "sqlite_schema") == 0) ? SQLITE_OK
                                                                                                   : SQLITE_DENY;
    default:
        return SQLITE_DENY;
    }
}

} // namespace

Guard::Guard(sqlite3 *db, std::chrono::milliseconds stallLimit) : m_db(db), m_stallLimit(stallLimit)
{
    m_last = std::chrono::steady_clock::now();
    int ignored = 0;
    // A view or trigger in a stranger's file could run anything SQL can (an endless recursive
    // view included); the readers read plain tables, so views are switched off altogether.
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, &ignored);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &ignored);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &ignored);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &ignored);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &ignored);
    // No value longer than 64 MB (a kernel name is a few kB), no statement can attach a file.
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 64 << 20);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_set_authorizer(db, &authorize, nullptr);
    sqlite3_progress_handler(db, 10000, &Guard::onProgress, this);
}

Guard::~Guard()
{
    sqlite3_progress_handler(m_db, 0, nullptr, nullptr);
    sqlite3_set_authorizer(m_db, nullptr, nullptr);
}

int Guard::onProgress(void *self)
{
    auto *g = static_cast<Guard *>(self);
    if (std::chrono::steady_clock::now() - g->m_last > g->m_stallLimit) {
        g->m_stalled = true;
        return 1; // SQLITE_INTERRUPT
    }
    return 0;
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
    return rc == SQLITE_DONE;
}

QStringList columnsOf(rocpd::Connection &conn, const QString &table)
{
    QString quoted = table;
    quoted.replace(QLatin1Char('\''), QLatin1String("''"));
    QStringList out;
    conn.texts(QStringLiteral("SELECT name FROM pragma_table_info('%1')").arg(quoted).toUtf8().constData(), out);
    return out;
}

QStringList notTables(const SchemaObjects &schema, const std::vector<const char *> &required)
{
    QStringList out;
    for (const char *name : required) {
        const auto it = schema.find(name);
        if (it == schema.end())
            out << QStringLiteral("%1 (missing)").arg(QLatin1String(name));
        else if (it->second != "table")
            out << QStringLiteral("%1 (a %2, not a table)")
                       .arg(QLatin1String(name), QString::fromStdString(it->second));
    }
    return out;
}

Recognition recognise(const QString &path)
{
    Recognition out;
    const rocpd::FileCheck check = rocpd::checkFile(path);
    if (!check.ok)
        return out;
    rocpd::Connection conn;
    if (!conn.open(path))
        return out;
    Guard guard(conn.handle(), std::chrono::seconds(5));
    SchemaObjects schema;
    QString error;
    if (!readSchema(conn, schema, error))
        return out;
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

std::string trimmed(const char *text, int bytes)
{
    std::string_view v(text ? text : "", text ? size_t(bytes) : 0);
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!v.empty() && space(v.front()))
        v.remove_prefix(1);
    while (!v.empty() && space(v.back()))
        v.remove_suffix(1);
    return std::string(v);
}

StringLookup::StringLookup(sqlite3 *db, const QString &table, const QString &column) : m_db(db)
{
    const QByteArray sql = QStringLiteral("SELECT \"%2\" FROM \"%1\" WHERE id = ?1").arg(table, column).toUtf8();
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
        const int rc = sqlite3_step(m_stmt);
        if (rc == SQLITE_ROW && sqlite3_column_type(m_stmt, 0) != SQLITE_NULL)
            value = trimmed(reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, 0)),
                            sqlite3_column_bytes(m_stmt, 0));
        else if (rc != SQLITE_ROW && rc != SQLITE_DONE && m_error.isEmpty())
            m_error = QString::fromUtf8(sqlite3_errmsg(m_db));
    }
    return m_cache.emplace(id, std::move(value)).first->second;
}

QString describeBytes(qint64 bytes)
{
    return QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

} // namespace goblin::dbread
