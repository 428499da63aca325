#include "rpdreader.h"

#include "dbcommon.h"
#include "kernels/accumulator.h"
#include "kernels/hostlanesbuilder.h"
#include "kernels/namepool.h"
#include "rocpd/rocpdfile.h"

#include <QFileInfo>

#include <climits>

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace goblin
{

namespace
{

using dbread::DeviceRow;

const QString kFormat = QStringLiteral("rpd");

enum class OpClass { Kernel, Memcpy, Memset, Other };

/// The op types rpd_tracer writes (roctracer_op_string, and the CUPTI source's own names).
OpClass classifyOp(const std::string &type)
{
    if (type == "KernelExecution" || type == "Task" || type == "Kernel" || type == "ConcurrentKernel")
        return OpClass::Kernel;
    if (type.rfind("Copy", 0) == 0 || type == "Memcpy")
        return OpClass::Memcpy;
    if (type == "FillBuffer" || type == "Memset")
        return OpClass::Memset;
    return OpClass::Other;
}

enum class ApiClass { Runtime, Marker, Overhead };

/// rpd_tracer's createOverheadRecord() names: its own table writers and callbacks, not the
/// application's runtime calls.
ApiClass classifyApi(const std::string &name)
{
    if (name == "UserMarker")
        return ApiClass::Marker;
    static const std::unordered_set<std::string> overhead{"hcc_activity_callback", "rpdflush", "BLOCKING",
                                                          "overhead (hip)",        "prepare",  "commit"};
    if (overhead.count(name) || name.find("::") != std::string::npos)
        return ApiClass::Overhead;
    return ApiClass::Runtime;
}

bool isInteger(sqlite3_stmt *st, int column)
{
    return sqlite3_column_type(st, column) == SQLITE_INTEGER;
}

/// The open database and what its schema says: the phases' shared input.
struct RpdFile {
    const QString &rel;
    dbread::UntrustedConnection &source;
    QString version;             ///< rocpd_metadata's schema_version ("" when it has none)
    QString argsTable;           ///< where a marker's text is: rocpd_ustring (schema 3) or rocpd_string
    bool monitorTable = false;   ///< rocpd_monitor is a plain table
    qint64 opCount = 0, apiCount = 0;
    sqlite3 *db() const { return source.conn.handle(); }
    dbread::Guard &guard() const { return *source.guard; }
};

/// Open + schema check: the tables rpd_tracer writes, plain tables only; the schema version and
/// the row counts. A refusal's words, or nullopt when the file can be read.
std::optional<dbread::OpenRefusal> checkSchema(RpdFile &file)
{
    dbread::UntrustedConnection &source = file.source;
    const QStringList unsafe = dbread::unsafeTables(source, {"rocpd_op", "rocpd_api", "rocpd_string"},
                                                    {"rocpd_metadata", "rocpd_ustring", "rocpd_monitor"});
    if (!unsafe.isEmpty())
        return dbread::OpenRefusal{false,
                                   QStringLiteral("has rocmProfileData's table names but %1; not read (a view, a "
                                                  "virtual table or a generated column in place of a table is never "
                                                  "queried)")
                                       .arg(unsafe.join(QStringLiteral(", "))),
                                   QStringLiteral("rocmProfileData look-alike")};
    auto isTable = [&](const char *name) {
        const auto it = source.schema.find(name);
        return it != source.schema.end() && it->second == "table";
    };
    if (isTable("rocpd_metadata")) {
        QStringList v;
        source.conn.texts("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version' LIMIT 1", v);
        file.version = v.value(0).trimmed().left(64);
    }
    // Schema 3 moved the api rows' args (a marker's text) to rocpd_ustring.
    const bool ustring = isTable("rocpd_ustring") && file.version.toInt() >= 3;
    file.argsTable = ustring ? QStringLiteral("rocpd_ustring") : QStringLiteral("rocpd_string");
    file.monitorTable = isTable("rocpd_monitor");
    file.guard().alive();
    if (!source.conn.integer(QStringLiteral("SELECT count(*) FROM rocpd_op"), file.opCount) ||
        !source.conn.integer(QStringLiteral("SELECT count(*) FROM rocpd_api"), file.apiCount))
        return dbread::OpenRefusal{
            true,
            QStringLiteral("cannot be read (%1): damaged or half-copied; no kernels read from it").arg(source.error()),
            QStringLiteral("unreadable rocmProfileData database")};
    return std::nullopt;
}

/// What the ops phase read: the device rows (kernels, copies, memsets) and what it left out.
struct OpsRead {
    std::vector<DeviceRow> rows;
    std::vector<std::string> localNames;  ///< copy/memset names (their op type)
    std::map<std::string, qint64> otherTypes;
    qint64 opRows = 0, nullRows = 0, noNameRows = 0, noTypeRows = 0, kernelsSeen = 0;
    bool ok = true;
    QString error;
};

/// Op types and kernel names by string id, each looked up once.
class OpNames
{
public:
    OpNames(dbread::StringLookup &strings, KernelSink &sink) : m_strings(strings), m_sink(sink) {}

    struct Type {
        OpClass cls = OpClass::Other;
        std::string name;
    };
    const Type &type(qint64 id)
    {
        auto it = m_types.find(id);
        if (it == m_types.end()) {
            Type t;
            if (const std::optional<std::string> &name = m_strings.get(id)) {
                t.name = *name;
                t.cls = classifyOp(*name);
            } else {
                t.name = "(no string " + std::to_string(id) + ")";
            }
            it = m_types.emplace(id, std::move(t)).first;
        }
        return it->second;
    }
    /// The run-wide id of a kernel's description, nullopt when it has no name.
    std::optional<std::uint32_t> kernel(qint64 descriptionId)
    {
        auto it = m_kernels.find(descriptionId);
        if (it == m_kernels.end()) {
            std::optional<std::uint32_t> id;
            const std::optional<std::string> &name = m_strings.get(descriptionId);
            if (name && !name->empty())
                id = m_sink.names.intern(*name);
            it = m_kernels.emplace(descriptionId, id).first;
        }
        return it->second;
    }
    /// Op-type names that are no string of the file.
    std::vector<std::string> unnamedTypes() const
    {
        std::vector<std::string> out;
        for (const auto &[id, t] : m_types)
            if (t.name.rfind("(no string", 0) == 0)
                out.push_back(t.name);
        return out;
    }

private:
    dbread::StringLookup &m_strings;
    KernelSink &m_sink;
    std::unordered_map<qint64, Type> m_types;
    std::unordered_map<qint64, std::optional<std::uint32_t>> m_kernels;
};

/// Ops: kernels, copies, memsets of rocpd_op, in storage order (sorted later).
OpsRead readOps(const RpdFile &file, dbread::StringLookup &strings, KernelSink &sink, dbread::RowTicker &ticker)
{
    OpsRead out;
    OpNames names(strings, sink);
    std::unordered_map<std::string, std::uint32_t> localIds;
    out.rows.reserve(size_t(std::min<qint64>(file.opCount, 1 << 20)));
    out.ok = dbread::eachRow(
        file.db(), file.guard(), "SELECT gpuId, queueId, start, \"end\", description_id, opType_id FROM rocpd_op",
        out.error, [&](sqlite3_stmt *st) {
            ++out.opRows;
            const OpNames::Type &type = names.type(sqlite3_column_int64(st, 5));
            if (type.cls == OpClass::Other) {
                ++out.otherTypes[type.name];
                return ticker.tick();
            }
            if (type.cls == OpClass::Kernel)
                ++out.kernelsSeen;
            if (!isInteger(st, 2) || !isInteger(st, 3) || !isInteger(st, 0)) {
                ++out.nullRows;
                return ticker.tick();
            }
            DeviceRow r;
            r.device = sqlite3_column_int64(st, 0);
            r.stream = sqlite3_column_int64(st, 1);
            r.startNs = sqlite3_column_int64(st, 2);
            r.endNs = sqlite3_column_int64(st, 3);
            r.order = out.opRows;
            if (type.cls == OpClass::Kernel) {
                const std::optional<std::uint32_t> name = names.kernel(sqlite3_column_int64(st, 4));
                if (!name) {
                    ++out.noNameRows;
                    return ticker.tick();
                }
                r.nameId = *name;
                r.kind = GpuEventKind::Kernel;
            } else {
                auto [it, inserted] = localIds.try_emplace(type.name, std::uint32_t(out.localNames.size()));
                if (inserted)
                    out.localNames.push_back(type.name);
                r.nameId = it->second;
                r.kind = type.cls == OpClass::Memcpy ? GpuEventKind::Memcpy : GpuEventKind::Memset;
            }
            out.rows.push_back(r);
            return ticker.tick();
        });
    for (const std::string &name : names.unnamedTypes())
        out.noTypeRows += out.otherTypes[name];
    return out;
}

/// What the API phase read into the host activity, and what it left out.
struct ApiRead {
    qint64 apiRows = 0, runtimeCalls = 0, cudaCalls = 0, overheadRows = 0, markers = 0, badApiRows = 0;
    std::map<std::string, qint64> overheadNames;
    bool ok = true;
    QString error;
};

/// API calls and markers of rocpd_api into `host`: UserMarker rows are marker ranges (their text
/// from `args`), the tracer's overhead records are counted, the rest are runtime calls. With
/// `lanes`, the same as host ranges with their names, threads and ids (the runtime calls'
/// correlation: rocpd_api_ops joins a call's id to the ops it launched).
ApiRead readApi(const RpdFile &file, dbread::StringLookup &strings, dbread::StringLookup &args, HostActivity &host,
                dbread::RowTicker &ticker, kernels::HostLanesBuilder *lanes)
{
    ApiRead out;
    struct ApiName {
        ApiClass cls;
        bool cuda;         ///< a CUDA name (the CUPTI source)
        std::string name;  ///< as the lanes show it
    };
    std::unordered_map<qint64, ApiName> apiNames;
    out.ok = dbread::eachRow(
        file.db(), file.guard(),
        lanes ? "SELECT pid, tid, start, \"end\", apiName_id, args_id, id FROM rocpd_api"
              : "SELECT pid, tid, start, \"end\", apiName_id, args_id FROM rocpd_api",
        out.error, [&](sqlite3_stmt *st) {
            ++out.apiRows;
            const qint64 nameId = sqlite3_column_int64(st, 4);
            auto it = apiNames.find(nameId);
            if (it == apiNames.end()) {
                const std::optional<std::string> &name = strings.get(nameId);
                const std::string n = name ? *name : std::string();
                const ApiClass cls = n.empty() ? ApiClass::Overhead : classifyApi(n);
                if (cls == ApiClass::Overhead)
                    out.overheadNames.emplace(n.empty() ? "(no name)" : n, 0);
                it = apiNames.emplace(nameId, ApiName{cls, n.rfind("cu", 0) == 0, n}).first;
            }
            const ApiClass cls = it->second.cls;
            if (cls == ApiClass::Overhead) {
                ++out.overheadRows;
                return ticker.tick();
            }
            if (!isInteger(st, 2) || !isInteger(st, 3) || sqlite3_column_int64(st, 3) < sqlite3_column_int64(st, 2)) {
                ++out.badApiRows;
                return ticker.tick();
            }
            const qint64 startNs = sqlite3_column_int64(st, 2);
            const qint64 endNs = sqlite3_column_int64(st, 3);
            if (cls == ApiClass::Marker) {
                const std::optional<std::string> &text = args.get(sqlite3_column_int64(st, 5));
                MarkerRange m;
                m.name = text ? QString::fromStdString(*text) : QString();
                m.process = sqlite3_column_int64(st, 0);
                m.thread = sqlite3_column_int64(st, 1);
                m.startNs = startNs;
                m.endNs = endNs;
                if (lanes && endNs > startNs) {
                    const std::string_view name = text ? std::string_view(*text) : std::string_view();
                    lanes->add(kernels::markerKind(name), name, lanes->threadOf(m.process, m.thread), startNs, endNs);
                }
                host.ranges.push_back(m);
                ++out.markers;
            } else {
                host.runtimeCalls.push_back({startNs, endNs});
                ++out.runtimeCalls;
                out.cudaCalls += it->second.cuda;
                if (lanes)
                    lanes->addRuntime(it->second.name,
                                      lanes->threadOf(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)),
                                      startNs, endNs, sqlite3_column_int64(st, 6));
            }
            return ticker.tick();
        });
    return out;
}

/// The ops' launching calls (rocpd_api_ops) as GPU correlations, by the ops' places on the
/// timeline (gpuId, queueId, start). False with `problem` set when the file cannot say.
bool readLaunches(const RpdFile &file, kernels::HostLanesBuilder &lanes, QString &problem)
{
    // Checked as the other tables are: a view or a generated column is never queried.
    if (const QStringList unsafe = dbread::unsafeTables(file.source, {"rocpd_api_ops"}); !unsafe.isEmpty()) {
        problem = QStringLiteral("rocpd_api_ops is not read (%1)").arg(unsafe.join(QStringLiteral(", ")));
        return false;
    }
    QString error;
    const bool ok = dbread::eachRow(
        file.db(), file.guard(),
        "SELECT o.start, l.api_id, o.gpuId, o.queueId FROM rocpd_api_ops l JOIN rocpd_op o ON o.id = l.op_id", error,
        [&](sqlite3_stmt *st) {
            if (isInteger(st, 0) && isInteger(st, 1) && isInteger(st, 2) && isInteger(st, 3))
                lanes.addGpu(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                             qint32(sqlite3_column_int64(st, 2)), qint32(sqlite3_column_int64(st, 3)));
            return true;
        });
    if (!ok)
        problem = QStringLiteral("rocpd_api_ops cannot be read (%1)").arg(error);
    return ok;
}

/// rocpd_monitor, counted only (the model has no place for clock samples): rows and kinds.
std::pair<qint64, QStringList> countMonitor(const RpdFile &file)
{
    qint64 rows = 0;
    QStringList kinds;
    if (!file.monitorTable)
        return {rows, kinds};
    QString error;
    dbread::eachRow(
        // Grouped by a short prefix: the sorter keeps a few bytes per kind, whatever the file holds.
        file.db(), file.guard(), "SELECT substr(monitorType, 1, 64), count(*) FROM rocpd_monitor GROUP BY 1", error,
        [&](sqlite3_stmt *st) {
            const auto *t = reinterpret_cast<const char *>(sqlite3_column_text(st, 0));
            rows += sqlite3_column_int64(st, 1);
            if (kinds.size() < 16)
                kinds << QStringLiteral("%1 %2").arg(sqlite3_column_int64(st, 1)).arg(QString::fromUtf8(t ? t : "?"));
            else if (kinds.size() == 16)
                kinds << QStringLiteral("...");
            return true;
        });
    return {rows, kinds};
}

/// Read errors of the two tables and of their strings: what of the file is not read.
void readProblems(const RpdFile &file, const OpsRead &ops, const ApiRead &api, const dbread::StringLookup &strings,
                  const dbread::StringLookup &args, Diagnostics &diags)
{
    const QString &rel = file.rel;
    if (!ops.ok)
        diags.push_back({Severity::Error, rel, 0,
                         QStringLiteral("read error after %1 of %2 rocpd_op rows: %3 (damaged or half-copied file?); "
                                        "the rest is not read")
                             .arg(ops.opRows)
                             .arg(file.opCount)
                             .arg(ops.error)});
    if (!api.ok)
        diags.push_back({Severity::Error, rel, 0,
                         QStringLiteral("read error after %1 of %2 rocpd_api rows: %3 (damaged or half-copied file?); "
                                        "the rest of the host activity is not read")
                             .arg(api.apiRows)
                             .arg(file.apiCount)
                             .arg(api.error)});
    if (!strings.error().isEmpty() || !args.error().isEmpty())
        diags.push_back({Severity::Error, rel, 0,
                         QStringLiteral("strings could not be read (%1); rows naming them were skipped")
                             .arg(strings.error().isEmpty() ? args.error() : strings.error())});
    if (const qint64 tooLong = strings.tooLong() + args.tooLong(); tooLong > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 string(s) are longer than %2, the most one string may hold here: not read, "
                                        "rows naming them were skipped")
                             .arg(tooLong)
                             .arg(dbread::describeBytes(file.guard().limits().maxValueBytes))});
}

