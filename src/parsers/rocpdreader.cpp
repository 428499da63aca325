#include "rocpdreader.h"

#include "kernels/accumulator.h"
#include "kernels/hostlanesbuilder.h"
#include "kernels/namepool.h"
#include "kernels/timelinebuilder.h"
#include "pynumber.h"
#include "rocpd/rocpdfile.h"
#include "rpd/dbcommon.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QSet>
#include <sqlite3.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace goblin
{

namespace
{

const QString kFormat = QStringLiteral("rocpd");
constexpr qint64 kProgressRows = 1 << 16;
constexpr qint64 kMaxPlausibleKernelNs = 86'400'000'000'000; // as the CSV reader: no kernel runs a day

const char *const kRequiredTables[] = {"rocpd_kernel_dispatch", "rocpd_info_agent",  "rocpd_event",
                                       "rocpd_string",          "rocpd_info_kernel_symbol", "rocpd_info_queue",
                                       "rocpd_info_process",    "rocpd_info_thread"};
const char *const kRequiredColumns[] = {"id",       "guid",      "tid",   "agent_id", "kernel_id",
                                        "queue_id", "start",     "end",   "region_name_id", "event_id"};

/// A kernel symbol of one process: its display name, resolved to a run-wide id on first use.
struct Symbol {
    std::string name; ///< stripped as the reference strips a CSV cell
    std::uint32_t globalId = 0;
    bool interned = false;
};

/// One process (table suffix) that can be read, with its small tables in memory: the joins of
/// the `kernels` view are done here rather than in SQL (SQLite's join lookups were most of the
/// time per row; the dispatch and event tables, the big ones, are still joined by SQLite).
struct ProcessTables {
    QString suffix;
    QByteArray guid;       ///< the guid of the process's rows (every join also matches it)
    qint64 dispatches = 0; ///< rows of rocpd_kernel_dispatch, before the joins
    std::unordered_map<qint64, Symbol> symbols;
    std::unordered_map<qint64, qint64> agentLogicalIndex; ///< agent row id -> logical_index (-1 when NULL)
    std::unordered_map<qint64, qint64> queuePid;          ///< queue id -> pid of its process row
    std::unordered_set<qint64> threads;                   ///< thread row ids
    std::unordered_set<qint64> strings;                   ///< string ids
};

/// Why a process of the file cannot be read, or an empty string. Reads the process's schema
/// version and guid first, once its metadata table is known to be a plain table.
QString unsupportedReason(dbread::UntrustedConnection &source, rocpd::Process &p)
{
    rocpd::Connection &conn = source.conn;
    const QString metadata = QStringLiteral("rocpd_metadata") + p.suffix;
    if (const QStringList unsafe = dbread::unsafeTablesOf(source, QStringList{metadata}); !unsafe.isEmpty())
        return unsafe.join(QStringLiteral(", "));
    QStringList version, guid;
    const QString meta = rocpd::table("rocpd_metadata", p.suffix);
    if (!conn.texts(QStringLiteral("SELECT value FROM %1 WHERE tag = 'schema_version' LIMIT 1").arg(meta).toUtf8().constData(),
                    version))
        return QStringLiteral("its metadata cannot be read: %1").arg(source.error());
    conn.texts(QStringLiteral("SELECT value FROM %1 WHERE tag = 'guid' LIMIT 1").arg(meta).toUtf8().constData(), guid);
    p.schemaVersion = version.value(0).left(64);
    p.guid = guid.value(0).left(64);
    if (p.schemaVersion != QLatin1String("3"))
        return QStringLiteral("schema version \"%1\" is not supported (only \"3\", which every rocprofv3 of ROCm "
                              "7.x writes, is read)")
            .arg(p.schemaVersion);
    QStringList tables;
    for (const char *base : kRequiredTables)
        tables << QLatin1String(base) + p.suffix;
    for (const QString &t : tables)
        if (!source.schema.count(t.toStdString()))
            return QStringLiteral("table %1 is missing").arg(t);
    if (const QStringList unsafe = dbread::unsafeTablesOf(source, tables); !unsafe.isEmpty())
        return QStringLiteral("%1: a view, a virtual table or a generated column in place of a table is never queried")
            .arg(unsafe.join(QStringLiteral(", ")));
    const QStringList columns = dbread::columnsOf(conn, QStringLiteral("rocpd_kernel_dispatch") + p.suffix);
    if (columns.isEmpty())
        return QStringLiteral("its dispatch table cannot be read: %1").arg(source.error());
    QStringList missing;
    for (const char *c : kRequiredColumns)
        if (!columns.contains(QLatin1String(c)))
            missing << QLatin1String(c);
    if (!missing.isEmpty())
        return QStringLiteral("rocpd_kernel_dispatch has no column %1 (a layout this reader does not know, e.g. the "
                              "track-based 4.x schema)")
            .arg(missing.join(QStringLiteral(", ")));
    return QString();
}

/// rocpd2csv's order of a row: start, then end descending; then process and dispatch id.
struct RowKey {
    qint64 start = 0;
    qint64 end = 0;
    int process = -1; ///< -1: no row yet
    qint64 id = 0;
    bool operator<(const RowKey &o) const
    {
        if (start != o.start)
            return start < o.start;
        if (end != o.end)
            return end > o.end;
        if (process != o.process)
            return process < o.process;
        return id < o.id;
    }
};

/// The rows are read in storage order (an ORDER BY cost SQLite a third of the read time), yet
/// the first uses must be those of rocpd2csv's order: per name and per agent this keeps the
/// smallest key among the rows one accumulator used, and finish() renumbers the names and
/// agents first used in this file in that order. Sums do not depend on the order.
class FirstUseOrder
{
public:
    explicit FirstUseOrder(kernels::Accumulator *acc)
        : m_acc(acc), m_rowsBefore(acc ? acc->reading->rowsUsed : 0), m_agentsBefore(acc ? acc->agents.agents.size() : 0)
    {
    }

    void used(std::uint32_t nameId, const RowKey &key)
    {
        if (nameId >= m_names.size())
            m_names.resize(size_t(nameId) + 1);
        RowKey &k = m_names[nameId];
        if (k.process < 0 || key < k)
            k = key;
        const int agent = m_acc->agents.last;
        if (agent >= int(m_agentsBefore)) {
            const size_t i = size_t(agent) - m_agentsBefore;
            if (i >= m_agents.size())
                m_agents.resize(i + 1);
            if (m_agents[i].process < 0 || key < m_agents[i])
                m_agents[i] = key;
        }
    }

    void finish()
    {
        if (!m_acc)
            return;
        std::vector<KernelNameStats> &perName = m_acc->reading->perName;
        std::vector<std::uint32_t> ids;
        for (std::uint32_t id = 0; id < m_names.size() && id < perName.size(); ++id)
            if (perName[id].calls > 0 && perName[id].firstRow >= m_rowsBefore && m_names[id].process >= 0)
                ids.push_back(id);
        std::sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) { return m_names[a] < m_names[b]; });
        for (size_t rank = 0; rank < ids.size(); ++rank)
            perName[ids[rank]].firstRow = m_rowsBefore + qint64(rank);
        auto &agents = m_acc->agents.agents;
        std::vector<size_t> order(agents.size() - m_agentsBefore);
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return a < m_agents.size() && (b >= m_agents.size() || m_agents[a] < m_agents[b]);
        });
        std::vector<kernels::AgentSet::Agent> sorted;
        for (size_t i : order)
            sorted.push_back(agents[m_agentsBefore + i]);
        std::move(sorted.begin(), sorted.end(), agents.begin() + qsizetype(m_agentsBefore));
        m_acc->agents.last = -1;
    }

