#include "telemetry/logcommon.h"
#include "telemetry/telemetrylogs.h"

#include <QRegularExpression>

namespace goblin::telemetry
{

namespace
{

/// nvidia-smi property names (before ` [unit]`) that only its --query-gpu header has.
bool isNvidiaProperty(const std::string &name)
{
    static const char *const known[] = {"utilization.gpu", "utilization.memory", "memory.used", "memory.total",
                                        "memory.free", "memory.reserved", "power.draw", "power.draw.average",
                                        "power.draw.instant", "power.limit", "temperature.gpu", "clocks.sm",
                                        "clocks.current.sm", "clocks.mem", "pci.bus_id", "driver_version",
                                        "pstate", "fan.speed", "enforced.power.limit"};
    for (const char *k : known)
        if (name == k)
            return true;
    return false;
}

/// nvidia-smi's timestamp at the start of a row: `2024/01/31 12:00:00.123`.
bool startsWithNvidiaTimestamp(std::string_view line)
{
    return line.size() >= 19 && !std::isnan(parseWallClock(line.substr(0, line.find(','))));
}

bool sniffNvidia(const std::vector<Line> &lines)
{
    for (const Line &l : lines) {
        const std::string_view t = trimmed(l.text);
        if (t.empty())
            continue;
        // A header: comma-separated property names, at least one nvidia-smi's own.
        int properties = 0;
        size_t start = 0;
        while (start <= t.size()) {
            size_t comma = t.find(',', start);
            if (comma == std::string_view::npos)
                comma = t.size();
            std::string name = lower(trimmed(t.substr(start, comma - start)));
            if (const size_t bracket = name.find(" ["); bracket != std::string::npos)
                name = name.substr(0, bracket);
            if (isNvidiaProperty(name))
                ++properties;
            start = comma + 1;
        }
        if (properties > 0)
            return true;
        // noheader: a timestamp first and cells with nvidia-smi's units.
        return startsWithNvidiaTimestamp(t) && t.find(", ") != std::string_view::npos &&
               (t.find(" %") != std::string_view::npos || t.find(" MiB") != std::string_view::npos);
    }
    return false;
}

bool sniffDcgm(const std::vector<Line> &lines)
{
    for (const Line &l : lines) {
        const std::string_view t = trimmed(l.text);
        if (t.rfind("#Entity", 0) == 0)
            return true;
    }
    return false;
}

bool sniffRocmSmi(const std::vector<Line> &lines)
{
    bool deviceHeader = false;
    for (const Line &l : lines) {
        const std::string_view t = trimmed(l.text);
        const std::string low = lower(t);
        if (low.rfind("device,", 0) == 0) {
            if (low.find("gpu use (%)") != std::string::npos || low.find("vram total") != std::string::npos ||
                low.find("graphics package power") != std::string::npos ||
                low.find("gpu memory allocated") != std::string::npos)
                return true;
            deviceHeader = true;
            continue;
        }
        if (deviceHeader && low.rfind("card", 0) == 0 && low.size() > 4 && low[4] >= '0' && low[4] <= '9')
            return true;
    }
    return false;
}

} // namespace

LogKind sniffTelemetryLog(QByteArrayView head)
{
    if (head.isEmpty() || binaryLine(head) > 0)
        return LogKind::None;
    std::vector<Line> lines = splitLines(head);
    // The last line of a head may be cut short; the first 40 lines decide.
    if (lines.size() > 40)
        lines.resize(40);
    if (sniffDcgm(lines))
        return LogKind::Dcgm;
    if (sniffRocmSmi(lines))
        return LogKind::RocmSmi;
    if (sniffNvidia(lines))
        return LogKind::NvidiaSmi;
    if (sniffTelemetryColumns(head))
        return LogKind::ByColumns;
    return LogKind::None;
}

QString logKindTool(LogKind kind)
{
    switch (kind) {
    case LogKind::NvidiaSmi: return QStringLiteral("nvidia-smi");
    case LogKind::Dcgm: return QStringLiteral("dcgmi dmon");
    case LogKind::RocmSmi: return QStringLiteral("rocm-smi");
    case LogKind::ByColumns: return QStringLiteral("telemetry CSV");
    case LogKind::None: break;
    }
    return QStringLiteral("amd-smi");
}

QString logKindFormat(LogKind kind)
{
    switch (kind) {
    case LogKind::NvidiaSmi: return QStringLiteral("nvidia-smi-csv");
    case LogKind::Dcgm: return QStringLiteral("dcgmi-dmon");
    case LogKind::RocmSmi: return QStringLiteral("rocm-smi-csv");
    case LogKind::ByColumns: return QStringLiteral("telemetry-csv");
    case LogKind::None: break;
    }
    return QStringLiteral("amd-smi-csv");
}

void readTelemetryLog(LogKind kind, QByteArrayView bytes, const QString &file, SmiTelemetry &out)
{
    out.tool = logKindTool(kind);
    out.file.format = logKindFormat(kind);
    switch (kind) {
    case LogKind::NvidiaSmi: readNvidiaSmi(bytes, file, out); return;
    case LogKind::Dcgm: readDcgm(bytes, file, out); return;
    case LogKind::RocmSmi: readRocmSmi(bytes, file, out); return;
    case LogKind::ByColumns: readTelemetryColumns(bytes, file, out); return;
    case LogKind::None: break;
    }
    out.diagnostics.push_back({Severity::Error, file, 0,
                               QStringLiteral("not a telemetry log the workbench knows (nvidia-smi --query-gpu CSV, "
                                              "dcgmi dmon, rocm-smi --csv, a CSV whose header names a time and a "
                                              "GPU utilisation % or memory-used column): no telemetry")});
}

} // namespace goblin::telemetry