/// The ops left out, and why.
void opDiagnostics(const QString &rel, const OpsRead &ops, const dbread::RowCounts &counts, Diagnostics &diags)
{
    if (ops.kernelsSeen == 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("holds no kernel executions (rocpd_op has %1 rows, none of type KernelExecution "
                                        "or Task)")
                             .arg(ops.opRows)});
    if (ops.noNameRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 kernel ops without a kernel name (description) were skipped").arg(ops.noNameRows)});
    if (ops.nullRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 ops without integer gpuId/start/end were skipped").arg(ops.nullRows)});
    if (counts.negativeRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 ops with end before start were skipped").arg(counts.negativeRows)});
    if (counts.zeroRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 kernels with zero duration were skipped (kept on the timeline)").arg(counts.zeroRows)});
    if (counts.implausibleRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 kernels longer than a day (implausible) were skipped").arg(counts.implausibleRows)});
    if (!ops.otherTypes.empty()) {
        QStringList parts;
        for (const auto &[name, n] : ops.otherTypes)
            parts << QStringLiteral("%1 %2").arg(n).arg(QString::fromStdString(name));
        diags.push_back({ops.noTypeRows > 0 ? Severity::Warning : Severity::Info, rel, 0,
                         QStringLiteral("ops of other types are not GPU work the workbench counts: %1")
                             .arg(parts.join(QStringLiteral(", ")))});
    }
}

/// The api rows left out, and why.
void apiDiagnostics(const QString &rel, const ApiRead &api, Diagnostics &diags)
{
    if (api.overheadRows > 0) {
        QStringList names;
        for (const auto &[name, n] : api.overheadNames)
            names << QString::fromStdString(name);
        diags.push_back({Severity::Info, rel, 0,
                         QStringLiteral("%1 rocpd_api rows are rpd_tracer's own overhead records (%2), not runtime "
                                        "calls: left out of the host activity")
                             .arg(api.overheadRows)
                             .arg(names.mid(0, 6).join(QStringLiteral(", ")) +
                                  (names.size() > 6 ? QStringLiteral(", ...") : QString()))});
    }
    if (api.badApiRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 rocpd_api rows without integer start/end (or ending before they start) "
                                        "were skipped")
                             .arg(api.badApiRows)});
}

/// The file's summary line, and what it holds that the workbench does not read.
void summaryDiagnostics(const QString &rel, const OpsRead &ops, const dbread::RowCounts &counts, const ApiRead &api,
                        std::size_t devices, const std::pair<qint64, QStringList> &monitor, bool streamOverflow,
                        const QString &sideFiles, Diagnostics &diags)
{
    diags.push_back({Severity::Info, rel, 0,
                     QStringLiteral("rocmProfileData: %1 kernels (%2 used), %3 copies, %4 memsets on %5 GPU(s); "
                                    "%6 %7 runtime calls, %8 marker ranges/marks")
                         .arg(ops.kernelsSeen)
                         .arg(counts.used)
                         .arg(counts.copyRows)
                         .arg(counts.memsetRows)
                         .arg(qulonglong(devices))
                         .arg(api.runtimeCalls)
                         .arg(api.cudaCalls * 2 > api.runtimeCalls ? QStringLiteral("CUDA") : QStringLiteral("HIP"))
                         .arg(api.markers)});
    if (monitor.first > 0)
        diags.push_back({Severity::Info, rel, 0,
                         QStringLiteral("%1 rocpd_monitor samples (%2) are not read: the workbench takes clocks and "
                                        "power from amd_smi.csv only")
                             .arg(monitor.first)
                             .arg(monitor.second.join(QStringLiteral(", ")))});
    if (streamOverflow)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("more than 65535 queues on one GPU: the last ones share one timeline lane")});
    if (!sideFiles.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, sideFiles});
}