private:
    kernels::Accumulator *m_acc;
    qint64 m_rowsBefore;
    size_t m_agentsBefore;
    std::vector<RowKey> m_names;
    std::vector<RowKey> m_agents;
};

/// Runs `sql` (with the process guid bound to ?1) and hands every row to `row`, under the guard.
template<typename Row>
bool eachRow(dbread::UntrustedConnection &source, const QString &sql, const QByteArray &guid, QString &error, Row row)
{
    return dbread::eachRowBound(source.conn.handle(), *source.guard, sql.toUtf8(), guid, error, [&](sqlite3_stmt *st) {
        row(st);
        return true;
    });
}

/// What loading a process's small tables met besides its rows.
struct LoadNotes {
    qint64 tooLongNames = 0;  ///< display names over the value limit: not read
    kernels::NameCuts cuts;   ///< display names cut at kernels::kMaxNameBytes
};

bool loadProcess(dbread::UntrustedConnection &source, ProcessTables &p, QString &error, LoadNotes &notes)
{
    using rocpd::table;
    rocpd::Connection &conn = source.conn;
    const QString &s = p.suffix;
    if (!conn.integer(QStringLiteral("SELECT count(*) FROM %1").arg(table("rocpd_kernel_dispatch", s)), p.dispatches)) {
        error = source.error();
        return false;
    }
    QStringList guid;
    if (!conn.texts(QStringLiteral("SELECT guid FROM %1 LIMIT 1").arg(table("rocpd_kernel_dispatch", s)).toUtf8().constData(),
                    guid)) {
        error = source.error();
        return false;
    }
    p.guid = guid.value(0).toUtf8();
    auto int64 = [](sqlite3_stmt *st, int c) {
        return sqlite3_column_type(st, c) == SQLITE_NULL ? qint64(-1) : qint64(sqlite3_column_int64(st, c));
    };
    // The symbols' ids first, then each display name on its own (the id is the table's primary
    // key): a name over the value limit loses that symbol only, not the process.
    std::vector<qint64> symbolIds;
    if (!eachRow(source, QStringLiteral("SELECT id FROM %1 WHERE guid = ?1").arg(table("rocpd_info_kernel_symbol", s)),
                 p.guid, error, [&](sqlite3_stmt *st) { symbolIds.push_back(sqlite3_column_int64(st, 0)); }))
        return false;
    dbread::StringLookup names(
        conn.handle(),
        QStringLiteral("SELECT display_name FROM %1 WHERE id = ?1 AND guid = ?2").arg(table("rocpd_info_kernel_symbol", s)).toUtf8(),
        p.guid, &pythonStrip);
    names.describeWith(*source.guard);
    for (const qint64 id : symbolIds) {
        const std::optional<std::string> &name = names.get(id);
        Symbol sym;
        if (name)
            sym.name = *name; // stripped as the reference strips a CSV cell, cut if it is longer than a name can be
        p.symbols.emplace(id, std::move(sym));
    }
    if (!names.error().isEmpty()) {
        error = names.error();
        return false;
    }
    notes.tooLongNames += names.tooLong();
    notes.cuts.add(names.cuts());
    return eachRow(source, QStringLiteral("SELECT id, logical_index FROM %1 WHERE guid = ?1").arg(table("rocpd_info_agent", s)),
                   p.guid, error, [&](sqlite3_stmt *st) { p.agentLogicalIndex.emplace(sqlite3_column_int64(st, 0), int64(st, 1)); }) &&
           eachRow(source,
                   QStringLiteral("SELECT Q.id, P.pid FROM %1 Q INNER JOIN %2 P ON P.id = Q.pid AND P.guid = Q.guid "
                                  "WHERE Q.guid = ?1")
                       .arg(table("rocpd_info_queue", s), table("rocpd_info_process", s)),
                   p.guid, error, [&](sqlite3_stmt *st) { p.queuePid.emplace(sqlite3_column_int64(st, 0), int64(st, 1)); }) &&
           eachRow(source, QStringLiteral("SELECT id FROM %1 WHERE guid = ?1").arg(table("rocpd_info_thread", s)), p.guid,
                   error, [&](sqlite3_stmt *st) { p.threads.insert(sqlite3_column_int64(st, 0)); }) &&
           eachRow(source, QStringLiteral("SELECT id FROM %1 WHERE guid = ?1").arg(table("rocpd_string", s)), p.guid, error,
                   [&](sqlite3_stmt *st) { p.strings.insert(sqlite3_column_int64(st, 0)); });
}

