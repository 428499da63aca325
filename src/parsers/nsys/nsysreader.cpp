#include "nsysreader.h"

#include "kernels/accumulator.h"
#include "kernels/hostlanesbuilder.h"
#include "kernels/namepool.h"
#include "rocpd/rocpdfile.h"
#include "rpd/dbcommon.h"

#include <QFileInfo>

#include <climits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace goblin
{

namespace
{

using dbread::DeviceRow;

const QString kFormat = QStringLiteral("nsys-sqlite");

const char *const kKernel = "CUPTI_ACTIVITY_KIND_KERNEL";
const char *const kMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
const char *const kMemset = "CUPTI_ACTIVITY_KIND_MEMSET";
const char *const kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
const char *const kNvtx = "NVTX_EVENTS";
const char *const kGpus = "TARGET_INFO_GPU";
const char *const kStrings = "StringIds";

/// NVTX_EVENTS.eventType of a mark (nvtxMark*): an instant, not a range.
constexpr qint64 kNvtxMark = 34;

/// CUpti_ActivityMemcpyKind, as nsys writes copyKind.
std::string copyName(qint64 kind)
{
    switch (kind) {
    case 1:
        return "Memcpy HtoD";
    case 2:
        return "Memcpy DtoH";
    case 3:
        return "Memcpy HtoA";
    case 4:
        return "Memcpy AtoH";
    case 5:
        return "Memcpy AtoA";
    case 6:
        return "Memcpy AtoD";
    case 7:
        return "Memcpy DtoA";
    case 8:
        return "Memcpy DtoD";
    case 9:
        return "Memcpy HtoH";
    case 10:
        return "Memcpy PtoP";
    default:
        return "Memcpy";
    }
}

/// globalPid / globalTid pack the process id in bits 24..47 and the thread id in bits 0..23.
qint64 pidOf(qint64 global)
{
    return (global >> 24) & 0xFFFFFF;
}
qint64 tidOf(qint64 global)
{
    return global & 0xFFFFFF;
}

bool isInteger(sqlite3_stmt *st, int column)
{
    return sqlite3_column_type(st, column) == SQLITE_INTEGER;
}

/// `column` quoted when the table has it, else NULL (older exports lack some columns).
QString columnOrNull(const QStringList &have, const char *column)
{
    return have.contains(QLatin1String(column)) ? QStringLiteral("\"%1\"").arg(QLatin1String(column))
                                                : QStringLiteral("NULL");
}

/// The open export and what its schema says: the phases' shared input.
struct NsysFile {
    const QString &rel;
    dbread::UntrustedConnection &source;
    QStringList kernelColumns, memcpyColumns, memsetColumns, nvtxColumns;
    QString version, schemaVersion;  ///< EXPORT_PRODUCT_VERSION, EXPORT_SCHEMA_VERSION
    qint64 totalRows = 0;            ///< rows of the tables read (progress)
    bool has(const char *table) const { return source.schema.count(table) > 0; }
    sqlite3 *db() const { return source.conn.handle(); }
    dbread::Guard &guard() const { return *source.guard; }
};

/// Plain tables only: a view, a virtual table or a computed column of a read table's name is
/// never queried. The refusal's words, or empty.
QString unsafeTables(NsysFile &file)
{
    std::vector<const char *> present{kStrings};
    for (const char *t : {kKernel, kMemcpy, kMemset, kRuntime, kNvtx, kGpus})
        if (file.has(t))
            present.push_back(t);
    const QStringList unsafe = dbread::unsafeTables(
        file.source, present,
        {"EXPORT_META_DATA", "META_DATA_EXPORT", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUDA_GRAPH_TRACE"});
    return unsafe.join(QStringLiteral(", "));
}

/// The columns of the tables read; the kernel table's missing columns (empty: all there).
QStringList readColumns(NsysFile &file)
{
    QStringList missing;
    rocpd::Connection &conn = file.source.conn;
    if (file.has(kKernel)) {
        file.kernelColumns = dbread::columnsOf(conn, QLatin1String(kKernel));
        for (const char *c : {"start", "end", "deviceId", "streamId"})
            if (!file.kernelColumns.contains(QLatin1String(c)))
                missing << QLatin1String(c);
        if (!file.kernelColumns.contains(QStringLiteral("demangledName")) &&
            !file.kernelColumns.contains(QStringLiteral("shortName")))
            missing << QStringLiteral("demangledName/shortName");
    }
    if (file.has(kMemcpy))
        file.memcpyColumns = dbread::columnsOf(conn, QLatin1String(kMemcpy));
    if (file.has(kMemset))
        file.memsetColumns = dbread::columnsOf(conn, QLatin1String(kMemset));
    if (file.has(kNvtx))
        file.nvtxColumns = dbread::columnsOf(conn, QLatin1String(kNvtx));
    return missing;
}

/// The export's product and schema versions (EXPORT_META_DATA or META_DATA_EXPORT).
void readVersions(NsysFile &file)
{
    for (const char *meta : {"EXPORT_META_DATA", "META_DATA_EXPORT"}) {
        const auto it = file.source.schema.find(meta);
        if (it == file.source.schema.end() || it->second != "table")
            continue;
        QStringList v, s;
        const QString query = QStringLiteral("SELECT value FROM %1 WHERE name = '%2' LIMIT 1").arg(QLatin1String(meta));
        file.source.conn.texts(query.arg(QStringLiteral("EXPORT_PRODUCT_VERSION")).toUtf8().constData(), v);
        file.source.conn.texts(query.arg(QStringLiteral("EXPORT_SCHEMA_VERSION")).toUtf8().constData(), s);
        file.version = v.value(0).left(64);
        file.schemaVersion = s.value(0).left(64);
    }
}

/// Open + schema check: plain tables, the kernel table's columns, the versions, the row counts.
/// A refusal's words, or nullopt when the export can be read.
std::optional<dbread::OpenRefusal> checkSchema(NsysFile &file)
{
    if (const QString unsafe = unsafeTables(file); !unsafe.isEmpty())
        return dbread::OpenRefusal{false,
                                   QStringLiteral("has Nsight Systems' table names but %1; not read (a view, a virtual "
                                                  "table or a generated column in place of a table is never queried)")
                                       .arg(unsafe),
                                   QStringLiteral("Nsight Systems look-alike")};
    if (const QStringList missing = readColumns(file); !missing.isEmpty())
        return dbread::OpenRefusal{false,
                                   QStringLiteral("%1 has no column %2 (not an nsys export this reader knows); no "
                                                  "kernels read from it")
                                       .arg(QLatin1String(kKernel), missing.join(QStringLiteral(", "))),
                                   QStringLiteral("Nsight Systems export, unknown layout")};
    readVersions(file);
    for (const char *t : {kKernel, kMemcpy, kMemset, kRuntime, kNvtx}) {
        if (!file.has(t))
            continue;
        qint64 n = 0;
        file.guard().alive();
        if (!file.source.conn.integer(QStringLiteral("SELECT count(*) FROM %1").arg(QLatin1String(t)), n))
            return dbread::OpenRefusal{true,
                                       QStringLiteral("cannot be read (%1): damaged or half-copied; no kernels read "
                                                      "from it")
                                           .arg(file.source.error()),
                                       QStringLiteral("unreadable Nsight Systems export")};
        file.totalRows += n;
    }
    return std::nullopt;
}

/// The GPU rows (kernels, copies, memsets) as read, before sorting, and what was left out.
struct DeviceRead {
    std::vector<DeviceRow> rows;
    std::vector<std::string> localNames;  ///< copy/memset names
    std::unordered_map<std::string, std::uint32_t> localIds;
    qint64 kernelRows = 0, nullRows = 0, noNameRows = 0, graphKernels = 0, order = 0;
    qint64 copyRows = 0, memsetRows = 0;
    std::set<std::pair<qint64, qint64>> deviceContexts;  ///< (device, contextId) of the kernels
    QStringList readErrors;
};

/// The kernel query: names (demangled, else short; the other as a fallback), process, graph, context.
/// With `correlation` (host lanes kept), the kernel's correlationId too (column 9).
QByteArray kernelQuery(const QStringList &columns, bool correlation)
{
    const bool demangled = columns.contains(QStringLiteral("demangledName"));
    const char *graphColumn = columns.contains(QStringLiteral("graphId")) ? "graphId" : "graphNodeId";
    return QStringLiteral("SELECT start, \"end\", deviceId, streamId, %1, %2, %3, %4, %5%6 FROM %7")
        .arg(demangled ? QStringLiteral("demangledName") : QStringLiteral("shortName"),
             columnOrNull(columns, demangled ? "shortName" : "demangledName"), columnOrNull(columns, "globalPid"),
             columnOrNull(columns, graphColumn), columnOrNull(columns, "contextId"),
             correlation ? QStringLiteral(", ") + columnOrNull(columns, "correlationId") : QString(),
             QLatin1String(kKernel))
        .toUtf8();
}

/// Kernels of CUPTI_ACTIVITY_KIND_KERNEL, named through StringIds, into `out`.
void readKernels(const NsysFile &file, dbread::StringLookup &strings, KernelSink &sink, dbread::RowTicker &ticker,
                 DeviceRead &out, kernels::HostLanesBuilder *lanes)
{
    if (!file.has(kKernel))
        return;
    struct NameInfo {
        bool named = false;
        std::uint32_t globalId = 0;
    };
    std::unordered_map<qint64, NameInfo> kernelNames;
    auto nameOf = [&](qint64 id, NameInfo &n) {
        const std::optional<std::string> &name = strings.get(id);
        if (name && !name->empty()) {
            n.named = true;
            n.globalId = sink.names.intern(*name);
        }
    };
    QString error;
    if (!dbread::eachRow(file.db(), file.guard(), kernelQuery(file.kernelColumns, lanes), error, [&](sqlite3_stmt *st) {
            ++out.kernelRows;
            if (!isInteger(st, 0) || !isInteger(st, 1) || !isInteger(st, 2)) {
                ++out.nullRows;
                return ticker.tick();
            }
            if (sqlite3_column_type(st, 7) != SQLITE_NULL)
                ++out.graphKernels;
            const qint64 nameId = sqlite3_column_int64(st, 4);
            auto it = kernelNames.find(nameId);
            if (it == kernelNames.end()) {
                NameInfo n;
                if (sqlite3_column_type(st, 4) != SQLITE_NULL)
                    nameOf(nameId, n);
                it = kernelNames.emplace(nameId, n).first;
            }
            NameInfo name = it->second;
            if (!name.named && sqlite3_column_type(st, 5) != SQLITE_NULL)
                nameOf(sqlite3_column_int64(st, 5), name); // the other name column
            if (!name.named) {
                ++out.noNameRows;
                return ticker.tick();
            }
            DeviceRow r;
            r.startNs = sqlite3_column_int64(st, 0);
            r.endNs = sqlite3_column_int64(st, 1);
            r.device = sqlite3_column_int64(st, 2);
            r.stream = sqlite3_column_int64(st, 3);
            r.pid = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : pidOf(sqlite3_column_int64(st, 6));
            r.nameId = name.globalId;
            r.kind = GpuEventKind::Kernel;
            r.order = ++out.order;
            out.deviceContexts.emplace(r.device, sqlite3_column_int64(st, 8));
            if (lanes && isInteger(st, 9))
                lanes->addGpu(r.startNs, sqlite3_column_int64(st, 9), qint32(r.device), qint32(r.stream));
            out.rows.push_back(r);
            return ticker.tick();
        }))
        out.readErrors << QStringLiteral("%1 after %2 rows: %3").arg(QLatin1String(kKernel)).arg(out.kernelRows).arg(error);
}

/// Copies or memsets of `table` (timeline only) into `out`, named by their kind.
void readTransfers(const NsysFile &file, const char *table, const QStringList &columns, GpuEventKind kind,
                   dbread::RowTicker &ticker, DeviceRead &out, kernels::HostLanesBuilder *lanes)
{
    if (!file.has(table))
        return;
    qint64 &count = kind == GpuEventKind::Memcpy ? out.copyRows : out.memsetRows;
    const QByteArray sql =
        QStringLiteral("SELECT start, \"end\", deviceId, streamId, %1, %2%3 FROM %4")
            .arg(kind == GpuEventKind::Memcpy ? columnOrNull(columns, "copyKind") : QStringLiteral("NULL"),
                 columnOrNull(columns, "globalPid"),
                 lanes ? QStringLiteral(", ") + columnOrNull(columns, "correlationId") : QString(),
                 QLatin1String(table))
            .toUtf8();
    qint64 seen = 0;
    QString error;
    if (!dbread::eachRow(file.db(), file.guard(), sql, error, [&](sqlite3_stmt *st) {
            ++seen;
            if (!isInteger(st, 0) || !isInteger(st, 1) || !isInteger(st, 2)) {
                ++out.nullRows;
                return ticker.tick();
            }
            const std::string name = kind == GpuEventKind::Memset ? std::string("Memset")
                                     : isInteger(st, 4)           ? copyName(sqlite3_column_int64(st, 4))
                                                                  : std::string("Memcpy");
            auto [it, inserted] = out.localIds.try_emplace(name, std::uint32_t(out.localNames.size()));
            if (inserted)
                out.localNames.push_back(name);
            DeviceRow r;
            r.startNs = sqlite3_column_int64(st, 0);
            r.endNs = sqlite3_column_int64(st, 1);
            r.device = sqlite3_column_int64(st, 2);
            r.stream = sqlite3_column_int64(st, 3);
            r.pid = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : pidOf(sqlite3_column_int64(st, 5));
            r.nameId = it->second;
            r.kind = kind;
            r.order = ++out.order;
            if (lanes && isInteger(st, 6))
                lanes->addGpu(r.startNs, sqlite3_column_int64(st, 6), qint32(r.device), qint32(r.stream));
            out.rows.push_back(r);
            ++count;
            return ticker.tick();
        }))
        out.readErrors << QStringLiteral("%1 after %2 rows: %3").arg(QLatin1String(table)).arg(seen).arg(error);
}

/// What the host phase read (CUDA runtime calls, NVTX ranges and marks) and left out.
struct HostRead {
    qint64 runtimeCalls = 0, badHostRows = 0, ranges = 0, marks = 0, notRanges = 0, unnamed = 0;
    kernels::NameCuts textCuts;  ///< NVTX texts read from their own column
    QStringList missingRuntimeColumns;  ///< of the runtime table, for the host lanes (when kept)
};

/// CUDA runtime calls of CUPTI_ACTIVITY_KIND_RUNTIME into `host`; with `lanes`, also as host ranges
/// named through StringIds (nameId), on their thread (globalTid), with their correlationId.
void readRuntime(const NsysFile &file, dbread::StringLookup &strings, HostActivity &host, dbread::RowTicker &ticker,
                 HostRead &out, QStringList &readErrors, kernels::HostLanesBuilder *lanes)
{
    if (!file.has(kRuntime))
        return;
    QByteArray sql("SELECT start, \"end\" FROM ");
    if (lanes) {
        const QStringList columns = dbread::columnsOf(file.source.conn, QLatin1String(kRuntime));
        for (const char *c : {"globalTid", "correlationId", "nameId"})
            if (!columns.contains(QLatin1String(c)))
                out.missingRuntimeColumns << QLatin1String(c);
        sql = QStringLiteral("SELECT start, \"end\", %1, %2, %3 FROM ")
                  .arg(columnOrNull(columns, "globalTid"), columnOrNull(columns, "correlationId"),
                       columnOrNull(columns, "nameId"))
                  .toUtf8();
    }
    qint64 seen = 0;
    QString error;
    if (!dbread::eachRow(file.db(), file.guard(), sql + kRuntime, error, [&](sqlite3_stmt *st) {
            ++seen;
            if (!isInteger(st, 0) || !isInteger(st, 1) || sqlite3_column_int64(st, 1) < sqlite3_column_int64(st, 0)) {
                ++out.badHostRows;
                return ticker.tick();
            }
            const qint64 startNs = sqlite3_column_int64(st, 0), endNs = sqlite3_column_int64(st, 1);
            host.runtimeCalls.push_back({startNs, endNs});
            ++out.runtimeCalls;
            if (lanes) {
                const qint64 tid = sqlite3_column_int64(st, 2);  // 0 when NULL
                const std::optional<std::string> *name = isInteger(st, 4) ? &strings.get(sqlite3_column_int64(st, 4))
                                                                           : nullptr;
                const std::string_view shown =
                    name && *name ? std::string_view(**name) : std::string_view("CUDA runtime call");
                const std::uint16_t thread = lanes->threadOf(pidOf(tid), tidOf(tid));
                if (isInteger(st, 3))
                    lanes->addRuntime(shown, thread, startNs, endNs, sqlite3_column_int64(st, 3));
                else
                    lanes->add(HostSliceKind::Runtime, shown, thread, startNs, endNs);
            }
            return ticker.tick();
        }))
        readErrors << QStringLiteral("%1 after %2 rows: %3").arg(QLatin1String(kRuntime)).arg(seen).arg(error);
}

/// An NVTX row's name: its own text (cut at a name's length), else its textId in StringIds.
QString nvtxName(sqlite3_stmt *st, dbread::StringLookup &strings, kernels::NameCuts &textCuts)
{
    if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
        const std::string_view text = dbread::trimmedView(reinterpret_cast<const char *>(sqlite3_column_text(st, 3)),
                                                          sqlite3_column_bytes(st, 3));
        if (text.size() > kernels::kMaxNameBytes) {
            textCuts.add(text.size());
            return QString::fromStdString(kernels::cutName(text));
        }
        return QString::fromUtf8(text.data(), qsizetype(text.size()));
    }
    if (isInteger(st, 4))
        if (const std::optional<std::string> &text = strings.get(sqlite3_column_int64(st, 4)))
            return QString::fromStdString(*text);
    return QString();
}

/// NVTX ranges and marks of NVTX_EVENTS into `host`; rows without a time span (domains,
/// categories, thread names) are counted.
void readNvtx(const NsysFile &file, dbread::StringLookup &strings, HostActivity &host, dbread::RowTicker &ticker,
              HostRead &out, QStringList &readErrors, kernels::HostLanesBuilder *lanes)
{
    if (!file.has(kNvtx))
        return;
    const QStringList &columns = file.nvtxColumns;
    const QByteArray sql = QStringLiteral("SELECT start, \"end\", %1, %2, %3, %4 FROM %5")
                               .arg(columnOrNull(columns, "eventType"), columnOrNull(columns, "text"),
                                    columnOrNull(columns, "textId"), columnOrNull(columns, "globalTid"),
                                    QLatin1String(kNvtx))
                               .toUtf8();
    qint64 seen = 0;
    QString error;
    if (!dbread::eachRow(file.db(), file.guard(), sql, error, [&](sqlite3_stmt *st) {
            ++seen;
            const bool instant = sqlite3_column_type(st, 1) == SQLITE_NULL;
            if (instant && !(isInteger(st, 2) && sqlite3_column_int64(st, 2) == kNvtxMark)) {
                ++out.notRanges; // domain, category and thread names: no time span
                return ticker.tick();
            }
            if (!isInteger(st, 0) ||
                (!instant && (!isInteger(st, 1) || sqlite3_column_int64(st, 1) < sqlite3_column_int64(st, 0)))) {
                ++out.badHostRows;
                return ticker.tick();
            }
            MarkerRange m;
            m.name = nvtxName(st, strings, out.textCuts);
            if (m.name.isEmpty())
                ++out.unnamed;
            const qint64 tid = sqlite3_column_int64(st, 5);
            m.process = pidOf(tid);
            m.thread = tidOf(tid);
            m.startNs = sqlite3_column_int64(st, 0);
            m.endNs = instant ? m.startNs : sqlite3_column_int64(st, 1);
            if (lanes && m.endNs > m.startNs) {
                const QByteArray name = m.name.toUtf8();
                const std::string_view view(name.constData(), std::size_t(name.size()));
                lanes->add(kernels::markerKind(view), view, lanes->threadOf(m.process, m.thread), m.startNs, m.endNs);
            }
            host.ranges.push_back(m);
            ++(instant ? out.marks : out.ranges);
            return ticker.tick();
        }))
        readErrors << QStringLiteral("%1 after %2 rows: %3").arg(QLatin1String(kNvtx)).arg(seen).arg(error);
}

/// TARGET_INFO_GPU: each GPU's line for the diagnostics, its model and memory for the device facts.
struct GpusRead {
    QStringList lines;
    QStringList names;
    std::vector<qint64> memoryBytes;
};

GpusRead readGpus(const NsysFile &file)
{
    GpusRead out;
    if (!file.has(kGpus))
        return out;
    const QStringList columns = dbread::columnsOf(file.source.conn, QLatin1String(kGpus));
    const QByteArray sql = QStringLiteral("SELECT %1, %2, %3 FROM %4")
                               .arg(columnOrNull(columns, "id"), columnOrNull(columns, "name"),
                                    columnOrNull(columns, "totalMemory"), QLatin1String(kGpus))
                               .toUtf8() +
                           " ORDER BY 1";
    QString error;
    dbread::eachRow(file.db(), file.guard(), sql, error, [&](sqlite3_stmt *st) {
        const auto *name = reinterpret_cast<const char *>(sqlite3_column_text(st, 1));
        const int nameBytes = std::min(sqlite3_column_bytes(st, 1), 256); // a GPU's name is short
        QString text = QStringLiteral("GPU %1: %2")
                           .arg(sqlite3_column_int64(st, 0))
                           .arg(name ? QString::fromUtf8(name, nameBytes) : QStringLiteral("?"));
        if (isInteger(st, 2))
            text += QStringLiteral(" (%1)").arg(dbread::describeBytes(sqlite3_column_int64(st, 2)));
        out.lines << text;
        out.names << (name ? QString::fromUtf8(name, nameBytes) : QString());
        out.memoryBytes.push_back(isInteger(st, 2) ? std::max<qint64>(0, sqlite3_column_int64(st, 2)) : 0);
        return out.lines.size() < 64;
    });
    return out;
}

/// CUDA graph launches traced as whole graphs (their kernels are not in the kernel table).
qint64 countGraphLaunches(const NsysFile &file)
{
    qint64 graphLaunches = 0;
    for (const char *t : {"CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUDA_GRAPH_TRACE"}) {
        const auto it = file.source.schema.find(t);
        qint64 n = 0;
        file.guard().alive();
        if (it != file.source.schema.end() && it->second == "table" &&
            file.source.conn.integer(QStringLiteral("SELECT count(*) FROM %1").arg(QLatin1String(t)), n))
            graphLaunches += n;
    }
    return graphLaunches;
}

/// Read errors, the kernel table's absence or emptiness, and CUDA graphs.
void tableDiagnostics(const NsysFile &file, const DeviceRead &device, const QStringList &readErrors,
                      qint64 graphLaunches, Diagnostics &diags)
{
    const QString &rel = file.rel;
    for (const QString &e : readErrors)
        diags.push_back(
            {Severity::Error, rel, 0,
             QStringLiteral("read error in %1 (damaged or half-copied file?); the rest of that table is not read")
                 .arg(e)});
    if (!file.has(kKernel))
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("has no %1 table: no CUDA kernels (nsys profile ran without --trace=cuda?)")
                             .arg(QLatin1String(kKernel))});
    else if (device.kernelRows == 0)
        diags.push_back(
            {Severity::Warning, rel, 0, QStringLiteral("holds no kernels (%1 is empty)").arg(QLatin1String(kKernel))});
    if (graphLaunches > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 CUDA graph launches were traced as whole graphs (nsys --cuda-graph-trace=graph): "
                            "the kernels inside them are not in %2, so GPU time is undercounted; profile with "
                            "--cuda-graph-trace=node to see them")
                 .arg(graphLaunches)
                 .arg(QLatin1String(kKernel))});
    if (device.graphKernels > 0)
        diags.push_back(
            {Severity::Info, rel, 0,
             QStringLiteral("%1 of %2 kernels were launched from CUDA graphs (traced node by node: each is read "
                            "as a kernel)")
                 .arg(device.graphKernels)
                 .arg(device.kernelRows)});
}

