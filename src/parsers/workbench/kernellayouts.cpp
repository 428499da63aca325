#include "workbench/kernellayouts.h"

#include "columnresolver.h"

#include <QSet>

#include <initializer_list>

namespace goblin::workbench
{

namespace
{

/// A file that looks like a kernel trace but is not one: refused when every `allOf` column
/// and (if any are listed) one `anyOf` column is present (names lower-cased).
struct LookAlike {
    std::initializer_list<const char *> allOf;
    std::initializer_list<const char *> anyOf;
    const char *dialect;
    const char *why;
};

const LookAlike kLookAlikes[] = {
    {{"calls"},
     {"totaldurationns", "averagens", "percentage"},
     "rocprof statistics file",
     "a statistics file (Name, Calls, TotalDurationNs, ...): one row per kernel name with summed times, not one "
     "row per dispatch; not read as a kernel trace"},
    {{"node_id"},
     {"agent_type", "logical_node_id"},
     "rocprofv3 agent_info",
     "an agent_info file (Node_Id, Agent_Type, ..., Name): one row per CPU/GPU agent, not kernel dispatches; not "
     "read as a kernel trace"},
    {{"domain", "function"},
     {},
     "API trace",
     "an API trace (Domain, Function, ...): host API calls, not GPU kernel dispatches; not read as a kernel trace"},
    {{"domain", "operation"},
     {},
     "rocprofv2 async-copy/API trace",
     "a rocprofv2 async-copy or API trace (Domain, Operation, ...), not kernel dispatches; not read as a kernel "
     "trace"},
    {{"direction"},
     {},
     "rocprofv3 memory copy trace",
     "a memory copy trace (Direction, Source_Agent_Id, ...), not kernel dispatches; not read as a kernel trace"},
    {{"source_agent_id", "destination_agent_id"},
     {},
     "rocprofv3 memory copy trace",
     "a memory copy trace (Direction, Source_Agent_Id, ...), not kernel dispatches; not read as a kernel trace"},
    {{},
     {"counter_name", "counter_value"},
     "rocprofv3 counter collection",
     "a counter-collection file: one row per counter per dispatch, so every kernel would be counted once per "
     "counter; not read as a kernel trace"},
    {{"allocation_size"},
     {},
     "rocprofv3 memory allocation trace",
     "a memory allocation trace, not kernel dispatches; not read as a kernel trace"},
};

/// rocprofv3 releases (Start/End_Timestamp, Kind, Agent_Id), newest first: the first row with
/// one of its marker columns present names the release and its column count. A leading Guid
/// column (rocpd2csv) is checked before this table.
struct Release {
    std::initializer_list<const char *> anyOf; ///< empty: the oldest release, matches always
    const char *dialect;
    int columns;
};

const Release kReleases[] = {
    {{"lds_block_size", "vgpr_count"}, "rocprofv3 ROCm 7.x", 22},
    {{"stream_id"}, "rocprofv3 development build with Stream_Id", 19},
    {{"thread_id", "dispatch_id"}, "rocprofv3 ROCm 6.3/6.4", 18},
    {{}, "rocprofv3 ROCm 6.2", 16},
};

} // namespace

KernelLayout detectKernelLayout(const QStringList &header, const QString &fileName)
{
    KernelLayout l;
    l.repeated = repeatedColumns(header);
    QSet<QString> names;
    for (const QString &h : header)
        names.insert(h.trimmed().toLower());
    auto has = [&](const char *n) { return names.contains(QLatin1String(n)); };
    const int count = int(header.size());
    auto refuse = [&](const QString &dialect, const QString &why) {
        l.recognised = true;
        l.dialect = dialect;
        l.problem = why;
        return l;
    };

    auto hasAny = [&](std::initializer_list<const char *> list) {
        for (const char *n : list)
            if (has(n))
                return true;
        return list.size() == 0;
    };
    auto hasAll = [&](std::initializer_list<const char *> list) {
        for (const char *n : list)
            if (!has(n))
                return false;
        return true;
    };
    for (const LookAlike &a : kLookAlikes)
        if (hasAll(a.allOf) && hasAny(a.anyOf))
            return refuse(QString::fromLatin1(a.dialect), QString::fromLatin1(a.why));

    auto choose = [&](const QString &role, const ResolvedColumn &c, const QString &unit) {
        l.columns.push_back(
            {role, c.name, QStringLiteral("exact column name '%1' of the %2 layout").arg(c.name, l.dialect), unit});
    };

    if (has("start (ns)") && has("duration (ns)") && has("name")) {
        const ResolvedColumn name = resolveExactColumn(header, {QStringLiteral("Name")});
        const ResolvedColumn start = resolveExactColumn(header, {QStringLiteral("Start (ns)")});
        const ResolvedColumn dur = resolveExactColumn(header, {QStringLiteral("Duration (ns)")});
        const ResolvedColumn agent = resolveExactColumn(header, {QStringLiteral("Device")});
        l.recognised = l.usable = true;
        l.nsys = true;
        l.dialect = QStringLiteral("nsys cuda_gpu_trace (%1 columns)").arg(count);
        l.name = name.index;
        l.start = start.index;
        l.duration = dur.index;
        l.agent = agent.index;
        l.timing = Timing::StartPlusDuration;
        l.startName = start.name;
        l.durationName = dur.name;
        choose(QStringLiteral("kernel_name"), name, QString());
        choose(QStringLiteral("start"), start, QStringLiteral("ns"));
        choose(QStringLiteral("duration"), dur, QStringLiteral("ns"));
        if (agent.found())
            choose(QStringLiteral("agent"), agent, QString());
        return l;
    }

    const ResolvedColumn name = resolveExactColumn(
        header, {QStringLiteral("Kernel_Name"), QStringLiteral("KernelName"), QStringLiteral("kernel_name")});
    if (!name.found()) {
        if (has("name"))
            return refuse(QStringLiteral("CSV with a Name column"),
                          QStringLiteral("has a Name column but no Kernel_Name/KernelName column and no kernel "
                                         "timing columns; not a kernel trace"));
        l.problem = QStringLiteral("no recognisable kernel-trace header");
        return l;
    }
    const ResolvedColumn start =
        resolveExactColumn(header, {QStringLiteral("Start_Timestamp"), QStringLiteral("BeginNs")});
    const ResolvedColumn end = resolveExactColumn(header, {QStringLiteral("End_Timestamp"), QStringLiteral("EndNs")});
    const ResolvedColumn agent =
        resolveExactColumn(header, {QStringLiteral("Agent_Id"), QStringLiteral("gpu-id"), QStringLiteral("GPU_ID")});
    const bool v3Timestamps = has("start_timestamp") && has("end_timestamp");
    const bool v1Timestamps = has("beginns") && has("endns");
    ResolvedColumn duration;

    l.recognised = true;
    if (v3Timestamps && has("kind") && has("agent_id")) {
        int expected = 0;
        if (!header.isEmpty() && header.front().trimmed().compare(QLatin1String("Guid"), Qt::CaseInsensitive) == 0) {
            l.dialect = QStringLiteral("rocprofv3 ROCm 7.x converted from rocpd (leading Guid)");
            expected = 23;
        } else {
            for (const Release &r : kReleases)
                if (hasAny(r.anyOf)) {
                    l.dialect = QString::fromLatin1(r.dialect);
                    expected = r.columns;
                    break;
                }
        }
        l.dialect += count == expected
                         ? QStringLiteral(" (%1 columns)").arg(count)
                         : QStringLiteral(" (%1 columns; that release writes %2)").arg(count).arg(expected);
    } else if (v3Timestamps && has("dispatchns")) {
        l.dialect =
            QStringLiteral("rocprofiler-compute timestamps.csv (renamed rocprof columns, %1 columns)").arg(count);
    } else if (v3Timestamps && has("gpu_id")) {
        l.dialect =
            fileName.compare(QLatin1String("timestamps.csv"), Qt::CaseInsensitive) == 0
                ? QStringLiteral("rocprofiler-compute timestamps.csv (rocprofv2 columns, %1 columns)").arg(count)
                : QStringLiteral("rocprofv2 kernel trace (file plugin, %1 columns)").arg(count);
    } else if (v1Timestamps) {
        l.dialect = has("durationns")
                        ? QStringLiteral("rocprof v1 results.csv, trace mode (%1 columns)").arg(count)
                        : QStringLiteral("rocprof v1-style results (BeginNs/EndNs, %1 columns)").arg(count);
    } else if (v3Timestamps) {
        l.dialect = QStringLiteral("kernel trace with Start_Timestamp/End_Timestamp (unrecognised variant, %1 columns)")
                        .arg(count);
    } else if (has("durationns")) {
        duration = resolveExactColumn(header, {QStringLiteral("DurationNs")});
        l.dialect = QStringLiteral("rocprof v1-style results with DurationNs only (%1 columns)").arg(count);
    } else if (has("kernelname") && has("gpu-id")) {
        return refuse(QStringLiteral("rocprof v1 results.csv, counter mode (%1 columns)").arg(count),
                      QStringLiteral("a rocprof v1 counter-mode results.csv: it has KernelName but no timing "
                                     "columns (BeginNs/EndNs/DurationNs; rocprof was run without --timestamp on "
                                     "or --stats), so nothing in it is usable"));
    } else {
        return refuse(QStringLiteral("kernel names without timing (%1 columns)").arg(count),
                      QStringLiteral("has a kernel-name column (%1) but no timing columns "
                                     "(Start_Timestamp/End_Timestamp, BeginNs/EndNs or DurationNs), so nothing in "
                                     "it is usable")
                          .arg(name.name));
    }

    if (!(start.found() && end.found()) && !duration.found())
        return refuse(l.dialect, QStringLiteral("its timing columns (%1) could not be matched to a start and an end "
                                                "or a duration column; not read as a kernel trace")
                                     .arg(header.join(QStringLiteral(", ")).left(200)));
    l.usable = true;
    l.name = name.index;
    l.agent = agent.index;
    choose(QStringLiteral("kernel_name"), name, QString());
    if (start.found() && end.found()) {
        l.start = start.index;
        l.end = end.index;
        l.startName = start.name;
        l.endName = end.name;
        l.timing = Timing::EndMinusStart;
        choose(QStringLiteral("start"), start, QStringLiteral("ns"));
        choose(QStringLiteral("end"), end, QStringLiteral("ns"));
        l.columns.push_back({QStringLiteral("duration"), QString(),
                             QStringLiteral("computed as %1 - %2").arg(end.name, start.name), QStringLiteral("ns")});
    } else {
        l.duration = duration.index;
        l.durationName = duration.name;
        l.timing = Timing::DurationOnly;
        choose(QStringLiteral("duration"), duration, QStringLiteral("ns"));
    }
    if (agent.found())
        choose(QStringLiteral("agent"), agent, QString());
    return l;
}

} // namespace goblin::workbench
