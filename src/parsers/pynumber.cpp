#include "pynumber.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace goblin {

namespace {

bool isPySpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\x1c' ||
           c == '\x1d' || c == '\x1e' || c == '\x1f';
}

bool equalsIgnoreCase(std::string_view a, std::string_view lowerB)
{
    if (a.size() != lowerB.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i) {
        char c = a[i];
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
        if (c != lowerB[i])
            return false;
    }
    return true;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Validates Python's float grammar (digits with single underscores between digits) and
// returns the text with underscores removed, or nullopt.
std::optional<std::string> normalisedDecimal(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
        out.push_back(s[i++]);
    auto digits = [&](bool &any) {
        any = false;
        while (i < s.size()) {
            if (isDigit(s[i])) {
                out.push_back(s[i++]);
                any = true;
            } else if (s[i] == '_' && any && i + 1 < s.size() && isDigit(s[i + 1])) {
                ++i;
            } else {
                break;
            }
        }
    };
    bool intDigits = false, fracDigits = false;
    digits(intDigits);
    if (i < s.size() && s[i] == '.') {
        out.push_back(s[i++]);
        digits(fracDigits);
    }
    if (!intDigits && !fracDigits)
        return std::nullopt;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        out.push_back(s[i++]);
        if (i < s.size() && (s[i] == '+' || s[i] == '-'))
            out.push_back(s[i++]);
        bool expDigits = false;
        digits(expDigits);
        if (!expDigits)
            return std::nullopt;
    }
    if (i != s.size())
        return std::nullopt;
    return out;
}

std::optional<double> parseDecimal(const std::string &text)
{
    const char *first = text.data();
    const char *last = first + text.size();
    bool negative = false;
    if (first != last && (*first == '+' || *first == '-')) {
        negative = *first == '-';
        ++first;  // from_chars accepts no '+' and we handle the sign ourselves
    }
    double value = 0.0;
    auto result = std::from_chars(first, last, value, std::chars_format::general);
    if (result.ec == std::errc::result_out_of_range) {
        // Python rounds to inf or 0 instead of failing.
        bool tiny = false;
        for (const char *p = first; p != last; ++p)
            if (*p == 'e' || *p == 'E') {
                tiny = p + 1 != last && p[1] == '-';
                break;
            }
        value = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    } else if (result.ec != std::errc() || result.ptr != last) {
        return std::nullopt;
    }
    return negative ? -value : value;
}

} // namespace

std::string_view pythonStrip(std::string_view text)
{
    size_t b = 0, e = text.size();
    while (b < e && isPySpace(text[b]))
        ++b;
    while (e > b && isPySpace(text[e - 1]))
        --e;
    return text.substr(b, e - b);
}

std::optional<double> pythonFloat(std::string_view text)
{
    std::string_view s = pythonStrip(text);
    if (s.empty())
        return std::nullopt;
    std::string_view body = s;
    bool negative = false;
    if (body[0] == '+' || body[0] == '-') {
        negative = body[0] == '-';
        body.remove_prefix(1);
    }
    if (equalsIgnoreCase(body, "inf") || equalsIgnoreCase(body, "infinity"))
        return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    if (equalsIgnoreCase(body, "nan"))
        return std::numeric_limits<double>::quiet_NaN();
    auto normalised = normalisedDecimal(s);
    if (!normalised)
        return std::nullopt;
    return parseDecimal(*normalised);
}

std::optional<long long> pythonIntOfFloat(std::string_view text, bool *overflow)
{
    if (overflow)
        *overflow = false;
    auto value = pythonFloat(text);
    if (!value || std::isnan(*value))
        return std::nullopt;
    // Python ints are unbounded; anything beyond int64 (including inf) cannot be a real
    // timestamp, and the reference would raise OverflowError for inf.
    if (std::isinf(*value) || std::fabs(*value) >= 9.2e18) {
        if (overflow)
            *overflow = true;
        return std::nullopt;
    }
    return static_cast<long long>(std::trunc(*value));
}

StrictNumber strictNumber(std::string_view text)
{
    StrictNumber n;
    size_t b = 0, e = text.size();
    while (b < e && (text[b] == ' ' || text[b] == '\t'))
        ++b;
    while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\r'))
        --e;
    std::string_view s = text.substr(b, e - b);
    if (s.empty())
        return n;
    const char *first = s.data();
    const char *last = first + s.size();
    if (*first == '+')
        ++first;
    bool allDigits = first != last;
    for (const char *p = (*first == '-' ? first + 1 : first); p != last; ++p)
        if (!isDigit(*p)) {
            allDigits = false;
            break;
        }
    if (allDigits) {
        long long integer = 0;
        auto r = std::from_chars(first, last, integer);
        if (r.ec == std::errc() && r.ptr == last) {
            n.status = StrictNumber::Status::Ok;
            n.isInteger = true;
            n.integer = integer;
            n.value = double(integer);
            return n;
        }
    }
    double value = 0.0;
    auto r = std::from_chars(first, last, value, std::chars_format::general);
    if (r.ec == std::errc() && r.ptr == last) {
        if (!std::isfinite(value)) {
            n.status = StrictNumber::Status::NonFinite;
            return n;
        }
        n.status = StrictNumber::Status::Ok;
        n.value = value;
        return n;
    }
    // from_chars accepts "nan"/"inf"; anything else that failed is not a number.
    std::string_view body = s;
    if (!body.empty() && (body[0] == '-' || body[0] == '+'))
        body.remove_prefix(1);
    if (equalsIgnoreCase(body, "nan") || equalsIgnoreCase(body, "inf") || equalsIgnoreCase(body, "infinity"))
        n.status = StrictNumber::Status::NonFinite;
    else if (r.ec == std::errc::result_out_of_range)
        n.status = StrictNumber::Status::NonFinite;
    else
        n.status = StrictNumber::Status::NotANumber;
    return n;
}

} // namespace goblin
