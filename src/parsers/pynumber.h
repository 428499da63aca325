#pragma once
/// \file Number parsing with the exact semantics of Python's float(str) and int(float(str)),
/// which the reference profile must reproduce bit for bit, next to a strict reader for the
/// workbench profile.

#include <optional>
#include <string_view>

namespace goblin
{

/// Python's `float(s)`: surrounding whitespace, sign, digits with single underscores between
/// them, decimal point, exponent, `inf`/`infinity`/`nan` in any case. Correctly rounded.
/// Like Python, Unicode whitespace around the number and Unicode decimal digits (Nd, e.g.
/// U+0661, U+FF11) are accepted, but ASCII \x1c-\x1f are not. nullopt where Python raises
/// ValueError.
std::optional<double> pythonFloat(std::string_view text);

/// Python's `int(float(s))` for a duration or timestamp. nullopt where Python raises ValueError
/// (bad syntax, NaN) *and* where it raises OverflowError (infinity), which the reference does
/// not catch; `overflow` tells the two apart. `overflow` is also set for finite values outside
/// the 64-bit range (|x| >= 2^63), which Python would still convert (its ints are unbounded)
/// but which this type cannot hold; pythonFloat() tells those from infinity.
std::optional<long long> pythonIntOfFloat(std::string_view text, bool *overflow = nullptr);

/// Strict number for the workbench profile: optional surrounding spaces, a plain decimal or
/// scientific number; no NaN, no infinity, no underscores. Integers keep full 64-bit precision.
struct StrictNumber {
    enum class Status { Ok, Empty, NotANumber, NonFinite };
    Status status = Status::Empty;
    double value = 0.0;
    bool isInteger = false;
    long long integer = 0; ///< valid when isInteger
};
StrictNumber strictNumber(std::string_view text);

/// Python's str.strip() on UTF-8 text: every character str.isspace() accepts (ASCII
/// whitespace, \x1c-\x1f, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F,
/// U+205F, U+3000). Invalid UTF-8 bytes are never stripped.
std::string_view pythonStrip(std::string_view text);

} // namespace goblin
