#include "workbench/smidialects.h"

#include "pynumber.h"

#include <algorithm>

namespace goblin::workbench
{

std::string_view trimAscii(std::string_view s)
{
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; };
    while (!s.empty() && space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && space(s.back()))
        s.remove_suffix(1);
    return s;
}

std::string lowerAscii(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return out;
}

bool isMissingToken(std::string_view s)
{
    const std::string l = lowerAscii(s);
    // nvidia-smi also writes [Not Supported] (and [Unknown Error] for a GPU it cannot read).
    return l.empty() || l == "n/a" || l == "[n/a]" || l == "na" || l == "none" || l == "-" ||
           l == "[not supported]" || l == "[unknown error]";
}

/// Column names the workbench knows from amd-smi, rocm-smi and nvidia-smi CSV headers (lower
/// case); a record naming one of them and holding no number is a header.
bool isKnownColumn(const std::string &lower)
{
    static const char *const known[] = {
        "gpu", "timestamp", "xcp", "gfx", "gfx_activity", "umc_activity", "mm_activity", "gfx_clk", "gfx_clock",
        "mem", "mem_clock", "power_usage", "socket_power", "used_vram", "vram_used", "total_vram", "vram_total",
        "vram_free", "vram_percent", "usage", "total_energy_consumption", "hotspot_temperature", "edge",
        "gfx_util", "gfx_utilization", "vram_used_gb", "vram_used_mb", "rocm_version", "device", "gpu use (%)",
        "vram total used memory (b)", "vram total memory (b)", "utilization.gpu [%]", "memory.used [mib]",
        "memory.total [mib]", "index"};
    for (const char *k : known)
        if (lower == k)
            return true;
    return false;
}

bool isPlainNumber(std::string_view s)
{
    const StrictNumber n = strictNumber(s);
    return n.status == StrictNumber::Status::Ok || n.status == StrictNumber::Status::NonFinite;
}

bool looksLikeHeader(const std::vector<std::string_view> &fields)
{
    bool known = false;
    for (std::string_view f : fields) {
        const std::string_view t = trimAscii(f);
        if (isPlainNumber(t))
            return false;
        if (!known && isKnownColumn(lowerAscii(t)))
            known = true;
    }
    return known;
}

bool isBanner(const std::vector<std::string_view> &fields)
{
    for (std::string_view f : fields)
        if (lowerAscii(f).find("to stop watching output") != std::string::npos)
            return true;
    return false;
}

double gbPerUnit(VramUnit unit)
{
    switch (unit) {
    case VramUnit::MB:
    case VramUnit::MiB:
    case VramUnit::Unknown:
        return 1.0 / 1024.0;
    case VramUnit::GB:
        return 1.0;
    case VramUnit::Bytes:
        return 1.0 / (1024.0 * 1024.0 * 1024.0);
    }
    return 1.0;
}

QString unitName(VramUnit unit)
{
    switch (unit) {
    case VramUnit::MB:
        return QStringLiteral("MB");
    case VramUnit::GB:
        return QStringLiteral("GB");
    case VramUnit::MiB:
        return QStringLiteral("MiB");
    case VramUnit::Bytes:
        return QStringLiteral("B");
    case VramUnit::Unknown:
        return QStringLiteral("MB");
    }
    return {};
}



/// Reads one numeric cell: N/A and empty are missing (never zero); nvidia-smi appends units
/// ("22 %", "841 MiB"), which are cut off when `unitSuffixes` is set.
CellValue readCell(std::string_view raw, bool unitSuffixes)
{
    std::string_view s = trimAscii(raw);
    if (isMissingToken(s))
        return {};
    if (unitSuffixes) {
        const size_t space = s.rfind(' ');
        if (space != std::string_view::npos) {
            const std::string_view suffix = s.substr(space + 1);
            if (!suffix.empty() && std::all_of(suffix.begin(), suffix.end(), [](char c) {
                    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '%' || c == '/';
                }))
                s = trimAscii(s.substr(0, space));
        }
    }
    const StrictNumber n = strictNumber(s);
    switch (n.status) {
    case StrictNumber::Status::Ok:
        return {CellValue::Kind::Value, n.value};
    case StrictNumber::Status::Empty:
        return {};
    case StrictNumber::Status::NonFinite:
        return {CellValue::Kind::NonFinite, NAN};
    case StrictNumber::Status::NotANumber:
        break;
    }
    return {CellValue::Kind::NotANumber, NAN};
}

} // namespace goblin::workbench
