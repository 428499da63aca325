#include "pynumber.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace goblin
{

namespace
{

/// Characters Python's float() strips: Py_ISSPACE, ASCII only (\x1c-\x1f are *not* stripped
/// by float() although str.strip() removes them).
bool isFloatSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/// str.isspace() for ASCII.
bool isAsciiStripSpace(char c)
{
    return isFloatSpace(c) || (c >= '\x1c' && c <= '\x1f');
}

/// str.isspace() above ASCII (Unicode 14, what Python 3.11 ships).
bool isUnicodeSpace(char32_t c)
{
    return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

/// Code points whose decimal value is 0 (Unicode 14 category Nd; each starts a run of ten).
constexpr char32_t kDecimalZeros[] = {
    0x660,   0x6f0,   0x7c0,   0x966,   0x9e6,   0xa66,   0xae6,   0xb66,   0xbe6,   0xc66,   0xce6,   0xd66,   0xde6,
    0xe50,   0xed0,   0xf20,   0x1040,  0x1090,  0x17e0,  0x1810,  0x1946,  0x19d0,  0x1a80,  0x1a90,  0x1b50,  0x1bb0,
    0x1c40,  0x1c50,  0xa620,  0xa8d0,  0xa900,  0xa9d0,  0xa9f0,  0xaa50,  0xabf0,  0xff10,  0x104a0, 0x10d30, 0x11066,
    0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650, 0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50,
    0x11da0, 0x16a60, 0x16ac0, 0x16b50, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0,
};

int unicodeDecimal(char32_t c)
{
    for (char32_t zero : kDecimalZeros)
        if (c >= zero && c < zero + 10)
            return int(c - zero);
    return -1;
}

/// Decodes one UTF-8 sequence at the start of s (no validation of overlong forms: the input
/// of the reference is valid UTF-8 or the reference has already crashed). 0 = not decodable.
int decodeUtf8(std::string_view s, char32_t &cp)
{
    const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
    if (s.empty())
        return 0;
    const unsigned char c = b(0);
    int len = 0;
    if (c < 0x80) {
        cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (s.size() < size_t(len))
        return 0;
    for (int i = 1; i < len; ++i) {
        if ((b(size_t(i)) & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b(size_t(i)) & 0x3F);
    }
    return len;
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

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

/// Checks Python's float grammar on ASCII text without surrounding spaces (digits with single
/// underscores between digits). Sets `underscores` when the text has any.
bool validDecimal(std::string_view s, bool &underscores)
{
    underscores = false;
    size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
        ++i;
    auto digits = [&]() {
        bool any = false;
        while (i < s.size()) {
            if (isDigit(s[i])) {
                ++i;
                any = true;
            } else if (s[i] == '_' && any && i + 1 < s.size() && isDigit(s[i + 1])) {
                underscores = true;
                ++i;
            } else {
                break;
            }
        }
        return any;
    };
    const bool intDigits = digits();
    bool fracDigits = false;
    if (i < s.size() && s[i] == '.') {
        ++i;
        fracDigits = digits();
    }
    if (!intDigits && !fracDigits)
        return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-'))
            ++i;
        if (!digits())
            return false;
    }
    return i == s.size();
}

/// Decimal exponent of the leading significant digit (1 for "5", 0 for "0.5", 3 for "1e2"...);
/// decides whether an out-of-range value rounds to infinity or to zero.
long long magnitudeOf(std::string_view s)
{
    size_t i = 0;
    long long intDigits = 0;
    long long leadingFracZeros = 0;
    bool seenNonZero = false;
    for (; i < s.size() && isDigit(s[i]); ++i)
        if (seenNonZero || s[i] != '0') {
            seenNonZero = true;
            ++intDigits;
        }
    if (i < s.size() && s[i] == '.') {
        ++i;
        for (; i < s.size() && isDigit(s[i]); ++i) {
            if (!seenNonZero && s[i] == '0')
                ++leadingFracZeros;
            else
                seenNonZero = true;
        }
    }
    long long exponent = 0;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        bool negative = false;
        if (i < s.size() && (s[i] == '+' || s[i] == '-'))
            negative = s[i++] == '-';
        for (; i < s.size() && isDigit(s[i]); ++i)
            exponent = std::min<long long>(exponent * 10 + (s[i] - '0'), 1LL << 40);
        if (negative)
            exponent = -exponent;
    }
    return (intDigits > 0 ? intDigits : -leadingFracZeros) + exponent;
}

/// Correctly rounded value of validated ASCII decimal text without underscores.
double parseValidatedDecimal(std::string_view s)
{
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        negative = s[0] == '-';
        s.remove_prefix(1); // from_chars accepts no '+' and we handle the sign ourselves
    }
    double value = 0.0;
    const auto result = std::from_chars(s.data(), s.data() + s.size(), value, std::chars_format::general);
    if (result.ec == std::errc::result_out_of_range) // Python rounds to inf or 0 instead of failing
        value = magnitudeOf(s) > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    return negative ? -value : value;
}

/// Eight ASCII digits at p as a number, or -1 if any of them is not a digit (SWAR: timestamps
/// have 16 digits and every row has several, so a byte-at-a-time loop shows in profiles).
[[gnu::always_inline]] inline long long eightDigits(const char *p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    // Every byte in '0'..'9': no high bit after adding 0x46 (bytes > '9') or subtracting '0'.
    if (((v + 0x4646464646464646ull) | (v - 0x3030303030303030ull)) & 0x8080808080808080ull)
        return -1;
    v -= 0x3030303030303030ull;
    v = (v * 10) + (v >> 8); // little endian: pairs of digits
    v = (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
         (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
        32;
    return static_cast<long long>(v & 0xFFFFFFFFull);
}

/// `[+-]?[0-9]{1,19}` exactly, the shape of nearly every timestamp: parsed without from_chars.
[[gnu::always_inline]] inline bool plainInteger(std::string_view s, bool &negative, std::uint64_t &magnitude)
{
    size_t i = 0;
    negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        negative = s[0] == '-';
        i = 1;
    }
    const size_t digits = s.size() - i;
    if (digits == 0 || digits > 19)
        return false;
    std::uint64_t v = 0;
    while (s.size() - i >= 8) {
        const long long eight = eightDigits(s.data() + i);
        if (eight < 0)
            return false;
        v = v * 100000000ull + std::uint64_t(eight);
        i += 8;
    }
    for (; i < s.size(); ++i) {
        const unsigned d = unsigned(static_cast<unsigned char>(s[i])) - unsigned('0');
        if (d > 9)
            return false;
        v = v * 10 + d;
    }
    magnitude = v;
    return true;
}

/// Python's float() on ASCII text (after the Unicode transformation).
std::optional<double> asciiFloat(std::string_view text)
{
    size_t b = 0, e = text.size();
    while (b < e && isFloatSpace(text[b]))
        ++b;
    while (e > b && isFloatSpace(text[e - 1]))
        --e;
    const std::string_view s = text.substr(b, e - b);
    if (s.empty())
        return std::nullopt;
    bool negative = false;
    std::uint64_t magnitude = 0;
    if (plainInteger(s, negative, magnitude)) {
        // uint64 -> double rounds to nearest even, exactly as correctly rounded decimal input.
        const double v = double(magnitude);
        return negative ? -v : v;
    }
    std::string_view body = s;
    if (body[0] == '+' || body[0] == '-') {
        negative = body[0] == '-';
        body.remove_prefix(1);
    }
    if (equalsIgnoreCase(body, "inf") || equalsIgnoreCase(body, "infinity"))
        return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    if (equalsIgnoreCase(body, "nan"))
        return negative ? -std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::quiet_NaN();
    bool underscores = false;
    if (!validDecimal(s, underscores))
        return std::nullopt;
    if (!underscores)
        return parseValidatedDecimal(s);
    std::string plain;
    plain.reserve(s.size());
    for (char c : s)
        if (c != '_')
            plain.push_back(c);
    return parseValidatedDecimal(plain);
}

} // namespace

std::string_view pythonStrip(std::string_view text)
{
    size_t b = 0, e = text.size();
    while (b < e) {
        const char c = text[b];
        if (isAsciiStripSpace(c)) {
            ++b;
            continue;
        }
        if (static_cast<unsigned char>(c) < 0x80)
            break;
        char32_t cp = 0;
        const int len = decodeUtf8(text.substr(b, e - b), cp);
        if (len == 0 || !isUnicodeSpace(cp))
            break;
        b += size_t(len);
    }
    while (e > b) {
        const char c = text[e - 1];
        if (isAsciiStripSpace(c)) {
            --e;
            continue;
        }
        if (static_cast<unsigned char>(c) < 0x80)
            break;
        // Back up to the lead byte of the last sequence (at most 3 continuation bytes).
        size_t start = e - 1;
        while (start > b && e - start < 4 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80)
            --start;
        char32_t cp = 0;
        const int len = decodeUtf8(text.substr(start, e - start), cp);
        if (len == 0 || start + size_t(len) != e || !isUnicodeSpace(cp))
            break;
        e = start;
    }
    return text.substr(b, e - b);
}

std::optional<double> pythonFloat(std::string_view text)
{
    bool ascii = true;
    for (char c : text)
        if (static_cast<unsigned char>(c) >= 0x80) {
            ascii = false;
            break;
        }
    if (ascii)
        return asciiFloat(text);
    // _PyUnicode_TransformDecimalAndSpaceToASCII: Unicode whitespace becomes ' ', Unicode
    // decimal digits become ASCII digits, anything else non-ASCII makes the text invalid.
    std::string transformed;
    transformed.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            transformed.push_back(char(c));
            ++i;
            continue;
        }
        char32_t cp = 0;
        const int len = decodeUtf8(text.substr(i), cp);
        if (len == 0)
            return std::nullopt;
        if (isUnicodeSpace(cp)) {
            transformed.push_back(' ');
        } else {
            const int digit = unicodeDecimal(cp);
            if (digit < 0)
                return std::nullopt;
            transformed.push_back(char('0' + digit));
        }
        i += size_t(len);
    }
    return asciiFloat(transformed);
}

std::optional<long long> pythonIntOfFloat(std::string_view text, bool *overflow)
{
    if (overflow)
        *overflow = false;
    // Fast path for the common shape: a bare integer. int(float(s)) is s rounded to a double.
    bool negative = false;
    std::uint64_t magnitude = 0;
    if (plainInteger(text, negative, magnitude)) {
        if (magnitude < (std::uint64_t(1) << 53))
            return negative ? -static_cast<long long>(magnitude) : static_cast<long long>(magnitude);
    }
    auto value = pythonFloat(text);
    if (!value || std::isnan(*value))
        return std::nullopt;
    // Python ints are unbounded; beyond int64 (including inf, where Python raises
    // OverflowError) this type cannot follow.
    constexpr double kTwo63 = 9223372036854775808.0;
    if (std::isinf(*value) || *value >= kTwo63 || *value < -kTwo63) {
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
    bool negative = false;
    std::uint64_t magnitude = 0;
    if (plainInteger(s, negative, magnitude)) {
        constexpr std::uint64_t kMaxPositive = std::uint64_t(std::numeric_limits<long long>::max());
        if (magnitude <= kMaxPositive || (negative && magnitude == kMaxPositive + 1)) {
            n.status = StrictNumber::Status::Ok;
            n.isInteger = true;
            n.integer = negative ? static_cast<long long>(0 - magnitude) : static_cast<long long>(magnitude);
            n.value = double(n.integer);
            return n;
        }
    }
    std::string_view body = s;
    if (body[0] == '+' || body[0] == '-')
        body.remove_prefix(1);
    if (equalsIgnoreCase(body, "nan") || equalsIgnoreCase(body, "inf") || equalsIgnoreCase(body, "infinity")) {
        n.status = StrictNumber::Status::NonFinite;
        return n;
    }
    // Plain decimal or scientific: sign, digits, optional fraction and exponent, no underscores.
    bool underscores = false;
    if (!validDecimal(s, underscores) || underscores) {
        n.status = StrictNumber::Status::NotANumber;
        return n;
    }
    const double value = parseValidatedDecimal(s);
    if (!std::isfinite(value)) {
        n.status = StrictNumber::Status::NonFinite;
        return n;
    }
    n.status = StrictNumber::Status::Ok;
    n.value = value;
    return n;
}

} // namespace goblin