/// One process's dispatches joined to their events (the big join stays in SQL), integers only.
/// ?N binds the process guid. With `stackColumn` (host lanes kept) the event's correlation, its
/// stack_id (or NULL when the table has none), is column 9.
QString processQuery(int index, const QString &s, const QString &stackColumn)
{
    using rocpd::table;
    return QStringLiteral("SELECT %1, K.kernel_id, K.start, K.\"end\", K.agent_id, K.queue_id, K.tid, K.region_name_id, K.id"
                          "%5 FROM %2 K INNER JOIN %3 E ON E.id = K.event_id AND E.guid = K.guid WHERE K.guid = ?%4")
        .arg(index)
        .arg(table("rocpd_kernel_dispatch", s), table("rocpd_event", s))
        .arg(index + 1)
        .arg(stackColumn.isEmpty() ? QString() : QStringLiteral(", ") + stackColumn);
}

/// The column of a process's rocpd_event that joins a dispatch to its HIP call (rocpd2csv's
/// Correlation_Id): "E.stack_id", or "NULL" when the table has none.
QString stackColumn(dbread::UntrustedConnection &source, const QString &suffix)
{
    return dbread::columnsOf(source.conn, QStringLiteral("rocpd_event") + suffix).contains(QStringLiteral("stack_id"))
               ? QStringLiteral("E.stack_id")
               : QStringLiteral("NULL");
}

/// What reading a process's roctx marker ranges met.
struct MarkerNotes {
    qint64 ranges = 0;        ///< marker regions read (ranges and instants)
    QStringList problems;     ///< why a process's markers were not read (a diagnostic each)
};

/// A process's string ids whose text is like `pattern` (`MARKER_%`: the marker categories, the
/// filter rocpd2csv's marker_api file uses; `HIP_%`: the HIP API categories of its hip_api file).
bool categoriesLike(dbread::UntrustedConnection &source, const ProcessTables &p, const char *pattern, QStringList &ids,
                    QString &error)
{
    return eachRow(source,
                   QStringLiteral("SELECT id FROM %1 WHERE guid = ?1 AND string LIKE '%2'")
                       .arg(rocpd::table("rocpd_string", p.suffix), QLatin1String(pattern)),
                   p.guid, error, [&](sqlite3_stmt *st) { ids << QString::number(sqlite3_column_int64(st, 0)); });
}

/// What reading a process's HIP API regions met (host lanes only).
struct RuntimeNotes {
    qint64 calls = 0, bad = 0;
};

/// The HIP API calls of one process for the host lanes: `rocpd_region` rows of a HIP_* category,
/// named by the region's name, with their event's stack_id as the correlation (the kernels' too).
/// The caller checked the region table.
void readRuntimeRegions(dbread::UntrustedConnection &source, const ProcessTables &p, const QStringList &categories,
                        dbread::StringLookup &names, kernels::HostLanesBuilder &lanes, MarkerNotes &notes)
{
    using rocpd::table;
    const QString processName = p.guid.isEmpty() ? p.suffix : QString::fromUtf8(p.guid);
    const QString stack = stackColumn(source, p.suffix);
    if (stack == QLatin1String("NULL"))
        notes.problems << QStringLiteral("process %1: rocpd_event has no stack_id: the Timeline cannot join its "
                                         "kernels to the HIP calls that launched them")
                              .arg(processName);
    const QString sql = QStringLiteral("SELECT R.pid, R.tid, R.start, R.\"end\", R.name_id, %4 FROM %1 R INNER JOIN "
                                       "%2 E ON E.id = R.event_id AND E.guid = R.guid WHERE R.guid = ?1 AND "
                                       "E.category_id IN (%3)")
                            .arg(table("rocpd_region", p.suffix), table("rocpd_event", p.suffix),
                                 categories.join(QLatin1Char(',')), stack);
    RuntimeNotes read;
    QString error;
    const bool ok = eachRow(source, sql, p.guid, error, [&](sqlite3_stmt *st) {
        if (sqlite3_column_type(st, 2) != SQLITE_INTEGER || sqlite3_column_type(st, 3) != SQLITE_INTEGER ||
            sqlite3_column_int64(st, 3) < sqlite3_column_int64(st, 2)) {
            ++read.bad;
            return;
        }
        const std::optional<std::string> &name = names.get(sqlite3_column_int64(st, 4));
        const std::string_view shown = name ? std::string_view(*name) : std::string_view("HIP call");
        const std::uint16_t thread = lanes.threadOf(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
        if (sqlite3_column_type(st, 5) == SQLITE_INTEGER)
            lanes.addRuntime(shown, thread, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                             sqlite3_column_int64(st, 5));
        else
            lanes.add(HostSliceKind::Runtime, shown, thread, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3));
        ++read.calls;
    });
    if (!ok)
        notes.problems << QStringLiteral("process %1: read error in its HIP API regions after %2 rows (%3); the rest "
                                         "is not on the Timeline")
                              .arg(processName)
                              .arg(read.calls)
                              .arg(error);
    if (read.bad > 0)
        notes.problems << QStringLiteral("process %1: %2 HIP API regions without integer start/end (or ending before "
                                         "they start) were left out of the Timeline")
                              .arg(processName)
                              .arg(read.bad);
}