/// The file's row in the inputs: its dialect and the columns the workbench reads.
void describeFile(InputFileInfo &info, const QString &version, const OpsRead &ops, qint64 skipped)
{
    info.dialect =
        QStringLiteral("rocmProfileData (rpd_tracer) schema %1").arg(version.isEmpty() ? QStringLiteral("?") : version);
    info.workbenchColumns = {
        {QStringLiteral("kernel_name"), QStringLiteral("rocpd_op.description_id -> rocpd_string.string"),
         QStringLiteral("rpd: ops of type KernelExecution or Task"), QString()},
        {QStringLiteral("start"), QStringLiteral("rocpd_op.start"), QStringLiteral("rpd"), QStringLiteral("ns")},
        {QStringLiteral("end"), QStringLiteral("rocpd_op.end"), QStringLiteral("rpd"), QStringLiteral("ns")},
        {QStringLiteral("duration"), QString(), QStringLiteral("computed as end - start"), QStringLiteral("ns")},
        {QStringLiteral("agent"), QStringLiteral("rocpd_op.gpuId"), QStringLiteral("rpd: \"GPU <gpuId>\""), QString()},
        {QStringLiteral("stream"), QStringLiteral("rocpd_op.queueId"), QStringLiteral("rpd"), QString()}};
    info.rowsRead = ops.opRows;
    info.rowsSkipped = skipped;
}

} // namespace

