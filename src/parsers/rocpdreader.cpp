#include "rocpdreader.h"

#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "kernels/timelinebuilder.h"
#include "pynumber.h"
#include "rocpd/rocpdfile.h"

#include <QFileInfo>
#include <QSet>
#include <sqlite3.h>

#include <string>
#include <unordered_map>

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

/// One process (table suffix) that can be read.
struct ProcessTables {
    QString suffix;
    qint64 dispatches = 0; ///< rows of rocpd_kernel_dispatch, before the joins
    std::unordered_map<qint64, Symbol> symbols;
};

/// Why a process of the file cannot be read, or an empty string.
QString unsupportedReason(rocpd::Connection &conn, const rocpd::Layout &layout, const rocpd::Process &p)
{
    if (p.schemaVersion != QLatin1String("3"))
        return QStringLiteral("schema version \"%1\" is not supported (only \"3\", which every rocprofv3 of ROCm "
                              "7.x writes, is read)")
            .arg(p.schemaVersion);
    for (const char *base : kRequiredTables)
        if (!layout.tables.contains(QLatin1String(base) + p.suffix))
            return QStringLiteral("table %1%2 is missing").arg(QLatin1String(base), p.suffix);
    QStringList columns;
    const QByteArray sql =
        QStringLiteral("SELECT name FROM pragma_table_info('%1%2')").arg(QLatin1String("rocpd_kernel_dispatch"), p.suffix).toUtf8();
    if (!conn.texts(sql.constData(), columns))
        return QStringLiteral("its dispatch table cannot be read: %1").arg(conn.error());
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

bool loadSymbols(rocpd::Connection &conn, ProcessTables &p, QString &error)
{
    sqlite3_stmt *stmt = nullptr;
    const QByteArray sql =
        QStringLiteral("SELECT id, display_name FROM %1").arg(rocpd::table("rocpd_info_kernel_symbol", p.suffix)).toUtf8();
    if (sqlite3_prepare_v2(conn.handle(), sql.constData(), -1, &stmt, nullptr) != SQLITE_OK) {
        error = QString::fromUtf8(sqlite3_errmsg(conn.handle()));
        return false;
    }
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 1));
        const int bytes = sqlite3_column_bytes(stmt, 1);
        Symbol s;
        s.name = std::string(pythonStrip(std::string_view(text ? text : "", text ? size_t(bytes) : 0)));
        p.symbols.emplace(sqlite3_column_int64(stmt, 0), std::move(s));
    }
    if (rc != SQLITE_DONE)
        error = QString::fromUtf8(sqlite3_errmsg(conn.handle()));
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE;
}

/// The `kernels` view's joins on one process's tables, integers only (names come from the
/// symbol table, so the sort carries no strings).
QString processQuery(int index, const QString &s)
{
    using rocpd::table;
    return QStringLiteral("SELECT %1, K.kernel_id, K.start, K.\"end\", A.logical_index, K.queue_id, P.pid, K.id "
                          "FROM %2 K "
                          "INNER JOIN %3 A ON A.id = K.agent_id AND A.guid = K.guid "
                          "INNER JOIN %4 E ON E.id = K.event_id AND E.guid = K.guid "
                          "INNER JOIN %5 R ON R.id = K.region_name_id AND R.guid = K.guid "
                          "INNER JOIN %6 S ON S.id = K.kernel_id AND S.guid = K.guid "
                          "LEFT JOIN %7 Q ON Q.id = K.queue_id AND Q.guid = K.guid "
                          "INNER JOIN %8 P ON P.id = Q.pid AND P.guid = Q.guid "
                          "INNER JOIN %9 T ON T.id = K.tid AND T.guid = K.guid")
        .arg(index)
        .arg(table("rocpd_kernel_dispatch", s), table("rocpd_info_agent", s), table("rocpd_event", s),
             table("rocpd_string", s), table("rocpd_info_kernel_symbol", s), table("rocpd_info_queue", s),
             table("rocpd_info_process", s), table("rocpd_info_thread", s));
}

} // namespace