/// The message of a region's extdata (`{"message": "step 3"}`), as rocpd2csv names a marker; empty
/// when it has none or is no JSON object.
QString markerMessage(sqlite3_stmt *st, int column)
{
    if (sqlite3_column_type(st, column) == SQLITE_NULL)
        return QString();
    const QByteArray bytes(reinterpret_cast<const char *>(sqlite3_column_blob(st, column)), sqlite3_column_bytes(st, column));
    const QJsonValue message = QJsonDocument::fromJson(bytes).object().value(QLatin1String("message"));
    return message.isString() ? message.toString().trimmed() : QString();
}

/// The roctx ranges of one process: `rocpd_region` rows whose event's category is MARKER_*, named by
/// their extdata's message, else by the region's name (as rocpd2csv's marker_api file). Process and
/// thread are the region's row ids (which only group the ranges per thread). A process without a
/// region table, or without marker categories, has none.
void readMarkerRanges(dbread::UntrustedConnection &source, const ProcessTables &p, HostActivity &host,
                      MarkerNotes &notes, kernels::HostLanesBuilder *lanes)
{
    using rocpd::table;
    const QString region = QStringLiteral("rocpd_region") + p.suffix;
    if (!source.schema.count(region.toStdString()))
        return;
    const QString processName = p.guid.isEmpty() ? p.suffix : QString::fromUtf8(p.guid);
    if (const QStringList unsafe = dbread::unsafeTablesOf(source, QStringList{region}); !unsafe.isEmpty()) {
        notes.problems << QStringLiteral("process %1: %2 is not read (a view, a virtual table or a generated column "
                                         "in place of a table is never queried)")
                              .arg(processName, unsafe.join(QStringLiteral(", ")));
        return;
    }
    QString error;
    QStringList categories, runtimeCategories;
    if (lanes && !categoriesLike(source, p, "HIP_%", runtimeCategories, error))
        notes.problems << QStringLiteral("process %1: its HIP API categories cannot be read (%2)").arg(processName, error);
    if (!categoriesLike(source, p, "MARKER_%", categories, error) ||
        (categories.isEmpty() && runtimeCategories.isEmpty())) {
        if (!error.isEmpty())
            notes.problems << QStringLiteral("process %1: its marker categories cannot be read (%2)").arg(processName, error);
        return;
    }
    const QStringList columns = dbread::columnsOf(source.conn, region);
    for (const char *c : {"pid", "tid", "start", "end", "name_id", "event_id", "extdata"})
        if (!columns.contains(QLatin1String(c))) {
            notes.problems << QStringLiteral("process %1: %2 has no column %3").arg(processName, region, QLatin1String(c));
            return;
        }
    dbread::StringLookup names(
        source.conn.handle(),
        QStringLiteral("SELECT string FROM %1 WHERE id = ?1 AND guid = ?2").arg(table("rocpd_string", p.suffix)).toUtf8(),
        p.guid);
    names.describeWith(*source.guard);
    if (lanes && !runtimeCategories.isEmpty())
        readRuntimeRegions(source, p, runtimeCategories, names, *lanes, notes);
    if (categories.isEmpty())
        return;
    const QString sql = QStringLiteral("SELECT R.pid, R.tid, R.start, R.\"end\", R.name_id, R.extdata FROM %1 R INNER "
                                       "JOIN %2 E ON E.id = R.event_id AND E.guid = R.guid WHERE R.guid = ?1 AND "
                                       "E.category_id IN (%3)")
                            .arg(table("rocpd_region", p.suffix), table("rocpd_event", p.suffix),
                                 categories.join(QLatin1Char(',')));
    qint64 bad = 0;
    const bool ok = eachRow(source, sql, p.guid, error, [&](sqlite3_stmt *st) {
        if (sqlite3_column_type(st, 2) != SQLITE_INTEGER || sqlite3_column_type(st, 3) != SQLITE_INTEGER ||
            sqlite3_column_int64(st, 3) < sqlite3_column_int64(st, 2)) {
            ++bad;
            return;
        }
        MarkerRange m;
        m.name = markerMessage(st, 5);
        if (m.name.isEmpty())
            if (const std::optional<std::string> &name = names.get(sqlite3_column_int64(st, 4)))
                m.name = QString::fromStdString(*name);
        m.process = sqlite3_column_int64(st, 0);
        m.thread = sqlite3_column_int64(st, 1);
        m.startNs = sqlite3_column_int64(st, 2);
        m.endNs = sqlite3_column_int64(st, 3);
        if (lanes && m.endNs > m.startNs) {
            const QByteArray name = m.name.toUtf8();
            const std::string_view view(name.constData(), std::size_t(name.size()));
            lanes->add(kernels::markerKind(view), view, lanes->threadOf(m.process, m.thread), m.startNs, m.endNs);
        }
        host.ranges.push_back(std::move(m));
        ++notes.ranges;
    });
    if (!ok)
        notes.problems << QStringLiteral("process %1: read error in its marker regions after %2 rows (%3); the rest "
                                         "is not read")
                              .arg(processName)
                              .arg(notes.ranges)
                              .arg(error);
    if (bad > 0)
        notes.problems << QStringLiteral("process %1: %2 marker regions without integer start/end (or ending before "
                                         "they start) were skipped")
                              .arg(processName)
                              .arg(bad);
}

} // namespace

