#pragma once
/// \file Number parsing with the exact semantics of Python's float(str) and int(float(str)),
/// which the reference profile must reproduce bit for bit, next to a strict reader for the
/// workbench profile.

#include <optional>
#include <string_view>

namespace goblin {

/// Python's `float(s)`: surrounding whitespace, sign, digits with single underscores between
/// them, decimal point, exponent, `inf`/`infinity`/`nan` in any case. Correctly rounded.
/// nullopt where Python raises ValueError.
std::optional<double> pythonFloat(std::string_view text);

/// Python's `int(float(s))` for a duration or timestamp. nullopt where Python raises ValueError
/// (bad syntax, NaN) *and* where it raises OverflowError (infinity), which the reference does
/// not catch; `overflow` tells the two apart.
std::optional<long long> pythonIntOfFloat(std::string_view text, bool *overflow = nullptr);

/// Strict number for the workbench profile: optional surrounding spaces, a plain decimal or
/// scientific number; no NaN, no infinity, no underscores. Integers keep full 64-bit precision.
struct StrictNumber {
    enum class Status { Ok, Empty, NotANumber, NonFinite };
    Status status = Status::Empty;
    double value = 0.0;
    bool isInteger = false;
    long long integer = 0;  ///< valid when isInteger
};
StrictNumber strictNumber(std::string_view text);

/// Python's str.strip() for the characters that occur in practice (ASCII whitespace).
std::string_view pythonStrip(std::string_view text);

} // namespace goblin