/// The rows left out, and why.
void rowDiagnostics(const QString &rel, const DeviceRead &device, const dbread::RowCounts &counts,
                    const HostRead &host, Diagnostics &diags)
{
    if (device.noNameRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 kernels whose name is not in StringIds were skipped").arg(device.noNameRows)});
    if (device.nullRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 GPU rows without integer start/end/deviceId were skipped").arg(device.nullRows)});
    if (counts.negativeRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 GPU rows with end before start were skipped").arg(counts.negativeRows)});
    if (counts.zeroRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 kernels with zero duration were skipped (kept on the timeline)").arg(counts.zeroRows)});
    if (counts.implausibleRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 kernels longer than a day (implausible) were skipped").arg(counts.implausibleRows)});
    if (host.badHostRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 runtime/NVTX rows without integer start/end (or ending before they start) were "
                            "skipped")
                 .arg(host.badHostRows)});
    if (host.unnamed > 0)
        diags.push_back({Severity::Info, rel, 0,
                         QStringLiteral("%1 NVTX ranges have neither text nor a textId in StringIds (kept, unnamed)")
                             .arg(host.unnamed)});
}

/// The export's summary line, its GPUs, its CUDA contexts, and what the file check found.
void summaryDiagnostics(const QString &rel, const DeviceRead &device, const dbread::RowCounts &counts,
                        const HostRead &host, const GpusRead &gpus, bool streamOverflow, const QString &sideFiles,
                        Diagnostics &diags)
{
    diags.push_back(
        {Severity::Info, rel, 0,
         QStringLiteral("Nsight Systems export: %1 kernels (%2 used), %3 copies, %4 memsets on %5 GPU(s); "
                        "%6 CUDA runtime calls, %7 NVTX ranges, %8 NVTX marks (%9 other NVTX rows have no time "
                        "span)")
             .arg(device.kernelRows)
             .arg(counts.used)
             .arg(device.copyRows)
             .arg(device.memsetRows)
             .arg(qulonglong(counts.devices.size()))
             .arg(host.runtimeCalls)
             .arg(host.ranges)
             .arg(host.marks)
             .arg(host.notRanges)});
    if (!gpus.lines.isEmpty())
        diags.push_back({Severity::Info, rel, 0,
                         QStringLiteral("TARGET_INFO_GPU: %1").arg(gpus.lines.join(QStringLiteral("; ")))});
    for (qint64 d : counts.devices) {
        int contexts = 0;
        for (const auto &[dev, c] : device.deviceContexts)
            contexts += dev == d;
        if (contexts > 1)
            diags.push_back({Severity::Info, rel, 0,
                             QStringLiteral("GPU %1 ran kernels of %2 CUDA contexts (correlation ids repeat across "
                                            "them; streams are kept as written)")
                                 .arg(d)
                                 .arg(contexts)});
    }
    if (streamOverflow)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("more than 65535 streams on one GPU: the last ones share one timeline lane")});
    if (!sideFiles.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, sideFiles});
}