DatabaseRow::DatabaseRow(const QString &path, const QString &rel, const QString &format, KernelTrace &trace)
    : m_trace(trace)
{
    info.relativePath = rel;
    info.format = format;
    info.sizeBytes = QFileInfo(path).size();
}

ReadOutcome DatabaseRow::refuse(Severity severity, const QString &message, const QString &dialect)
{
    m_trace.diagnostics.push_back({severity, info.relativePath, 0, message});
    info.dialect = dialect;
    m_trace.files.push_back(info);
    return ReadOutcome::Unusable;
}

namespace
{

/// The processes of a file that can be read (their small tables loaded), and what was said of the
/// others.
struct OpenedProcesses {
    std::vector<ProcessTables> processes;
    QStringList unsupported;   ///< "process <guid>: why"
    QStringList oddSuffixes;   ///< metadata tables no rocpd writer makes: never queried
    bool sysWriter = false;    ///< rocprofiler-systems wrote it (its guid placeholder)
    LoadNotes notes;
};

/// Layout + which processes can be read. A refusal's words, or nullopt.
std::optional<dbread::OpenRefusal> openProcesses(dbread::UntrustedConnection &source, OpenedProcesses &out)
{
    rocpd::Layout layout;
    if (!rocpd::readLayout(source.conn, layout))
        return dbread::OpenRefusal{true,
                                   QStringLiteral("cannot be read as an SQLite database (%1): damaged or half-copied; "
                                                  "no kernels read from it")
                                       .arg(source.error()),
                                   QStringLiteral("unreadable SQLite file")};
    if (layout.processes.empty())
        return dbread::OpenRefusal{false, QStringLiteral("is %1; no kernels read from it").arg(layout.foreign),
                                   QStringLiteral("foreign SQLite file")};
    for (rocpd::Process p : layout.processes) {
        const QString why = unsupportedReason(source, p);
        out.sysWriter = out.sysWriter || p.guid == QLatin1String("{{guid}}");
        if (!why.isEmpty()) {
            out.unsupported << QStringLiteral("process %1: %2").arg(p.guid.isEmpty() ? p.suffix : p.guid, why);
            continue;
        }
        ProcessTables t;
        t.suffix = p.suffix;
        QString error;
        if (!loadProcess(source, t, error, out.notes))
            return dbread::OpenRefusal{true,
                                       QStringLiteral("cannot be read (%1): damaged or half-copied; no kernels read "
                                                      "from it")
                                           .arg(error.isEmpty() ? source.error() : error),
                                       QStringLiteral("unreadable rocpd database")};
        out.processes.push_back(std::move(t));
    }
    if (out.processes.empty())
        return dbread::OpenRefusal{true,
                                   QStringLiteral("is a rocpd database this reader cannot read: %1")
                                       .arg(out.unsupported.join(QStringLiteral("; "))),
                                   QStringLiteral("rocpd, unsupported schema")};
    out.oddSuffixes = layout.oddSuffixes;
    return std::nullopt;
}

/// The processes not read, the tables never queried, the file check's word.
void openDiagnostics(const QString &rel, const OpenedProcesses &opened, const QString &sideFiles, Diagnostics &diags)
{
    if (!opened.unsupported.isEmpty())
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 process(es) not read: %2")
                             .arg(opened.unsupported.size())
                             .arg(opened.unsupported.join(QStringLiteral("; ")))});
    if (!opened.oddSuffixes.isEmpty())
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 more process table(s) have suffixes no rocpd writer makes; never queried, "
                                        "not read")
                             .arg(opened.oddSuffixes.size())});
    if (!sideFiles.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, sideFiles});
}

