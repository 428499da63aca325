#include "nsysreader.h"

#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "rocpd/rocpdfile.h"
#include "rpd/dbcommon.h"

#include <QFileInfo>

#include <climits>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

namespace goblin
{

namespace
{

using dbread::DeviceRow;

const QString kFormat = QStringLiteral("nsys-sqlite");
constexpr qint64 kProgressRows = 1 << 16;

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

} // namespace

ReadOutcome readNsysDatabase(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
                              const ProgressCallback &progress)
{
    Diagnostics &diags = trace.diagnostics;
    DatabaseRow row(path, rel, kFormat, trace);
    InputFileInfo &info = row.info;
    auto refuse = [&row](Severity severity, const QString &message, const QString &dialect) {
        return row.refuse(severity, message, dialect);
    };
    dbread::UntrustedConnection source;
    if (const std::optional<dbread::OpenRefusal> no = dbread::openUntrusted(path, source))
        return refuse(no->error ? Severity::Error : Severity::Warning, no->message, no->dialect);
    rocpd::Connection &conn = source.conn;
    sqlite3 *db = conn.handle();
    dbread::Guard &guard = *source.guard;
    const dbread::SchemaObjects &schema = source.schema;
    const QString &sideFiles = source.sideFiles;
    QString error;
    // Every table read must be a plain table without generated columns: a view, a virtual table
    // or a computed column of the same name is never queried.
    std::vector<const char *> present{kStrings};
    for (const char *t : {kKernel, kMemcpy, kMemset, kRuntime, kNvtx, kGpus})
        if (schema.count(t))
            present.push_back(t);
    const QStringList unsafe = dbread::unsafeTables(
        source, present,
        {"EXPORT_META_DATA", "META_DATA_EXPORT", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUDA_GRAPH_TRACE"});
    if (!unsafe.isEmpty())
        return refuse(Severity::Warning,
                      QStringLiteral("has Nsight Systems' table names but %1; not read (a view, a virtual table or a "
                                     "generated column in place of a table is never queried)")
                          .arg(unsafe.join(QStringLiteral(", "))),
                      QStringLiteral("Nsight Systems look-alike"));
    const size_t cutMark = sink.names.cutMark();
    kernels::NameCuts textCuts; // NVTX texts read from their own column
    auto has = [&](const char *t) { return schema.count(t) > 0; };

    // ---- Which columns this export has.
    QStringList kernelColumns, memcpyColumns, memsetColumns, nvtxColumns;
    if (has(kKernel)) {
        kernelColumns = dbread::columnsOf(conn, QLatin1String(kKernel));
        QStringList missing;
        for (const char *c : {"start", "end", "deviceId", "streamId"})
            if (!kernelColumns.contains(QLatin1String(c)))
                missing << QLatin1String(c);
        if (!kernelColumns.contains(QStringLiteral("demangledName")) &&
            !kernelColumns.contains(QStringLiteral("shortName")))
            missing << QStringLiteral("demangledName/shortName");
        if (!missing.isEmpty())
            return refuse(Severity::Warning,
                          QStringLiteral("%1 has no column %2 (not an nsys export this reader knows); no kernels read "
                                         "from it")
                              .arg(QLatin1String(kKernel), missing.join(QStringLiteral(", "))),
                          QStringLiteral("Nsight Systems export, unknown layout"));
    }
    if (has(kMemcpy))
        memcpyColumns = dbread::columnsOf(conn, QLatin1String(kMemcpy));
    if (has(kMemset))
        memsetColumns = dbread::columnsOf(conn, QLatin1String(kMemset));
    if (has(kNvtx))
        nvtxColumns = dbread::columnsOf(conn, QLatin1String(kNvtx));

    QString version, schemaVersion;
    for (const char *meta : {"EXPORT_META_DATA", "META_DATA_EXPORT"}) {
        const auto it = schema.find(meta);
        if (it == schema.end() || it->second != "table")
            continue;
        QStringList v, s;
        conn.texts(QStringLiteral("SELECT value FROM %1 WHERE name = 'EXPORT_PRODUCT_VERSION' LIMIT 1")
                       .arg(QLatin1String(meta))
                       .toUtf8()
                       .constData(),
                   v);
        conn.texts(QStringLiteral("SELECT value FROM %1 WHERE name = 'EXPORT_SCHEMA_VERSION' LIMIT 1")
                       .arg(QLatin1String(meta))
                       .toUtf8()
                       .constData(),
                   s);
        version = v.value(0).left(64);
        schemaVersion = s.value(0).left(64);
    }

    qint64 totalRows = 0;
    std::map<std::string, qint64> counts;
    for (const char *t : {kKernel, kMemcpy, kMemset, kRuntime, kNvtx}) {
        if (!has(t))
            continue;
        qint64 n = 0;
        guard.alive();
        if (!conn.integer(QStringLiteral("SELECT count(*) FROM %1").arg(QLatin1String(t)), n))
            return refuse(Severity::Error,
                          QStringLiteral("cannot be read (%1): damaged or half-copied; no kernels read from it")
                              .arg(source.error()),
                          QStringLiteral("unreadable Nsight Systems export"));
        counts[t] = n;
        totalRows += n;
    }
    qint64 rowsSeen = 0;
    bool cancelled = progress && !progress(0);
    auto tick = [&] {
        ++rowsSeen;
        if (progress && rowsSeen % kProgressRows == 0 &&
            !progress(totalRows > 0 ? info.sizeBytes * std::min(rowsSeen, totalRows) / totalRows : 0))
            cancelled = true;
        return !cancelled;
    };
    QStringList readErrors;

    // ---- Kernels.
    dbread::StringLookup strings(db, QLatin1String(kStrings), QStringLiteral("value"));
    strings.describeWith(guard);
    struct NameInfo {
        bool named = false;
        std::uint32_t globalId = 0;
    };
    std::unordered_map<qint64, NameInfo> kernelNames;
    std::vector<DeviceRow> rows;
    qint64 kernelRows = 0, nullRows = 0, noNameRows = 0, graphKernels = 0, order = 0;
    std::set<std::pair<qint64, qint64>> deviceContexts;
    if (has(kKernel)) {
        const bool demangled = kernelColumns.contains(QStringLiteral("demangledName"));
        const QString graphColumn = kernelColumns.contains(QStringLiteral("graphId")) ? QStringLiteral("graphId")
                                                                                      : QStringLiteral("graphNodeId");
        const QByteArray sql = QStringLiteral("SELECT start, \"end\", deviceId, streamId, %1, %2, %3, %4, %5 FROM %6")
                                   .arg(demangled ? QStringLiteral("demangledName") : QStringLiteral("shortName"),
                                        columnOrNull(kernelColumns, demangled ? "shortName" : "demangledName"),
                                        columnOrNull(kernelColumns, "globalPid"),
                                        columnOrNull(kernelColumns, graphColumn.toLatin1().constData()),
                                        columnOrNull(kernelColumns, "contextId"), QLatin1String(kKernel))
                                   .toUtf8();
        auto nameOf = [&](qint64 id, NameInfo &n) {
            const std::optional<std::string> &name = strings.get(id);
            if (name && !name->empty()) {
                n.named = true;
                n.globalId = sink.names.intern(*name);
            }
        };
        if (!dbread::eachRow(db, guard, sql, error, [&](sqlite3_stmt *st) {
                ++kernelRows;
                if (!isInteger(st, 0) || !isInteger(st, 1) || !isInteger(st, 2)) {
                    ++nullRows;
                    return tick();
                }
                if (sqlite3_column_type(st, 7) != SQLITE_NULL)
                    ++graphKernels;
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
                    ++noNameRows;
                    return tick();
                }
                DeviceRow r;
                r.startNs = sqlite3_column_int64(st, 0);
                r.endNs = sqlite3_column_int64(st, 1);
                r.device = sqlite3_column_int64(st, 2);
                r.stream = sqlite3_column_int64(st, 3);
                r.pid = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : pidOf(sqlite3_column_int64(st, 6));
                r.nameId = name.globalId;
                r.kind = GpuEventKind::Kernel;
                r.order = ++order;
                deviceContexts.emplace(r.device, sqlite3_column_int64(st, 8));
                rows.push_back(r);
                return tick();
            }))
            readErrors << QStringLiteral("%1 after %2 rows: %3").arg(QLatin1String(kKernel)).arg(kernelRows).arg(error);
    }
    if (cancelled)
        return ReadOutcome::Cancelled;

    // ---- Copies and memsets (timeline only).
    std::vector<std::string> localNames;
    std::unordered_map<std::string, std::uint32_t> localIds;
    qint64 copyRows = 0, memsetRows = 0;
    auto readTransfers = [&](const char *table, const QStringList &columns, GpuEventKind kind, qint64 &count) {
        if (!has(table))
            return;
        const QByteArray sql =
            QStringLiteral("SELECT start, \"end\", deviceId, streamId, %1, %2 FROM %3")
                .arg(kind == GpuEventKind::Memcpy ? columnOrNull(columns, "copyKind") : QStringLiteral("NULL"),
                     columnOrNull(columns, "globalPid"), QLatin1String(table))
                .toUtf8();
        qint64 seen = 0;
        if (!dbread::eachRow(db, guard, sql, error, [&](sqlite3_stmt *st) {
                ++seen;
                if (!isInteger(st, 0) || !isInteger(st, 1) || !isInteger(st, 2)) {
                    ++nullRows;
                    return tick();
                }
                const std::string name = kind == GpuEventKind::Memset ? std::string("Memset")
                                         : isInteger(st, 4)           ? copyName(sqlite3_column_int64(st, 4))
                                                                      : std::string("Memcpy");
                auto [it, inserted] = localIds.try_emplace(name, std::uint32_t(localNames.size()));
                if (inserted)
                    localNames.push_back(name);
                DeviceRow r;
                r.startNs = sqlite3_column_int64(st, 0);
                r.endNs = sqlite3_column_int64(st, 1);
                r.device = sqlite3_column_int64(st, 2);
                r.stream = sqlite3_column_int64(st, 3);
                r.pid = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : pidOf(sqlite3_column_int64(st, 5));
                r.nameId = it->second;
                r.kind = kind;
                r.order = ++order;
                rows.push_back(r);
                ++count;
                return tick();
            }))
            readErrors << QStringLiteral("%1 after %2 rows: %3").arg(QLatin1String(table)).arg(seen).arg(error);
    };
    readTransfers(kMemcpy, memcpyColumns, GpuEventKind::Memcpy, copyRows);
    if (!cancelled)
        readTransfers(kMemset, memsetColumns, GpuEventKind::Memset, memsetRows);
    if (cancelled)
        return ReadOutcome::Cancelled;

    // ---- Sorted by time: the timeline, and the workbench's sums in that order.
    dbread::sortRows(rows);
    dbread::EventTimeline timeline(QStringLiteral("nsys"), rel);
    KernelReading &w = *sink.workbench.reading;
    w.rowsSkippedNoName += noNameRows;
    w.rowsSkippedUnreadable += nullRows;
    const dbread::RowCounts rowCounts = dbread::sweepSortedRows(rows, localNames, sink, timeline);
    const qint64 used = rowCounts.used, skipped = nullRows + noNameRows + rowCounts.skippedKernels, zeroRows = rowCounts.zeroRows,
                 negativeRows = rowCounts.negativeRows, implausibleRows = rowCounts.implausibleRows;
    const std::set<qint64> &devices = rowCounts.devices;

    // ---- Host activity: CUDA runtime calls, NVTX ranges.
    HostActivity &host = trace.host;
    qint64 runtimeCalls = 0, badHostRows = 0, ranges = 0, marks = 0, notRanges = 0, unnamed = 0;
    if (has(kRuntime)) {
        qint64 seen = 0;
        if (!dbread::eachRow(
                db, guard, QByteArray("SELECT start, \"end\" FROM ") + kRuntime, error, [&](sqlite3_stmt *st) {
                    ++seen;
                    if (!isInteger(st, 0) || !isInteger(st, 1) ||
                        sqlite3_column_int64(st, 1) < sqlite3_column_int64(st, 0)) {
                        ++badHostRows;
                        return tick();
                    }
                    host.runtimeCalls.push_back({sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)});
                    ++runtimeCalls;
                    return tick();
                }))
            readErrors << QStringLiteral("%1 after %2 rows: %3").arg(QLatin1String(kRuntime)).arg(seen).arg(error);
    }
    if (cancelled)
        return ReadOutcome::Cancelled;
    if (has(kNvtx)) {
        const QByteArray sql =
            QStringLiteral("SELECT start, \"end\", %1, %2, %3, %4 FROM %5")
                .arg(columnOrNull(nvtxColumns, "eventType"), columnOrNull(nvtxColumns, "text"),
                     columnOrNull(nvtxColumns, "textId"), columnOrNull(nvtxColumns, "globalTid"), QLatin1String(kNvtx))
                .toUtf8();
        qint64 seen = 0;
        if (!dbread::eachRow(db, guard, sql, error, [&](sqlite3_stmt *st) {
                ++seen;
                const bool instant = sqlite3_column_type(st, 1) == SQLITE_NULL;
                if (instant && !(isInteger(st, 2) && sqlite3_column_int64(st, 2) == kNvtxMark)) {
                    ++notRanges; // domain, category and thread names: no time span
                    return tick();
                }
                if (!isInteger(st, 0) ||
                    (!instant && (!isInteger(st, 1) || sqlite3_column_int64(st, 1) < sqlite3_column_int64(st, 0)))) {
                    ++badHostRows;
                    return tick();
                }
                MarkerRange m;
                if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
                    const std::string_view text = dbread::trimmedView(
                        reinterpret_cast<const char *>(sqlite3_column_text(st, 3)), sqlite3_column_bytes(st, 3));
                    if (text.size() > kernels::kMaxNameBytes) {
                        textCuts.add(text.size());
                        m.name = QString::fromStdString(kernels::cutName(text));
                    } else {
                        m.name = QString::fromUtf8(text.data(), qsizetype(text.size()));
                    }
                } else if (isInteger(st, 4)) {
                    const std::optional<std::string> &text = strings.get(sqlite3_column_int64(st, 4));
                    if (text)
                        m.name = QString::fromStdString(*text);
                }
                if (m.name.isEmpty())
                    ++unnamed;
                const qint64 tid = sqlite3_column_int64(st, 5);
                m.process = pidOf(tid);
                m.thread = tidOf(tid);
                m.startNs = sqlite3_column_int64(st, 0);
                m.endNs = instant ? m.startNs : sqlite3_column_int64(st, 1);
                host.ranges.push_back(m);
                ++(instant ? marks : ranges);
                return tick();
            }))
            readErrors << QStringLiteral("%1 after %2 rows: %3").arg(QLatin1String(kNvtx)).arg(seen).arg(error);
    }
    if (cancelled)
        return ReadOutcome::Cancelled;
    if (!strings.error().isEmpty())
        readErrors << QStringLiteral("%1: %2").arg(QLatin1String(kStrings), strings.error());
    if (strings.tooLong() > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 string(s) of %2 are longer than %3, the most one string may hold here: not "
                                        "read, rows naming them were skipped")
                             .arg(strings.tooLong())
                             .arg(QLatin1String(kStrings))
                             .arg(dbread::describeBytes(guard.limits().maxValueBytes))});
    textCuts.add(strings.cuts());
    textCuts.add(sink.names.cutsSince(cutMark));
    if (const QString cut = textCuts.message(); !cut.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, cut});
    if (runtimeCalls + ranges + marks > 0) {
        host.files << rel;
        if (runtimeCalls > 0)
            host.runtimeName = QStringLiteral("CUDA");
    }

    // ---- The GPUs, and CUDA graphs.
    QStringList gpus;
    QStringList gpuNames;              // the file's own model and memory, for the run's device facts
    std::vector<qint64> gpuMemoryBytes;
    if (has(kGpus)) {
        const QStringList gpuColumns = dbread::columnsOf(conn, QLatin1String(kGpus));
        const QByteArray sql = QStringLiteral("SELECT %1, %2, %3 FROM %4")
                                   .arg(columnOrNull(gpuColumns, "id"), columnOrNull(gpuColumns, "name"),
                                        columnOrNull(gpuColumns, "totalMemory"), QLatin1String(kGpus))
                                   .toUtf8() +
                               " ORDER BY 1";
        dbread::eachRow(db, guard, sql, error, [&](sqlite3_stmt *st) {
            const auto *name = reinterpret_cast<const char *>(sqlite3_column_text(st, 1));
            const int nameBytes = std::min(sqlite3_column_bytes(st, 1), 256); // a GPU's name is short
            QString text = QStringLiteral("GPU %1: %2")
                               .arg(sqlite3_column_int64(st, 0))
                               .arg(name ? QString::fromUtf8(name, nameBytes) : QStringLiteral("?"));
            if (isInteger(st, 2))
                text += QStringLiteral(" (%1)").arg(dbread::describeBytes(sqlite3_column_int64(st, 2)));
            gpus << text;
            gpuNames << (name ? QString::fromUtf8(name, nameBytes) : QString());
            gpuMemoryBytes.push_back(isInteger(st, 2) ? std::max<qint64>(0, sqlite3_column_int64(st, 2)) : 0);
            return gpus.size() < 64;
        });
    }
    qint64 graphLaunches = 0;
    for (const char *t : {"CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUDA_GRAPH_TRACE"}) {
        const auto it = schema.find(t);
        qint64 n = 0;
        guard.alive();
        if (it != schema.end() && it->second == "table" &&
            conn.integer(QStringLiteral("SELECT count(*) FROM %1").arg(QLatin1String(t)), n))
            graphLaunches += n;
    }

    // ---- What the rows said.
    const bool streamOverflow = timeline.streamOverflow();
    const qint64 events = timeline.eventCount();
    GpuTimelineFile timelineFile = timeline.take();
    timelineFile.traits.identity.deviceNames = gpuNames;
    timelineFile.traits.identity.deviceMemoryBytes = gpuMemoryBytes;
    for (const QString &e : readErrors)
        diags.push_back(
            {Severity::Error, rel, 0,
             QStringLiteral("read error in %1 (damaged or half-copied file?); the rest of that table is not read")
                 .arg(e)});
    if (!has(kKernel))
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("has no %1 table: no CUDA kernels (nsys profile ran without --trace=cuda?)")
                             .arg(QLatin1String(kKernel))});
    else if (kernelRows == 0)
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
    if (graphKernels > 0)
        diags.push_back(
            {Severity::Info, rel, 0,
             QStringLiteral("%1 of %2 kernels were launched from CUDA graphs (traced node by node: each is read "
                            "as a kernel)")
                 .arg(graphKernels)
                 .arg(kernelRows)});
    if (noNameRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 kernels whose name is not in StringIds were skipped").arg(noNameRows)});
    if (nullRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 GPU rows without integer start/end/deviceId were skipped").arg(nullRows)});
    if (negativeRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 GPU rows with end before start were skipped").arg(negativeRows)});
    if (zeroRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 kernels with zero duration were skipped (kept on the timeline)").arg(zeroRows)});
    if (implausibleRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 kernels longer than a day (implausible) were skipped").arg(implausibleRows)});
    if (badHostRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 runtime/NVTX rows without integer start/end (or ending before they start) were "
                            "skipped")
                 .arg(badHostRows)});
    if (unnamed > 0)
        diags.push_back({Severity::Info, rel, 0,
                         QStringLiteral("%1 NVTX ranges have neither text nor a textId in StringIds (kept, unnamed)")
                             .arg(unnamed)});
    diags.push_back(
        {Severity::Info, rel, 0,
         QStringLiteral("Nsight Systems export: %1 kernels (%2 used), %3 copies, %4 memsets on %5 GPU(s); "
                        "%6 CUDA runtime calls, %7 NVTX ranges, %8 NVTX marks (%9 other NVTX rows have no time "
                        "span)")
             .arg(kernelRows)
             .arg(used)
             .arg(copyRows)
             .arg(memsetRows)
             .arg(qulonglong(devices.size()))
             .arg(runtimeCalls)
             .arg(ranges)
             .arg(marks)
             .arg(notRanges)});
    if (!gpus.isEmpty())
        diags.push_back(
            {Severity::Info, rel, 0, QStringLiteral("TARGET_INFO_GPU: %1").arg(gpus.join(QStringLiteral("; ")))});
    for (qint64 device : devices) {
        int contexts = 0;
        for (const auto &[d, c] : deviceContexts)
            contexts += d == device;
        if (contexts > 1)
            diags.push_back(
                {Severity::Info, rel, 0,
                 QStringLiteral("GPU %1 ran kernels of %2 CUDA contexts (correlation ids repeat across them; "
                                "streams are kept as written)")
                     .arg(device)
                     .arg(contexts)});
    }
    if (streamOverflow)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("more than 65535 streams on one GPU: the last ones share one timeline lane")});
    if (!sideFiles.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, sideFiles});

    info.dialect = QStringLiteral("Nsight Systems %1 SQLite export (schema %2)")
                       .arg(version.isEmpty() ? QStringLiteral("?") : version,
                            schemaVersion.isEmpty() ? QStringLiteral("?") : schemaVersion);
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
    info.rowsRead = kernelRows;
    info.rowsSkipped = skipped;
    trace.files.push_back(info);
    if (events > 0)
        trace.timeline.files.push_back(std::move(timelineFile));
    if (progress)
        progress(info.sizeBytes);
    return ReadOutcome::Read;
}

} // namespace goblin
