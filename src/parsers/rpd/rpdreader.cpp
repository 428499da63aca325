#include "rpdreader.h"

#include "dbcommon.h"
#include "kernels/accumulator.h"
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
constexpr qint64 kProgressRows = 1 << 16;

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

} // namespace

ReadOutcome readRpdDatabase(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
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
    const QStringList unsafe = dbread::unsafeTables(source, {"rocpd_op", "rocpd_api", "rocpd_string"},
                                                    {"rocpd_metadata", "rocpd_ustring", "rocpd_monitor"});
    if (!unsafe.isEmpty())
        return refuse(Severity::Warning,
                      QStringLiteral("has rocmProfileData's table names but %1; not read (a view, a virtual table or a "
                                     "generated column in place of a table is never queried)")
                          .arg(unsafe.join(QStringLiteral(", "))),
                      QStringLiteral("rocmProfileData look-alike"));
    const size_t cutMark = sink.names.cutMark();
    auto isTable = [&](const char *name) {
        const auto it = schema.find(name);
        return it != schema.end() && it->second == "table";
    };

    QString version;
    if (isTable("rocpd_metadata")) {
        QStringList v;
        conn.texts("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version' LIMIT 1", v);
        version = v.value(0).trimmed().left(64);
    }
    // Schema 3 moved the api rows' args (a marker's text) to rocpd_ustring.
    const bool ustring = isTable("rocpd_ustring") && version.toInt() >= 3;
    const QString argsTable = ustring ? QStringLiteral("rocpd_ustring") : QStringLiteral("rocpd_string");
    qint64 opCount = 0, apiCount = 0;
    guard.alive();
    if (!conn.integer(QStringLiteral("SELECT count(*) FROM rocpd_op"), opCount) ||
        !conn.integer(QStringLiteral("SELECT count(*) FROM rocpd_api"), apiCount))
        return refuse(
            Severity::Error,
            QStringLiteral("cannot be read (%1): damaged or half-copied; no kernels read from it").arg(source.error()),
            QStringLiteral("unreadable rocmProfileData database"));
    const qint64 totalRows = opCount + apiCount;
    qint64 rowsSeen = 0;
    bool cancelled = progress && !progress(0);
    auto tick = [&] {
        ++rowsSeen;
        if (progress && rowsSeen % kProgressRows == 0 &&
            !progress(totalRows > 0 ? info.sizeBytes * std::min(rowsSeen, totalRows) / totalRows : 0))
            cancelled = true;
        return !cancelled;
    };

    // ---- Ops: kernels, copies, memsets.
    dbread::StringLookup strings(db, QStringLiteral("rocpd_string"), QStringLiteral("string"));
    strings.describeWith(guard);
    struct TypeInfo {
        OpClass cls = OpClass::Other;
        std::string name;
    };
    std::unordered_map<qint64, TypeInfo> types;
    struct NameInfo {
        bool named = false;
        std::uint32_t globalId = 0;
    };
    std::unordered_map<qint64, NameInfo> kernelNames;
    std::vector<std::string> localNames; ///< copy/memset names (their op type)
    std::unordered_map<std::string, std::uint32_t> localIds;
    std::map<std::string, qint64> otherTypes;
    std::vector<DeviceRow> rows;
    rows.reserve(size_t(std::min<qint64>(opCount, 1 << 20)));
    qint64 opRows = 0, nullRows = 0, noNameRows = 0, noTypeRows = 0, kernelsSeen = 0;
    const bool opsOk =
        dbread::eachRow(db, guard, "SELECT gpuId, queueId, start, \"end\", description_id, opType_id FROM rocpd_op",
                        error, [&](sqlite3_stmt *st) {
                            ++opRows;
                            const qint64 typeId = sqlite3_column_int64(st, 5);
                            auto typeIt = types.find(typeId);
                            if (typeIt == types.end()) {
                                TypeInfo t;
                                const std::optional<std::string> &name = strings.get(typeId);
                                if (name) {
                                    t.name = *name;
                                    t.cls = classifyOp(*name);
                                } else {
                                    t.name = "(no string " + std::to_string(typeId) + ")";
                                }
                                typeIt = types.emplace(typeId, std::move(t)).first;
                            }
                            const TypeInfo &type = typeIt->second;
                            if (type.cls == OpClass::Other) {
                                ++otherTypes[type.name];
                                return tick();
                            }
                            if (type.cls == OpClass::Kernel)
                                ++kernelsSeen;
                            if (!isInteger(st, 2) || !isInteger(st, 3) || !isInteger(st, 0)) {
                                ++nullRows;
                                return tick();
                            }
                            DeviceRow r;
                            r.device = sqlite3_column_int64(st, 0);
                            r.stream = sqlite3_column_int64(st, 1);
                            r.startNs = sqlite3_column_int64(st, 2);
                            r.endNs = sqlite3_column_int64(st, 3);
                            r.order = opRows;
                            if (type.cls == OpClass::Kernel) {
                                const qint64 descId = sqlite3_column_int64(st, 4);
                                auto nameIt = kernelNames.find(descId);
                                if (nameIt == kernelNames.end()) {
                                    NameInfo n;
                                    const std::optional<std::string> &name = strings.get(descId);
                                    if (name && !name->empty()) {
                                        n.named = true;
                                        n.globalId = sink.names.intern(*name);
                                    }
                                    nameIt = kernelNames.emplace(descId, n).first;
                                }
                                if (!nameIt->second.named) {
                                    ++noNameRows;
                                    return tick();
                                }
                                r.nameId = nameIt->second.globalId;
                                r.kind = GpuEventKind::Kernel;
                            } else {
                                auto [it, inserted] = localIds.try_emplace(type.name, std::uint32_t(localNames.size()));
                                if (inserted)
                                    localNames.push_back(type.name);
                                r.nameId = it->second;
                                r.kind = type.cls == OpClass::Memcpy ? GpuEventKind::Memcpy : GpuEventKind::Memset;
                            }
                            rows.push_back(r);
                            return tick();
                        });
    if (cancelled)
        return ReadOutcome::Cancelled;
    if (!opsOk)
        diags.push_back({Severity::Error, rel, 0,
                         QStringLiteral("read error after %1 of %2 rocpd_op rows: %3 (damaged or half-copied file?); "
                                        "the rest is not read")
                             .arg(opRows)
                             .arg(opCount)
                             .arg(error)});
    for (const auto &[id, t] : types)
        if (t.name.rfind("(no string", 0) == 0)
            noTypeRows += otherTypes[t.name];

    // ---- Sorted by time: the timeline, and the workbench's sums in that order.
    dbread::sortRows(rows);
    dbread::EventTimeline timeline(QStringLiteral("rpd"), rel);
    KernelReading &w = *sink.workbench.reading;
    w.rowsSkippedNoName += noNameRows;
    w.rowsSkippedUnreadable += nullRows;
    const dbread::RowCounts counts = dbread::sweepSortedRows(rows, localNames, sink, timeline);
    const qint64 used = counts.used, skipped = nullRows + noNameRows + counts.skippedKernels, zeroRows = counts.zeroRows,
                 negativeRows = counts.negativeRows, implausibleRows = counts.implausibleRows,
                 copyRows = counts.copyRows, memsetRows = counts.memsetRows;

    // ---- Host activity: markers and runtime calls.
    dbread::StringLookup args(db, argsTable, QStringLiteral("string"));
    args.describeWith(guard);
    std::unordered_map<qint64, std::pair<ApiClass, bool>> apiNames; ///< id -> (class, a CUDA name)
    HostActivity &host = trace.host;
    qint64 apiRows = 0, runtimeCalls = 0, cudaCalls = 0, overheadRows = 0, markers = 0, badApiRows = 0;
    std::map<std::string, qint64> overheadNames;
    const bool apiOk = dbread::eachRow(
        db, guard, "SELECT pid, tid, start, \"end\", apiName_id, args_id FROM rocpd_api", error, [&](sqlite3_stmt *st) {
            ++apiRows;
            const qint64 nameId = sqlite3_column_int64(st, 4);
            auto it = apiNames.find(nameId);
            if (it == apiNames.end()) {
                const std::optional<std::string> &name = strings.get(nameId);
                const std::string n = name ? *name : std::string();
                const ApiClass cls = n.empty() ? ApiClass::Overhead : classifyApi(n);
                if (cls == ApiClass::Overhead)
                    overheadNames.emplace(n.empty() ? "(no name)" : n, 0);
                it = apiNames.emplace(nameId, std::make_pair(cls, n.rfind("cu", 0) == 0)).first;
            }
            const ApiClass cls = it->second.first;
            if (cls == ApiClass::Overhead) {
                ++overheadRows;
                return tick();
            }
            if (!isInteger(st, 2) || !isInteger(st, 3) || sqlite3_column_int64(st, 3) < sqlite3_column_int64(st, 2)) {
                ++badApiRows;
                return tick();
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
                host.ranges.push_back(m);
                ++markers;
            } else {
                host.runtimeCalls.push_back({startNs, endNs});
                ++runtimeCalls;
                cudaCalls += it->second.second;
            }
            return tick();
        });
    if (cancelled)
        return ReadOutcome::Cancelled;
    if (!apiOk)
        diags.push_back({Severity::Error, rel, 0,
                         QStringLiteral("read error after %1 of %2 rocpd_api rows: %3 (damaged or half-copied file?); "
                                        "the rest of the host activity is not read")
                             .arg(apiRows)
                             .arg(apiCount)
                             .arg(error)});
    if (!strings.error().isEmpty() || !args.error().isEmpty())
        diags.push_back({Severity::Error, rel, 0,
                         QStringLiteral("strings could not be read (%1); rows naming them were skipped")
                             .arg(strings.error().isEmpty() ? args.error() : strings.error())});
    if (const qint64 tooLong = strings.tooLong() + args.tooLong(); tooLong > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 string(s) are longer than %2, the most one string may hold here: not read, "
                                        "rows naming them were skipped")
                             .arg(tooLong)
                             .arg(dbread::describeBytes(guard.limits().maxValueBytes))});
    kernels::NameCuts cuts = sink.names.cutsSince(cutMark);
    cuts.add(strings.cuts());
    cuts.add(args.cuts());
    if (const QString cut = cuts.message(); !cut.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, cut});
    if (markers + runtimeCalls > 0) {
        host.files << rel;
        if (cudaCalls * 2 > runtimeCalls)
            host.runtimeName = QStringLiteral("CUDA");
    }

    // ---- rocpd_monitor: counted only (the model has no place for clock samples).
    qint64 monitorRows = 0;
    QStringList monitorKinds;
    if (isTable("rocpd_monitor")) {
        dbread::eachRow(
            // Grouped by a short prefix: the sorter keeps a few bytes per kind, whatever the file holds.
            db, guard, "SELECT substr(monitorType, 1, 64), count(*) FROM rocpd_monitor GROUP BY 1", error,
            [&](sqlite3_stmt *st) {
                const auto *t = reinterpret_cast<const char *>(sqlite3_column_text(st, 0));
                monitorRows += sqlite3_column_int64(st, 1);
                if (monitorKinds.size() < 16)
                    monitorKinds
                        << QStringLiteral("%1 %2").arg(sqlite3_column_int64(st, 1)).arg(QString::fromUtf8(t ? t : "?"));
                else if (monitorKinds.size() == 16)
                    monitorKinds << QStringLiteral("...");
                return true;
            });
    }

    // ---- What the rows said.
    const bool streamOverflow = timeline.streamOverflow();
    const qint64 events = timeline.eventCount();
    GpuTimelineFile timelineFile = timeline.take();
    if (kernelsSeen == 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("holds no kernel executions (rocpd_op has %1 rows, none of type KernelExecution "
                            "or Task)")
                 .arg(opCount)});
    if (noNameRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 kernel ops without a kernel name (description) were skipped").arg(noNameRows)});
    if (nullRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 ops without integer gpuId/start/end were skipped").arg(nullRows)});
    if (negativeRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0, QStringLiteral("%1 ops with end before start were skipped").arg(negativeRows)});
    if (zeroRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 kernels with zero duration were skipped (kept on the timeline)").arg(zeroRows)});
    if (implausibleRows > 0)
        diags.push_back(
            {Severity::Warning, rel, 0,
             QStringLiteral("%1 kernels longer than a day (implausible) were skipped").arg(implausibleRows)});
    if (!otherTypes.empty()) {
        QStringList parts;
        for (const auto &[name, n] : otherTypes)
            parts << QStringLiteral("%1 %2").arg(n).arg(QString::fromStdString(name));
        diags.push_back({noTypeRows > 0 ? Severity::Warning : Severity::Info, rel, 0,
                         QStringLiteral("ops of other types are not GPU work the workbench counts: %1")
                             .arg(parts.join(QStringLiteral(", ")))});
    }
    if (overheadRows > 0) {
        QStringList names;
        for (const auto &[name, n] : overheadNames)
            names << QString::fromStdString(name);
        diags.push_back({Severity::Info, rel, 0,
                         QStringLiteral("%1 rocpd_api rows are rpd_tracer's own overhead records (%2), not runtime "
                                        "calls: left out of the host activity")
                             .arg(overheadRows)
                             .arg(names.mid(0, 6).join(QStringLiteral(", ")) +
                                  (names.size() > 6 ? QStringLiteral(", ...") : QString()))});
    }
    if (badApiRows > 0)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("%1 rocpd_api rows without integer start/end (or ending before they start) "
                                        "were skipped")
                             .arg(badApiRows)});
    diags.push_back({Severity::Info, rel, 0,
                     QStringLiteral("rocmProfileData: %1 kernels (%2 used), %3 copies, %4 memsets on %5 GPU(s); "
                                    "%6 %7 runtime calls, %8 marker ranges/marks")
                         .arg(kernelsSeen)
                         .arg(used)
                         .arg(copyRows)
                         .arg(memsetRows)
                         .arg(qulonglong(timelineFile.devices.size()))
                         .arg(runtimeCalls)
                         .arg(cudaCalls * 2 > runtimeCalls ? QStringLiteral("CUDA") : QStringLiteral("HIP"))
                         .arg(markers)});
    if (monitorRows > 0)
        diags.push_back({Severity::Info, rel, 0,
                         QStringLiteral("%1 rocpd_monitor samples (%2) are not read: the workbench takes clocks and "
                                        "power from amd_smi.csv only")
                             .arg(monitorRows)
                             .arg(monitorKinds.join(QStringLiteral(", ")))});
    if (streamOverflow)
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("more than 65535 queues on one GPU: the last ones share one timeline lane")});
    if (!sideFiles.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, sideFiles});

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
    info.rowsRead = opRows;
    info.rowsSkipped = skipped;
    trace.files.push_back(info);
    if (events > 0)
        trace.timeline.files.push_back(std::move(timelineFile));
    if (progress)
        progress(info.sizeBytes);
    return ReadOutcome::Read;
}

} // namespace goblin
