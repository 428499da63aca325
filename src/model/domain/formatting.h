#pragma once
/// \file Display formatting of durations, shares and sizes, shared by models, charts and export.

#include <QString>

namespace goblin {

/// "812 ns", "4.21 µs", "3.07 ms", "1.234 s"; "—" for NaN.
QString formatDurationNs(double ns);
/// Seconds per step with a unit that keeps three significant digits ("0.216 s", "4.20 ms").
QString formatSeconds(double seconds);
/// Seconds with 4 significant digits, in s from 1 s up, else ms: the diagnostics' wording.
QString describeSeconds(double s);
/// "42.2 %"; "—" for NaN.
QString formatPercent(double pct, int decimals = 1);
/// "134.4 GB"; "—" for NaN.
QString formatGb(double gb);
/// Plain number with `decimals` places ("0.50"); "—" for NaN.
QString formatNumber(double value, int decimals);

} // namespace goblin