/// The file's row in the inputs: its dialect and the columns each reading takes.
void describeFile(InputFileInfo &info, const OpenedProcesses &opened, bool wal, bool reference)
{
    const std::size_t n = opened.processes.size();
    info.dialect = QStringLiteral("rocpd schema 3, %1 (%2 process%3%4)")
                       .arg(opened.sysWriter ? QStringLiteral("rocprofiler-systems writer") : QStringLiteral("rocprofv3"))
                       .arg(n)
                       .arg(n == 1 ? QString() : QStringLiteral("es"))
                       .arg(wal ? QStringLiteral(", WAL journal") : QString());
    const QString symbolColumn = QStringLiteral("rocpd_info_kernel_symbol.display_name");
    info.workbenchColumns = {
        {QStringLiteral("kernel_name"), symbolColumn, QStringLiteral("rocpd: the kernels view's name"), QString()},
        {QStringLiteral("start"), QStringLiteral("rocpd_kernel_dispatch.start"), QStringLiteral("rocpd"), QStringLiteral("ns")},
        {QStringLiteral("end"), QStringLiteral("rocpd_kernel_dispatch.end"), QStringLiteral("rocpd"), QStringLiteral("ns")},
        {QStringLiteral("duration"), QString(), QStringLiteral("computed as end - start"), QStringLiteral("ns")},
        {QStringLiteral("agent"), QStringLiteral("rocpd_info_agent.logical_index"),
         QStringLiteral("rocpd: \"Agent <logical_index>\" as rocpd2csv writes Agent_Id"), QString()},
        {QStringLiteral("stream"), QStringLiteral("rocpd_kernel_dispatch.queue_id"), QStringLiteral("rocpd"), QString()}};
    if (reference)
        info.referenceColumns = {
            {QStringLiteral("kernel_name"), QStringLiteral("Kernel_Name"),
             QStringLiteral("as the trace.csv rocpd2csv would write: %1").arg(symbolColumn), QString()},
            {QStringLiteral("start"), QStringLiteral("Start_Timestamp"),
             QStringLiteral("as rocpd2csv would write it (substring tier of 'Start')"), QStringLiteral("ns")},
            {QStringLiteral("end"), QStringLiteral("End_Timestamp"),
             QStringLiteral("as rocpd2csv would write it (substring tier of 'End')"), QStringLiteral("ns")},
            {QStringLiteral("duration"), QString(), QStringLiteral("no duration column: end - start"), QStringLiteral("ns")}};
}

/// What the dispatch rows gave and left out.
struct DispatchCounts {
    qint64 rawDispatches = 0;  ///< rows of the dispatch tables, before the joins
    qint64 sqlRows = 0;        ///< rows the query returned
    qint64 rows = 0;           ///< … with every join's row present (the kernels view's rows)
    qint64 skipped = 0, zeroRows = 0, negativeRows = 0, nullRows = 0, noNameRows = 0, implausibleRows = 0;
    QString error;             ///< why the query failed, read before the statement is finalized
};

/// Each dispatch row into both readings and the timeline, as rocpd2csv's trace.csv would go: the
/// view's joins, then the reference's and the workbench's rules for names, durations and agents.
class DispatchSweep
{
public:
    DispatchSweep(std::vector<ProcessTables> &processes, KernelSink &sink, kernels::TimelineBuilder &timeline,
                  DispatchCounts &counts, kernels::HostLanesBuilder *lanes)
        : m_processes(processes), m_sink(sink), m_timeline(timeline), m_counts(counts), m_lanes(lanes),
          m_referenceOrder(sink.reference), m_workbenchOrder(&sink.workbench)
    {
    }

    void row(sqlite3_stmt *stmt)
    {
        const int procIndex = sqlite3_column_int(stmt, 0);
        ProcessTables &proc = m_processes[size_t(procIndex)];
        // The view's other joins: a dispatch without its symbol, agent, queue (and the queue's
        // process), thread or region string row is dropped (and counted below).
        const auto symbolIt = proc.symbols.find(sqlite3_column_int64(stmt, 1));
        const auto agentIt = proc.agentLogicalIndex.find(sqlite3_column_int64(stmt, 4));
        const auto queueIt = proc.queuePid.find(sqlite3_column_int64(stmt, 5));
        if (symbolIt == proc.symbols.end() || agentIt == proc.agentLogicalIndex.end() ||
            queueIt == proc.queuePid.end() || !proc.threads.count(sqlite3_column_int64(stmt, 6)) ||
            !proc.strings.count(sqlite3_column_int64(stmt, 7)))
            return;
        ++m_counts.rows;
        Symbol &symbol = symbolIt->second;
        if (!named(symbol) || !timed(stmt))
            return;
        const qint64 startNs = sqlite3_column_int64(stmt, 2);
        const qint64 endNs = sqlite3_column_int64(stmt, 3);
        const qint64 pid = queueIt->second;
        const qint64 agent = agentIt->second;
        if (agent != m_lastAgent) {
            m_lastAgent = agent;
            m_agentLabel = agent < 0 ? std::string() : "Agent " + std::to_string(agent);
        }
        if (m_lanes && sqlite3_column_type(stmt, 9) == SQLITE_INTEGER)  // the kernel's side of its flow
            m_lanes->addGpu(startNs, sqlite3_column_int64(stmt, 9), qint32(agent), qint32(queueIt->first));
        long long duration = 0;
        if (__builtin_sub_overflow(endNs, startNs, &duration) || duration <= 0) {
            ++(duration == 0 ? m_counts.zeroRows : m_counts.negativeRows);
            skipNonPositive();
            if (duration == 0)
                m_timeline.addKernel(symbol.globalId, symbol.name, pid, agent, queueIt->first, startNs, endNs);
            return;
        }
        m_timeline.addKernel(symbol.globalId, symbol.name, pid, agent, queueIt->first, startNs, endNs);
        use(symbol.globalId, startNs, endNs, duration, RowKey{startNs, endNs, procIndex, sqlite3_column_int64(stmt, 8)});
    }

    /// First uses in rocpd2csv's order (FirstUseOrder).
    void finish()
    {
        m_referenceOrder.finish();
        m_workbenchOrder.finish();
    }

private:
    /// A symbol without a display name skips its row (both readings count it); else its run-wide id.
    bool named(Symbol &symbol)
    {
        if (symbol.name.empty()) {
            ++m_counts.noNameRows;
            ++m_counts.skipped;
            ++m_sink.workbench.reading->rowsSkippedNoName;
            if (m_sink.reference)
                ++m_sink.reference->reading->rowsSkippedNoName;
            return false;
        }
        if (!symbol.interned) {
            symbol.globalId = m_sink.names.intern(symbol.name);
            symbol.interned = true;
        }
        return true;
    }