ReadOutcome readRpdDatabase(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
                             const ProgressCallback &progress)
{
    // Open + schema check.
    DatabaseRow row(path, rel, kFormat, trace);
    dbread::UntrustedConnection source;
    if (const std::optional<dbread::OpenRefusal> no = dbread::openUntrusted(path, source))
        return row.refuse(no->error ? Severity::Error : Severity::Warning, no->message, no->dialect);
    RpdFile file{rel, source, {}, {}, false, 0, 0};
    if (const std::optional<dbread::OpenRefusal> no = checkSchema(file))
        return row.refuse(no->error ? Severity::Error : Severity::Warning, no->message, no->dialect);
    const size_t cutMark = sink.names.cutMark();
    dbread::RowTicker ticker(progress, file.opCount + file.apiCount, row.info.sizeBytes);

    // Strings → ops (kernels, copies, memsets), sorted by time onto the timeline and into the sums.
    dbread::StringLookup strings(file.db(), QStringLiteral("rocpd_string"), QStringLiteral("string"));
    strings.describeWith(file.guard());
    OpsRead ops = readOps(file, strings, sink, ticker);
    if (ticker.cancelled())
        return ReadOutcome::Cancelled;
    dbread::sortRows(ops.rows);
    dbread::EventTimeline timeline(QStringLiteral("rpd"), rel);
    KernelReading &w = *sink.workbench.reading;
    w.rowsSkippedNoName += ops.noNameRows;
    w.rowsSkippedUnreadable += ops.nullRows;
    const dbread::RowCounts counts = dbread::sweepSortedRows(ops.rows, ops.localNames, sink, timeline);

    // API calls and markers → host activity.
    dbread::StringLookup args(file.db(), file.argsTable, QStringLiteral("string"));
    args.describeWith(file.guard());
    // The window's reading keeps the host side as the Timeline's lanes too.
    std::optional<kernels::HostLanesBuilder> lanes;
    if (sink.keepHostLanes)
        lanes.emplace();
    const ApiRead api = readApi(file, strings, args, trace.host, ticker, lanes ? &*lanes : nullptr);
    if (ticker.cancelled())
        return ReadOutcome::Cancelled;
    QString launchProblem;
    if (lanes && lanes->rangeCount() > 0 && !readLaunches(file, *lanes, launchProblem))
        trace.diagnostics.push_back({Severity::Info, rel, 0,
                                     QStringLiteral("%1: the Timeline cannot join its kernels to the runtime calls "
                                                    "that launched them")
                                         .arg(launchProblem)});

    // Finish: diagnostics, the file's row, its timeline.
    Diagnostics &diags = trace.diagnostics;
    readProblems(file, ops, api, strings, args, diags);
    kernels::NameCuts cuts = sink.names.cutsSince(cutMark);
    cuts.add(strings.cuts());
    cuts.add(args.cuts());
    if (const QString cut = cuts.message(); !cut.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, cut});
    if (api.markers + api.runtimeCalls > 0) {
        trace.host.files << rel;
        if (api.cudaCalls * 2 > api.runtimeCalls)
            trace.host.runtimeName = QStringLiteral("CUDA");
    }
    const std::pair<qint64, QStringList> monitor = countMonitor(file);
    const bool streamOverflow = timeline.streamOverflow();
    const qint64 events = timeline.eventCount();
    GpuTimelineFile timelineFile = timeline.take();
    opDiagnostics(rel, ops, counts, diags);
    apiDiagnostics(rel, api, diags);
    summaryDiagnostics(rel, ops, counts, api, timelineFile.devices.size(), monitor, streamOverflow, source.sideFiles,
                       diags);
    describeFile(row.info, file.version, ops, ops.nullRows + ops.noNameRows + counts.skippedKernels);
    trace.files.push_back(row.info);
    if (events > 0 && lanes && lanes->rangeCount() > 0) {
        auto built = std::make_shared<HostLanes>(lanes->build());
        kernels::hostLanesSummary(*built, lanes->threadOverflow(), rel, QStringLiteral("rocpd_api and rocpd_api_ops"), diags);
        timelineFile.hostLanes = std::move(built);
    }
    if (events > 0)
        trace.timeline.files.push_back(std::move(timelineFile));
    if (progress)
        progress(row.info.sizeBytes);
    return ReadOutcome::Read;
}

} // namespace goblin