/// The file's row in the inputs: its dialect and the columns the workbench reads.
void describeFile(InputFileInfo &info, const NsysFile &file, qint64 rowsRead, qint64 skipped)
{
    info.dialect = QStringLiteral("Nsight Systems %1 SQLite export (schema %2)")
                       .arg(file.version.isEmpty() ? QStringLiteral("?") : file.version,
                            file.schemaVersion.isEmpty() ? QStringLiteral("?") : file.schemaVersion);
    info.workbenchColumns = {
        {QStringLiteral("kernel_name"), QStringLiteral("CUPTI_ACTIVITY_KIND_KERNEL.demangledName -> StringIds.value"),
         QStringLiteral("nsys: shortName when demangledName is missing"), QString()},
        {QStringLiteral("start"), QStringLiteral("CUPTI_ACTIVITY_KIND_KERNEL.start"), QStringLiteral("nsys"),
         QStringLiteral("ns")},
        {QStringLiteral("end"), QStringLiteral("CUPTI_ACTIVITY_KIND_KERNEL.end"), QStringLiteral("nsys"),
         QStringLiteral("ns")},
        {QStringLiteral("duration"), QString(), QStringLiteral("computed as end - start"), QStringLiteral("ns")},
        {QStringLiteral("agent"), QStringLiteral("CUPTI_ACTIVITY_KIND_KERNEL.deviceId"),
         QStringLiteral("nsys: \"GPU <deviceId>\""), QString()},
        {QStringLiteral("stream"), QStringLiteral("CUPTI_ACTIVITY_KIND_KERNEL.streamId"), QStringLiteral("nsys"),
         QString()}};
    info.rowsRead = rowsRead;
    info.rowsSkipped = skipped;
}

} // namespace

