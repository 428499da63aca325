#include "workbench/smireader.h"

#include "columnresolver.h"

#include <algorithm>
#include <map>

namespace goblin::workbench
{

namespace
{

/// amd-smi writes MB values as integers of bytes // 2^20, so a total of more than 4096 can only
/// be MB (no GPU has 4 TB), while the GB view rounds the 192 GB of an MI300X to 0.1.
constexpr double kTotalVramMbThreshold = 4096.0;

} // namespace

bool WorkbenchReader::looksBinary(qint64 *line) const
{
    // amd-smi output is ASCII text; NUL bytes or many control characters mean something else
    // (a core dump, a database, a gzip) was saved under this name.
    const qint64 n = qMin<qint64>(m_bytes.size(), 1 << 16);
    qint64 control = 0;
    for (qint64 i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(m_bytes[i]);
        if (c == 0) {
            *line = 1 + std::count(m_bytes.constBegin(), m_bytes.constBegin() + i, '\n');
            return true;
        }
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
            ++control;
    }
    *line = 0;
    return n > 0 && control * 10 > n;
}

int WorkbenchReader::findColumn(std::initializer_list<const char *> aliases) const
{
    // The last of a repeated name, as csv.DictReader keeps it (resolveColumns() says so).
    for (const char *alias : aliases)
        for (size_t i = m_headerLower.size(); i-- > 0;)
            if (m_headerLower[i] == alias)
                return int(i);
    return -1;
}

void WorkbenchReader::resolveColumns()
{
    QStringList header;
    header.reserve(qsizetype(m_header.size()));
    for (const std::string &h : m_header)
        header << QString::fromStdString(h);
    for (const RepeatedColumn &column : repeatedColumns(header))
        diag(Severity::Warning, m_headerLine, repeatedColumnMessage(column, m_headerLine));
    auto has = [&](const char *name) { return findColumn({name}) >= 0; };
    bool nvidia = false, rocmSmi = false;
    for (const std::string &h : m_headerLower) {
        if (h.rfind("utilization.gpu", 0) == 0 || h.rfind("memory.used", 0) == 0)
            nvidia = true;
        if (h == "gpu use (%)" || h.rfind("vram total", 0) == 0)
            rocmSmi = true;
    }
    if (nvidia)
        m_tool = Tool::NvidiaSmi;
    else if (rocmSmi)
        m_tool = Tool::RocmSmi;
    else if (has("xcp") || has("gfx_clk"))
        m_tool = Tool::AmdSmiMonitor7;
    else if (has("gfx_clock") || has("mem_clock") || has("pcie_replay"))
        m_tool = Tool::AmdSmiMonitor6;
    else if (has("gfx_activity") || has("used_vram") || has("total_vram") || has("socket_power") ||
             has("umc_activity") || has("total_energy_consumption") || has("usage") || has("gfx_0_clk"))
        m_tool = Tool::AmdSmiMetric;
    else if (has("gfx") || has("vram_used") || has("power_usage"))
        m_tool = Tool::AmdSmiMonitor;

    m_gpuCol = findColumn({"gpu", "device", "index"});
    m_timeCol = findColumn({"timestamp"});
    // True GFX utilisation names only. Never `usage` (fan usage, or the collapsed usage group),
    // never a power, clock, fan or temperature column, and no substring matching (`gfx` must
    // not find `gfx_clk`, `usage` must not find `power_usage`).
    m_utilCol = findColumn({"gfx_activity", "gfx", "gfx_util", "gfx_utilization", "gfx %", "gfx%", "gpu_use",
                            "gpu use (%)", "gpu_util", "utilization.gpu [%]"});
    m_usageCol = findColumn({"usage"});
    // Used VRAM of the whole device; never used_visible_vram / used_gtt, never `mem` (memory
    // temperature in metric, memory utilisation in monitor).
    m_vramCol = findColumn({"used_vram", "vram_used", "vram_used_gb", "vram_used_mb", "vram used",
                            "vram total used memory (b)", "memory.used [mib]"});
    m_totalCol = findColumn({"total_vram", "vram_total", "vram total memory (b)", "memory.total [mib]"});
    m_rocmCol = findColumn({"rocm_version"});
    if (m_utilCol >= 0)
        utilColumn = QString::fromStdString(m_header[size_t(m_utilCol)]);
    if (m_vramCol >= 0)
        hbmColumn = QString::fromStdString(m_header[size_t(m_vramCol)]);
}

QString WorkbenchReader::describeDialect() const
{
    auto has = [&](const char *name) { return findColumn({name}) >= 0; };
    QString base;
    switch (m_tool) {
    case Tool::AmdSmiMetric:
        base = QStringLiteral("amd-smi metric");
        break;
    case Tool::AmdSmiMonitor7:
        base = (has("vram_free") || has("vram_percent")) ? QStringLiteral("amd-smi monitor ROCm 7 (-v)")
                                                         : QStringLiteral("amd-smi monitor ROCm 7");
        break;
    case Tool::AmdSmiMonitor6:
        base = QStringLiteral("amd-smi monitor ROCm 6");
        break;
    case Tool::AmdSmiMonitor:
        base = QStringLiteral("amd-smi monitor");
        break;
    case Tool::RocmSmi:
        return QStringLiteral("rocm-smi --csv");
    case Tool::NvidiaSmi:
        return QStringLiteral("nvidia-smi --query-gpu --format=csv");
    case Tool::Unknown:
        return QStringLiteral("unrecognised CSV");
    }
    const bool timestamps = m_timeCol >= 0;
    QString mode;
    if (timestamps && m_bannerSeen)
        mode = QStringLiteral("watch to stdout: banner and a header per sample");
    else if (timestamps && m_repeatedHeaders > 0)
        mode = QStringLiteral("watch: a header per sample");
    else if (timestamps && m_blankLines > 0)
        mode = QStringLiteral("watch, banner and repeated headers filtered out");
    else if (timestamps)
        mode = QStringLiteral("watch with --file: one header");
    else if (m_repeatedHeaders > 0)
        mode = QStringLiteral("polled one-shot blocks, no timestamps");
    else
        mode = QStringLiteral("one-shot, no timestamps");
    return QStringLiteral("%1 (%2)").arg(base, mode);
}

void WorkbenchReader::decideVramUnit()
{
    if (m_vramCol < 0)
        return;
    const std::string &name = m_headerLower[size_t(m_vramCol)];
    auto endsWith = [&](const char *suffix) {
        const size_t n = std::char_traits<char>::length(suffix);
        return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
    };
    // Units that the header states outright.
    if (name.find("(b)") != std::string::npos) {
        hbmUnit = VramUnit::Bytes;
        hbmUnitReason = QStringLiteral("rocm-smi reports bytes");
        return;
    }
    if (name.find("[mib]") != std::string::npos) {
        hbmUnit = VramUnit::MiB;
        hbmUnitReason = QStringLiteral("nvidia-smi reports MiB");
        return;
    }
    // GB or MB: a total-VRAM column settles it (amd-smi writes total and used in one unit).
    double total = NAN;
    if (m_totalCol >= 0)
        for (const RawRow &row : m_rows) {
            const CellValue c = readCell(row.total, false);
            if (c.kind == CellValue::Kind::Value && c.value > 0) {
                total = c.value;
                break;
            }
        }
    const QString totalName = m_totalCol >= 0 ? QString::fromStdString(m_header[size_t(m_totalCol)]) : QString();
    if (!std::isnan(total)) {
        const bool mb = total > kTotalVramMbThreshold;
        hbmUnit = mb ? VramUnit::MB : VramUnit::GB;
        hbmUnitReason = QStringLiteral("%1 is %2, so the file is in %3")
                            .arg(totalName, QString::number(total, 'g', 10), mb ? QStringLiteral("MB")
                                                                                 : QStringLiteral("GB"));
        return;
    }
    if (endsWith("_gb") || endsWith(" gb")) {
        hbmUnit = VramUnit::GB;
        hbmUnitReason = QStringLiteral("the column name says GB");
    } else if (endsWith("_mb") || endsWith(" mb")) {
        hbmUnit = VramUnit::MB;
        hbmUnitReason = QStringLiteral("the column name says MB");
    } else if (m_tool == Tool::AmdSmiMetric) {
        hbmUnit = VramUnit::MB;
        hbmUnitReason = QStringLiteral("amd-smi metric reports used_vram in MB");
    } else if (m_tool == Tool::AmdSmiMonitor6) {
        hbmUnit = VramUnit::MB;
        hbmUnitReason = QStringLiteral("amd-smi monitor on ROCm 6 reports vram_used in MB");
    } else if (m_tool == Tool::AmdSmiMonitor7) {
        const bool verbose = findColumn({"vram_free"}) >= 0 || findColumn({"vram_percent"}) >= 0;
        hbmUnit = verbose ? VramUnit::MB : VramUnit::GB;
        hbmUnitReason = verbose ? QStringLiteral("amd-smi monitor -v (vram_free/vram_percent present) reports MB")
                                : QStringLiteral("the ROCm 7 amd-smi monitor default view reports GB");
    }
    // Plausibility, and a guess when nothing else decided: no GPU has 4 TB, so larger values
    // are MB; amd-smi writes MB as integers and GB with one decimal.
    double maxValue = 0.0;
    bool fractional = false;
    for (const RawRow &row : m_rows) {
        const CellValue c = readCell(row.vram, m_tool == Tool::NvidiaSmi);
        if (c.kind != CellValue::Kind::Value)
            continue;
        maxValue = std::max(maxValue, c.value);
        if (c.value != std::floor(c.value))
            fractional = true;
    }
    const QString column = QString::fromStdString(m_header[size_t(m_vramCol)]);
    if (hbmUnit == VramUnit::GB && maxValue > kTotalVramMbThreshold) {
        hbmUnit = VramUnit::MB;
        hbmUnitReason = QStringLiteral("values up to %1 cannot be GB (no GPU has 4 TB), so they are MB")
                            .arg(QString::number(maxValue, 'g', 10));
        diag(Severity::Warning, m_headerLine,
             QStringLiteral("'%1' looks like GB by name or dialect but holds values up to %2; read as MB")
                 .arg(column, QString::number(maxValue, 'g', 10)));
    } else if (hbmUnit == VramUnit::Unknown) {
        hbmUnit = (fractional && maxValue <= kTotalVramMbThreshold) ? VramUnit::GB : VramUnit::MB;
        hbmUnitReason = hbmUnit == VramUnit::GB
                            ? QStringLiteral("guessed GB: no total column, values have decimals")
                            : QStringLiteral("guessed MB: no total column, whole-number values");
        diag(Severity::Warning, m_headerLine,
             QStringLiteral("the unit of '%1' is not known for this file and no total-VRAM column exists; %2")
                 .arg(column, hbmUnitReason));
    }
}

} // namespace goblin::workbench
