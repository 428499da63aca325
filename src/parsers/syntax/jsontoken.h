#pragma once
/// \file A JSON token as Python's json.loads types it (PyValue), shared by both readings: the
/// reference reads its float, the workbench its exact integer ns. Also Python's JSONDecodeError
/// text. Tokens come from JsonScanner (already validated), so nothing here checks the grammar.

#include "pynumber.h"

#include <QString>
#include <QtGlobal>

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace goblin::syntax {

/// "Expecting ',' delimiter: line 3 column 5 (char 17)", as json.JSONDecodeError words it.
QString pythonJsonMessage(const std::string &message, qint64 line, qint64 column, qint64 offset);

// JSON values as Python's json module would hand them to the reference.

struct PyValue {
    enum Kind : quint8 { Missing, Null, Bool, Int, Float, Str, Object, Array };
    Kind kind = Missing;
    bool overflow = false;    ///< Int too large for float(): Python raises OverflowError
    bool nsValid = false;     ///< `ns` holds the number (read as µs) in exact integer ns
    double number = 0.0;      ///< float(v) for Bool, Int and Float
    qint64 ns = 0;
    std::string_view raw;     ///< the token, trimmed; strings with their quotes

    bool isNumeric() const { return kind == Bool || kind == Int || kind == Float; }
    bool isString() const { return kind == Str; }
    /// Body of a string without the quotes, escapes unresolved.
    std::string_view rawBody() const { return raw.size() >= 2 ? raw.substr(1, raw.size() - 2) : std::string_view(); }
    bool hasEscapes() const { return rawBody().find('\\') != std::string_view::npos; }
};

inline std::string_view trimJson(std::string_view token)
{
    while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                              token.back() == '\t'))
        token.remove_suffix(1);
    while (!token.empty() && (token.front() == ' ' || token.front() == '\n' || token.front() == '\r' ||
                              token.front() == '\t'))
        token.remove_prefix(1);
    return token;
}

inline constexpr double kExactPowersOf10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                              1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/// Classifies one JSON token (already validated by the scanner) the way json.loads types it.
inline PyValue classify(std::string_view token)
{
    PyValue v;
    token = trimJson(token);
    v.raw = token;
    if (token.empty())
        return v;
    switch (token.front()) {
    case '"':
        v.kind = PyValue::Str;
        return v;
    case '{':
        v.kind = PyValue::Object;
        return v;
    case '[':
        v.kind = PyValue::Array;
        return v;
    case 'n':
        v.kind = PyValue::Null;
        return v;
    case 't':
        v.kind = PyValue::Bool;
        v.number = 1.0;
        return v;
    case 'f':
        v.kind = PyValue::Bool;
        v.number = 0.0;
        return v;
    case 'N':
        v.kind = PyValue::Float;
        v.number = std::numeric_limits<double>::quiet_NaN();
        return v;
    case 'I':
        v.kind = PyValue::Float;
        v.number = std::numeric_limits<double>::infinity();
        return v;
    default:
        break;
    }
    if (token.size() >= 2 && token[0] == '-' && token[1] == 'I') {
        v.kind = PyValue::Float;
        v.number = -std::numeric_limits<double>::infinity();
        return v;
    }
    // Fast path for the plain decimals traces are made of ("3698042544.670", "48213"): with at
    // most 15 significant digits the mantissa and 10^k are exact doubles, so one division rounds
    // correctly, exactly like Python's float(). Integer ns come out of the same digits.
    {
        const char *p = token.data();
        const char *const e = p + token.size();
        const bool negative = *p == '-';
        if (negative)
            ++p;
        quint64 mantissa = 0;
        int digits = 0;
        int fraction = 0;
        bool dot = false;
        while (p < e && *p >= '0' && *p <= '9' && digits < 16) {
            mantissa = mantissa * 10 + quint64(*p - '0');
            ++digits;
            ++p;
        }
        if (p < e && *p == '.') {
            dot = true;
            ++p;
            while (p < e && *p >= '0' && *p <= '9' && digits < 16) {
                mantissa = mantissa * 10 + quint64(*p - '0');
                ++digits;
                ++fraction;
                ++p;
            }
        }
        if (p == e && digits <= 15) {
            v.kind = dot ? PyValue::Float : PyValue::Int;
            double value = double(mantissa);
            if (fraction > 0)
                value /= kExactPowersOf10[fraction];
            v.number = negative && (dot || mantissa != 0) ? -value : value;
            if (fraction <= 3) {
                static constexpr qint64 scale[] = {1000, 100, 10, 1};
                const qint64 ns = qint64(mantissa) * scale[fraction];
                v.ns = negative ? -ns : ns;
                v.nsValid = true;
            }
            return v;
        }
    }
    bool isFloat = false;
    for (const char ch : token)
        if (ch == '.' || ch == 'e' || ch == 'E') {
            isFloat = true;
            break;
        }
    v.kind = isFloat ? PyValue::Float : PyValue::Int;
    double value = 0.0;
    const auto result = std::from_chars(token.data(), token.data() + token.size(), value);
    if (result.ec == std::errc::result_out_of_range) {
        if (isFloat) {
            // json.loads turns 1e400 into inf and 1e-400 into 0.0.
            value = pythonFloat(token).value_or(0.0);
        } else {
            v.overflow = true;  // float(10**400) raises OverflowError
            value = token[0] == '-' ? -std::numeric_limits<double>::infinity()
                                    : std::numeric_limits<double>::infinity();
        }
    }
    if (!isFloat && value == 0.0)
        value = 0.0;  // float(-0) is 0.0 for a Python int
    v.number = value;
    return v;
}

/// The string's body with escapes resolved (a copy).
std::string stringValue(const PyValue &v);

/// µs token -> integer ns, exact for the decimal forms Kineto writes ("123.456", "17331264001234").
/// Out of line on purpose: inlined, GCC 12 builds the returned optional on the stack with a byte
/// store and reads it back as 16 bytes, a store-forwarding stall at every event's "ts" and "dur"
/// in every consumer (30 ms on a 0.9 GB trace).
std::optional<qint64> microsToNs(const PyValue &v);

inline bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

inline bool endsWithIgnoreCase(std::string_view s, std::string_view lowerSuffix)
{
    if (s.size() < lowerSuffix.size())
        return false;
    const std::string_view tail = s.substr(s.size() - lowerSuffix.size());
    for (size_t i = 0; i < tail.size(); ++i) {
        char c = tail[i];
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
        if (c != lowerSuffix[i])
            return false;
    }
    return true;
}

} // namespace goblin::syntax