RocpdOutcome readRocpdDatabase(const QString &path, const QString &rel, RocpdSink &sink, KernelTrace &trace,
                               const ProgressCallback &progress)
{
    Diagnostics &diags = trace.diagnostics;
    InputFileInfo info;
    info.relativePath = rel;
    info.format = kFormat;
    info.sizeBytes = QFileInfo(path).size();
    auto refuse = [&](Severity severity, const QString &message, const QString &dialect) {
        diags.push_back({severity, rel, 0, message});
        info.dialect = dialect;
        trace.files.push_back(info);
        return RocpdOutcome::Unusable;
    };

    const rocpd::FileCheck check = rocpd::checkFile(path);
    if (!check.ok)
        return refuse(Severity::Warning, check.problem + QStringLiteral("; no kernels read from it"),
                      QStringLiteral("not a readable SQLite file"));
    rocpd::Connection conn;
    rocpd::Layout layout;
    if (!conn.open(path) || !rocpd::readLayout(conn, layout))
        return refuse(Severity::Error,
                      QStringLiteral("cannot be read as an SQLite database (%1): damaged or half-copied; no kernels "
                                     "read from it")
                          .arg(conn.error()),
                      QStringLiteral("unreadable SQLite file"));
    if (layout.processes.empty())
        return refuse(Severity::Warning, QStringLiteral("is %1; no kernels read from it").arg(layout.foreign),
                      QStringLiteral("foreign SQLite file"));

    // ---- Which processes can be read.
    std::vector<ProcessTables> processes;
    QStringList unsupported;
    bool sysWriter = false;
    for (const rocpd::Process &p : layout.processes) {
        sysWriter = sysWriter || p.guid == QLatin1String("{{guid}}");
        const QString why = unsupportedReason(conn, layout, p);
        if (!why.isEmpty()) {
            unsupported << QStringLiteral("process %1: %2").arg(p.guid.isEmpty() ? p.suffix : p.guid, why);
            continue;
        }
        ProcessTables t;
        t.suffix = p.suffix;
        QString error;
        if (!conn.integer(QStringLiteral("SELECT count(*) FROM %1").arg(rocpd::table("rocpd_kernel_dispatch", p.suffix)),
                          t.dispatches) ||
            !loadSymbols(conn, t, error))
            return refuse(Severity::Error,
                          QStringLiteral("cannot be read (%1): damaged or half-copied; no kernels read from it")
                              .arg(error.isEmpty() ? conn.error() : error),
                          QStringLiteral("unreadable rocpd database"));
        processes.push_back(std::move(t));
    }
    if (processes.empty())
        return refuse(Severity::Error,
                      QStringLiteral("is a rocpd database this reader cannot read: %1").arg(unsupported.join(QStringLiteral("; "))),
                      QStringLiteral("rocpd, unsupported schema"));
    if (!unsupported.isEmpty())
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 process(es) not read: %2").arg(unsupported.size()).arg(unsupported.join(QStringLiteral("; ")))});
    if (!check.sideFiles.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, check.sideFiles});

    info.dialect = QStringLiteral("rocpd schema 3, %1 (%2 process%3%4)")
                       .arg(sysWriter ? QStringLiteral("rocprofiler-systems writer") : QStringLiteral("rocprofv3"))
                       .arg(processes.size())
                       .arg(processes.size() == 1 ? QString() : QStringLiteral("es"))
                       .arg(check.wal ? QStringLiteral(", WAL journal") : QString());
    const QString symbolColumn = QStringLiteral("rocpd_info_kernel_symbol.display_name");
    info.workbenchColumns = {
        {QStringLiteral("kernel_name"), symbolColumn, QStringLiteral("rocpd: the kernels view's name"), QString()},
        {QStringLiteral("start"), QStringLiteral("rocpd_kernel_dispatch.start"), QStringLiteral("rocpd"), QStringLiteral("ns")},
        {QStringLiteral("end"), QStringLiteral("rocpd_kernel_dispatch.end"), QStringLiteral("rocpd"), QStringLiteral("ns")},
        {QStringLiteral("duration"), QString(), QStringLiteral("computed as end - start"), QStringLiteral("ns")},
        {QStringLiteral("agent"), QStringLiteral("rocpd_info_agent.logical_index"),
         QStringLiteral("rocpd: \"Agent <logical_index>\" as rocpd2csv writes Agent_Id"), QString()},
        {QStringLiteral("stream"), QStringLiteral("rocpd_kernel_dispatch.queue_id"), QStringLiteral("rocpd"), QString()}};
    if (sink.reference)
        info.referenceColumns = {
            {QStringLiteral("kernel_name"), QStringLiteral("Kernel_Name"),
             QStringLiteral("as the trace.csv rocpd2csv would write: %1").arg(symbolColumn), QString()},
            {QStringLiteral("start"), QStringLiteral("Start_Timestamp"),
             QStringLiteral("as rocpd2csv would write it (substring tier of 'Start')"), QStringLiteral("ns")},
            {QStringLiteral("end"), QStringLiteral("End_Timestamp"),
             QStringLiteral("as rocpd2csv would write it (substring tier of 'End')"), QStringLiteral("ns")},
            {QStringLiteral("duration"), QString(), QStringLiteral("no duration column: end - start"), QStringLiteral("ns")}};

    // ---- The rows, in rocpd2csv's order.
    QStringList parts;
    qint64 rawDispatches = 0;
    for (size_t i = 0; i < processes.size(); ++i) {
        parts << processQuery(int(i), processes[i].suffix);
        rawDispatches += processes[i].dispatches;
    }
    const QByteArray sql = (parts.join(QStringLiteral(" UNION ALL ")) + QStringLiteral(" ORDER BY 3, 4 DESC, 1, 8")).toUtf8();
    sqlite3_stmt *stmt = nullptr;
    if (sqlite3_prepare_v2(conn.handle(), sql.constData(), -1, &stmt, nullptr) != SQLITE_OK)
        return refuse(Severity::Error,
                      QStringLiteral("its kernel dispatches cannot be queried (%1); no kernels read from it")
                          .arg(QString::fromUtf8(sqlite3_errmsg(conn.handle()))),
                      QStringLiteral("unreadable rocpd database"));

    kernels::TimelineBuilder timeline(QStringLiteral("rocpd"), rel);
    KernelReading &w = *sink.workbench.reading;
    qint64 rows = 0, skipped = 0, zeroRows = 0, negativeRows = 0, nullRows = 0, noNameRows = 0, implausibleRows = 0;
    qint64 lastAgent = LLONG_MIN;
    std::string agentLabel;
    bool cancelled = false;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        ++rows;
        if (progress && rows % kProgressRows == 0 &&
            !progress(rawDispatches > 0 ? info.sizeBytes * std::min(rows, rawDispatches) / rawDispatches : 0)) {
            cancelled = true;
            break;
        }
        ProcessTables &proc = processes[size_t(sqlite3_column_int(stmt, 0))];
        Symbol &symbol = proc.symbols[sqlite3_column_int64(stmt, 1)]; // the INNER JOIN guarantees it exists
        if (symbol.name.empty()) {
            ++noNameRows;
            ++skipped;
            ++w.rowsSkippedNoName;
            if (sink.reference)
                ++sink.reference->reading->rowsSkippedNoName;
            continue;
        }
        if (!symbol.interned) {
            symbol.globalId = sink.names.intern(symbol.name);
            symbol.interned = true;
        }
        if (sqlite3_column_type(stmt, 2) != SQLITE_INTEGER || sqlite3_column_type(stmt, 3) != SQLITE_INTEGER) {
            // rocpd2csv would write an empty or non-integer cell: the reference reads duration 0.
            ++nullRows;
            ++skipped;
            ++w.rowsSkippedUnreadable;
            if (sink.reference)
                ++sink.reference->reading->rowsSkippedNonPositive;
            continue;
        }
        const qint64 startNs = sqlite3_column_int64(stmt, 2);
        const qint64 endNs = sqlite3_column_int64(stmt, 3);
        const qint64 agent = sqlite3_column_type(stmt, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(stmt, 4);
        if (agent != lastAgent) {
            lastAgent = agent;
            agentLabel = agent < 0 ? std::string() : "Agent " + std::to_string(agent);
        }
        long long duration = 0;
        if (__builtin_sub_overflow(endNs, startNs, &duration) || duration <= 0) {
            ++(duration == 0 ? zeroRows : negativeRows);
            ++skipped;
            ++w.rowsSkippedNonPositive;
            if (sink.reference)
                ++sink.reference->reading->rowsSkippedNonPositive;
            if (duration == 0)
                timeline.addKernel(symbol.globalId, symbol.name, sqlite3_column_int64(stmt, 6), agent,
                                   sqlite3_column_int64(stmt, 5), startNs, endNs);
            continue;
        }
        timeline.addKernel(symbol.globalId, symbol.name, sqlite3_column_int64(stmt, 6), agent,
                           sqlite3_column_int64(stmt, 5), startNs, endNs);
        if (sink.reference) {
            sink.reference->use(symbol.globalId, duration);
            sink.reference->span(startNs, endNs);
            sink.reference->agents.add(sink.host, agentLabel);
        }
        if (duration > kMaxPlausibleKernelNs) {
            ++implausibleRows;
            ++skipped;
            ++w.rowsSkippedUnreadable;
            continue;
        }
        sink.workbench.use(symbol.globalId, duration);
        sink.workbench.span(startNs, endNs);
        sink.workbench.agents.add(sink.host, agentLabel);
    }
    if (!cancelled && rc != SQLITE_DONE)
        diags.push_back({Severity::Error, rel, 0,
                         QStringLiteral("read error after %1 dispatch rows: %2 (damaged or half-copied file?); the "
                                        "rest is not read")
                             .arg(rows)
                             .arg(QString::fromUtf8(sqlite3_errmsg(conn.handle())))});
    sqlite3_finalize(stmt);
    if (cancelled)
        return RocpdOutcome::Cancelled;

    // ---- What the rows said.
    if (rawDispatches == 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("holds no kernel dispatches (an empty profile, or rocprofv3 ran without "
                                        "--kernel-trace)")});
    else if (rc == SQLITE_DONE && rows < rawDispatches)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 of %2 kernel dispatches lack their agent, event, symbol, queue, process or "
                                        "thread row (a damaged or hand-made file); the kernels view drops them and so "
                                        "does the workbench")
                             .arg(rawDispatches - rows)
                             .arg(rawDispatches)});
    if (noNameRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 dispatches of kernels without a display name were skipped").arg(noNameRows)});
    if (nullRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 dispatches without integer start/end were skipped").arg(nullRows)});
    if (negativeRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 dispatches with end before start were skipped").arg(negativeRows)});
    if (zeroRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 dispatches with zero duration were skipped").arg(zeroRows)});
    if (implausibleRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 dispatches longer than a day (implausible) were skipped").arg(implausibleRows)});
    if (timeline.streamOverflow())
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("more than 65535 queues on one device: the last ones share one timeline lane")});
    info.rowsRead = rows;
    info.rowsSkipped = skipped;
    trace.files.push_back(info);
    if (timeline.eventCount() > 0)
        trace.timeline.files.push_back(timeline.take());
    if (progress)
        progress(info.sizeBytes);
    return RocpdOutcome::Read;
}

} // namespace goblin
