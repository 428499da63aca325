#pragma once
/// \file The telemetry CSV dialects the workbench knows (amd-smi metric/monitor, rocm-smi,
/// nvidia-smi): the column names that make a header, missing-value tokens, VRAM units, and
/// how one numeric cell is read.

#include <QString>

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace goblin::workbench
{

std::string_view trimAscii(std::string_view s);
std::string lowerAscii(std::string_view s);
/// N/A, [N/A], [Not Supported], [Unknown Error], NA, None, - and empty: a missing value, never zero.
bool isMissingToken(std::string_view s);
/// Column names the workbench knows from amd-smi, rocm-smi and nvidia-smi CSV headers (lower case).
bool isKnownColumn(const std::string &lower);
/// A number to strictNumber() (finite or not).
bool isPlainNumber(std::string_view s);
/// A record naming a known column and holding no number.
bool looksLikeHeader(const std::vector<std::string_view> &fields);
/// amd-smi watch mode's "Press CTRL + C to stop watching output" line.
bool isBanner(const std::vector<std::string_view> &fields);

enum class Tool { AmdSmiMetric, AmdSmiMonitor7, AmdSmiMonitor6, AmdSmiMonitor, RocmSmi, NvidiaSmi, Unknown };

enum class VramUnit { Unknown, MB, GB, MiB, Bytes };

double gbPerUnit(VramUnit unit);
QString unitName(VramUnit unit);

struct CellValue {
    enum class Kind { Value, Missing, NonFinite, NotANumber } kind = Kind::Missing;
    double value = NAN;
};

/// Reads one numeric cell: N/A and empty are missing (never zero); nvidia-smi appends units
/// ("22 %", "841 MiB"), which are cut off when `unitSuffixes` is set.
CellValue readCell(std::string_view raw, bool unitSuffixes);

} // namespace goblin::workbench