ReadOutcome readNsysDatabase(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
                              const ProgressCallback &progress)
{
    // Open + schema check.
    DatabaseRow row(path, rel, kFormat, trace);
    dbread::UntrustedConnection source;
    if (const std::optional<dbread::OpenRefusal> no = dbread::openUntrusted(path, source))
        return row.refuse(no->error ? Severity::Error : Severity::Warning, no->message, no->dialect);
    NsysFile file{rel, source, {}, {}, {}, {}, {}, {}, 0};
    const size_t cutMark = sink.names.cutMark();
    if (const std::optional<dbread::OpenRefusal> no = checkSchema(file))
        return row.refuse(no->error ? Severity::Error : Severity::Warning, no->message, no->dialect);
    dbread::RowTicker ticker(progress, file.totalRows, row.info.sizeBytes);

    // Strings → kernels, copies, memsets; sorted by time onto the timeline and into the sums.
    dbread::StringLookup strings(file.db(), QLatin1String(kStrings), QStringLiteral("value"));
    strings.describeWith(file.guard());
    // The window's reading keeps the host side as the Timeline's lanes too.
    std::optional<kernels::HostLanesBuilder> lanes;
    if (sink.keepHostLanes)
        lanes.emplace();
    kernels::HostLanesBuilder *keep = lanes ? &*lanes : nullptr;
    DeviceRead device;
    readKernels(file, strings, sink, ticker, device, keep);
    if (ticker.cancelled())
        return ReadOutcome::Cancelled;
    readTransfers(file, kMemcpy, file.memcpyColumns, GpuEventKind::Memcpy, ticker, device, keep);
    if (!ticker.cancelled())
        readTransfers(file, kMemset, file.memsetColumns, GpuEventKind::Memset, ticker, device, keep);
    if (ticker.cancelled())
        return ReadOutcome::Cancelled;
    dbread::sortRows(device.rows);
    dbread::EventTimeline timeline(QStringLiteral("nsys"), rel);
    KernelReading &w = *sink.workbench.reading;
    w.rowsSkippedNoName += device.noNameRows;
    w.rowsSkippedUnreadable += device.nullRows;
    const dbread::RowCounts counts = dbread::sweepSortedRows(device.rows, device.localNames, sink, timeline);

    // Runtime calls and NVTX markers → host activity.
    HostRead host;
    QStringList &readErrors = device.readErrors;
    readRuntime(file, strings, trace.host, ticker, host, readErrors, keep);
    if (ticker.cancelled())
        return ReadOutcome::Cancelled;
    readNvtx(file, strings, trace.host, ticker, host, readErrors, keep);
    if (ticker.cancelled())
        return ReadOutcome::Cancelled;

    // Finish: diagnostics, the GPUs, the file's row, its timeline.
    Diagnostics &diags = trace.diagnostics;
    if (!strings.error().isEmpty())
        readErrors << QStringLiteral("%1: %2").arg(QLatin1String(kStrings), strings.error());
    if (strings.tooLong() > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 string(s) of %2 are longer than %3, the most one string may hold here: not "
                                        "read, rows naming them were skipped")
                             .arg(strings.tooLong())
                             .arg(QLatin1String(kStrings))
                             .arg(dbread::describeBytes(file.guard().limits().maxValueBytes))});
    host.textCuts.add(strings.cuts());
    host.textCuts.add(sink.names.cutsSince(cutMark));
    if (const QString cut = host.textCuts.message(); !cut.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, cut});
    if (host.runtimeCalls + host.ranges + host.marks > 0) {
        trace.host.files << rel;
        if (host.runtimeCalls > 0)
            trace.host.runtimeName = QStringLiteral("CUDA");
    }
    const GpusRead gpus = readGpus(file);
    const qint64 graphLaunches = countGraphLaunches(file);
    const bool streamOverflow = timeline.streamOverflow();
    const qint64 events = timeline.eventCount();
    GpuTimelineFile timelineFile = timeline.take();
    timelineFile.traits.identity.deviceNames = gpus.names;
    timelineFile.traits.identity.deviceMemoryBytes = gpus.memoryBytes;
    tableDiagnostics(file, device, readErrors, graphLaunches, diags);
    rowDiagnostics(rel, device, counts, host, diags);
    summaryDiagnostics(rel, device, counts, host, gpus, streamOverflow, source.sideFiles, diags);
    describeFile(row.info, file, device.kernelRows, device.nullRows + device.noNameRows + counts.skippedKernels);
    trace.files.push_back(row.info);
    if (events > 0 && lanes && lanes->rangeCount() > 0) {
        if (!host.missingRuntimeColumns.isEmpty())
            diags.push_back({Severity::Info, rel, 0,
                             QStringLiteral("%1 has no column %2: its calls are drawn on the Timeline's host lanes "
                                            "without it (thread 0, no name or no flow to their kernels)")
                                 .arg(QLatin1String(kRuntime), host.missingRuntimeColumns.join(QStringLiteral(", ")))});
        auto built = std::make_shared<HostLanes>(lanes->build());
        kernels::hostLanesSummary(*built, lanes->threadOverflow(), rel, QStringLiteral("%1 and %2").arg(QLatin1String(kRuntime), QLatin1String(kNvtx)), diags);
        timelineFile.hostLanes = std::move(built);
    }
    if (events > 0)
        trace.timeline.files.push_back(std::move(timelineFile));
    if (progress)
        progress(row.info.sizeBytes);
    return ReadOutcome::Read;
}

} // namespace goblin