    /// Integer start and end, else skipped: rocpd2csv would write an empty or non-integer cell, the
    /// reference reads duration 0.
    bool timed(sqlite3_stmt *stmt)
    {
        if (sqlite3_column_type(stmt, 2) == SQLITE_INTEGER && sqlite3_column_type(stmt, 3) == SQLITE_INTEGER)
            return true;
        ++m_counts.nullRows;
        ++m_counts.skipped;
        ++m_sink.workbench.reading->rowsSkippedUnreadable;
        if (m_sink.reference)
            ++m_sink.reference->reading->rowsSkippedNonPositive;
        return false;
    }

    void skipNonPositive()
    {
        ++m_counts.skipped;
        ++m_sink.workbench.reading->rowsSkippedNonPositive;
        if (m_sink.reference)
            ++m_sink.reference->reading->rowsSkippedNonPositive;
    }

    /// A kernel with a positive duration: the reference sums it; the workbench too unless it ran a day.
    void use(std::uint32_t nameId, qint64 startNs, qint64 endNs, long long duration, const RowKey &key)
    {
        if (m_sink.reference) {
            m_sink.reference->use(nameId, duration);
            m_sink.reference->span(startNs, endNs);
            m_sink.reference->agents.add(m_sink.host, m_agentLabel);
            m_referenceOrder.used(nameId, key);
        }
        if (duration > kMaxPlausibleKernelNs) {
            ++m_counts.implausibleRows;
            ++m_counts.skipped;
            ++m_sink.workbench.reading->rowsSkippedUnreadable;
            return;
        }
        m_sink.workbench.use(nameId, duration);
        m_sink.workbench.span(startNs, endNs);
        m_sink.workbench.agents.add(m_sink.host, m_agentLabel);
        m_workbenchOrder.used(nameId, key);
    }

    std::vector<ProcessTables> &m_processes;
    KernelSink &m_sink;
    kernels::TimelineBuilder &m_timeline;
    DispatchCounts &m_counts;
    kernels::HostLanesBuilder *m_lanes;  ///< null: no host lanes kept
    FirstUseOrder m_referenceOrder;
    FirstUseOrder m_workbenchOrder;
    qint64 m_lastAgent = LLONG_MIN;
    std::string m_agentLabel;
};

/// How the dispatch query ended.
enum class DispatchEnd { Done, ReadError, Cancelled, NotQueried };

/// The dispatches of every process, joined to their events in SQL (one UNION ALL, storage order),
/// through `sweep`. Progress: the file's bytes by the share of dispatch rows seen.
DispatchEnd readDispatches(dbread::UntrustedConnection &source, const std::vector<ProcessTables> &processes,
                           DispatchSweep &sweep, kernels::TimelineBuilder &timeline, DispatchCounts &counts,
                           const ProgressCallback &progress, qint64 fileBytes, bool lanes)
{
    QStringList parts;
    for (size_t i = 0; i < processes.size(); ++i) {
        parts << processQuery(int(i), processes[i].suffix, lanes ? stackColumn(source, processes[i].suffix) : QString());
        counts.rawDispatches += processes[i].dispatches;
    }
    const QByteArray sql = parts.join(QStringLiteral(" UNION ALL ")).toUtf8();
    sqlite3_stmt *stmt = nullptr;
    if (sqlite3_prepare_v2(source.conn.handle(), sql.constData(), -1, &stmt, nullptr) != SQLITE_OK) {
        counts.error = source.error();
        return DispatchEnd::NotQueried;
    }
    for (size_t i = 0; i < processes.size(); ++i)
        sqlite3_bind_text(stmt, int(i) + 1, processes[i].guid.constData(), int(processes[i].guid.size()), SQLITE_STATIC);
    const qint64 raw = counts.rawDispatches;
    bool cancelled = progress && !progress(0);
    int rc = SQLITE_DONE;
    while (!cancelled && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        ++counts.sqlRows;
        if (counts.sqlRows == kProgressRows)
            timeline.expectRows(raw);
        if (progress && counts.sqlRows % kProgressRows == 0 &&
            !progress(raw > 0 ? fileBytes * std::min(counts.sqlRows, raw) / raw : 0)) {
            cancelled = true;
            break;
        }
        sweep.row(stmt);
    }
    if (!cancelled && rc != SQLITE_DONE)
        counts.error = source.error();
    sqlite3_finalize(stmt);
    return cancelled ? DispatchEnd::Cancelled : rc == SQLITE_DONE ? DispatchEnd::Done : DispatchEnd::ReadError;
}

/// The dispatches dropped or skipped, the lanes shared, the names not read or cut.
void dispatchDiagnostics(const QString &rel, const DispatchCounts &counts, DispatchEnd end, bool streamOverflow,
                         const LoadNotes &notes, qint64 maxValueBytes, Diagnostics &diags)
{
    if (counts.rawDispatches == 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("holds no kernel dispatches (an empty profile, or rocprofv3 ran without "
                                        "--kernel-trace)")});
    else if (end == DispatchEnd::Done && counts.rows < counts.rawDispatches)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 of %2 kernel dispatches lack their agent, event, symbol, queue, process or "
                                        "thread row (a damaged or hand-made file); the kernels view drops them and so "
                                        "does the workbench")
                             .arg(counts.rawDispatches - counts.rows)
                             .arg(counts.rawDispatches)});
    const std::pair<qint64, const char *> skips[] = {
        {counts.noNameRows, "%1 dispatches of kernels without a display name were skipped"},
        {counts.nullRows, "%1 dispatches without integer start/end were skipped"},
        {counts.negativeRows, "%1 dispatches with end before start were skipped"},
        {counts.zeroRows, "%1 dispatches with zero duration were skipped"},
        {counts.implausibleRows, "%1 dispatches longer than a day (implausible) were skipped"}};
    for (const auto &[n, text] : skips)
        if (n > 0)
            diags.push_back({Severity::Warning, rel, 0, QString::fromLatin1(text).arg(n)});
    if (streamOverflow)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("more than 65535 queues on one device: the last ones share one timeline lane")});
    if (notes.tooLongNames > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 kernel display name(s) are longer than %2, the most one string may hold "
                                        "here: not read, their dispatches were skipped as unnamed")
                             .arg(notes.tooLongNames)
                             .arg(dbread::describeBytes(maxValueBytes))});
    if (const QString cut = notes.cuts.message(); !cut.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, cut});
}

/// What the marker phase found: its problems, and the ranges read.
void markerDiagnostics(const QString &rel, const MarkerNotes &markers, HostActivity &host, Diagnostics &diags)
{
    for (const QString &problem : markers.problems)
        diags.push_back({Severity::Warning, rel, 0, problem});
    if (markers.ranges > 0) {
        host.files << rel;
        diags.push_back({Severity::Info, rel, 0,
                         QStringLiteral("%1 roctx marker range(s)/mark(s) read (rocpd_region rows of a MARKER_* "
                                        "category)")
                             .arg(markers.ranges)});
    }
}

} // namespace

ReadOutcome readRocpdDatabase(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
                               const ProgressCallback &progress)
{
    // Open + schema check: which processes can be read, their small tables in memory.
    Diagnostics &diags = trace.diagnostics;
    DatabaseRow row(path, rel, kFormat, trace);
    dbread::UntrustedConnection source;
    if (const std::optional<dbread::OpenRefusal> no = dbread::openUntrusted(path, source))
        return row.refuse(no->error ? Severity::Error : Severity::Warning, no->message, no->dialect);
    const size_t cutMark = sink.names.cutMark();
    OpenedProcesses opened;
    if (const std::optional<dbread::OpenRefusal> no = openProcesses(source, opened))
        return row.refuse(no->error ? Severity::Error : Severity::Warning, no->message, no->dialect);
    openDiagnostics(rel, opened, source.sideFiles, diags);
    describeFile(row.info, opened, source.wal, sink.reference != nullptr);

    // Kernel dispatches, in rocpd2csv's order of first uses, into both readings and the timeline.
    kernels::TimelineBuilder timeline(QStringLiteral("rocpd"), rel);
    DispatchCounts counts;
    // The window's reading keeps the host side as the Timeline's lanes too.
    std::optional<kernels::HostLanesBuilder> lanes;
    if (sink.keepHostLanes)
        lanes.emplace();
    DispatchSweep sweep(opened.processes, sink, timeline, counts, lanes ? &*lanes : nullptr);
    const DispatchEnd end = readDispatches(source, opened.processes, sweep, timeline, counts, progress,
                                           row.info.sizeBytes, lanes.has_value());
    if (end == DispatchEnd::NotQueried)
        return row.refuse(Severity::Error,
                          QStringLiteral("its kernel dispatches cannot be queried (%1); no kernels read from it")
                              .arg(counts.error),
                          QStringLiteral("unreadable rocpd database"));
    if (end == DispatchEnd::ReadError)
        diags.push_back({Severity::Error, rel, 0,
                         QStringLiteral("read error after %1 dispatch rows: %2 (damaged or half-copied file?); the "
                                        "rest is not read")
                             .arg(counts.rows)
                             .arg(counts.error)});
    if (end == DispatchEnd::Cancelled)
        return ReadOutcome::Cancelled;
    sweep.finish();

    // Marker ranges (roctx): a run's steps when they are named like steps.
    MarkerNotes markers;
    for (const ProcessTables &p : opened.processes)
        readMarkerRanges(source, p, trace.host, markers, lanes ? &*lanes : nullptr);

    // Finish: what the rows said, the file's row, its timeline.
    opened.notes.cuts.add(sink.names.cutsSince(cutMark));
    dispatchDiagnostics(rel, counts, end, timeline.streamOverflow(), opened.notes,
                        source.guard->limits().maxValueBytes, diags);
    markerDiagnostics(rel, markers, trace.host, diags);
    row.info.rowsRead = counts.rows;
    row.info.rowsSkipped = counts.skipped;
    trace.files.push_back(row.info);
    if (timeline.eventCount() > 0) {
        trace.timeline.files.push_back(timeline.take());
        if (lanes && lanes->rangeCount() > 0) {
            auto built = std::make_shared<HostLanes>(lanes->build());
            kernels::hostLanesSummary(*built, lanes->threadOverflow(), rel, QStringLiteral("rocpd_region"), diags);
            trace.timeline.files.back().hostLanes = std::move(built);
        }
    }
    if (progress)
        progress(row.info.sizeBytes);
    return ReadOutcome::Read;
}

} // namespace goblin
