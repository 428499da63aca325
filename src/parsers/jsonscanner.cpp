#include "jsonscanner.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace goblin {

namespace {

#if defined(__x86_64__) && defined(__GNUC__)
/// 32 bytes at a time for the long strings (kernel names run to thousands of characters).
__attribute__((target("avx2"))) const char *findStringSpecialAvx2(const char *p, const char *end)
{
    const __m256i quote = _mm256_set1_epi8('"');
    const __m256i backslash = _mm256_set1_epi8('\\');
    const __m256i control = _mm256_set1_epi8(0x1f);
    while (end - p >= 32) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
        const __m256i hits = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash)),
                                             _mm256_cmpeq_epi8(_mm256_min_epu8(v, control), v));
        const unsigned mask = unsigned(_mm256_movemask_epi8(hits));
        if (mask)
            return p + __builtin_ctz(mask);
        p += 32;
    }
    return p;
}

const bool kHaveAvx2 = __builtin_cpu_supports("avx2");
#endif

/// First byte in [p, end) that ends the plain run of a JSON string: '"', '\\' or a control
/// character. Strings are most of a trace's bytes, so this is the scanner's hot path.
inline const char *findStringSpecial(const char *p, const char *end)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i control = _mm_set1_epi8(0x1f);
    if (end - p >= 16) {
        // Most strings (keys, categories) end within 16 bytes.
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        const __m128i hits = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                          _mm_cmpeq_epi8(_mm_min_epu8(v, control), v));
        const int mask = _mm_movemask_epi8(hits);
        if (mask)
            return p + __builtin_ctz(unsigned(mask));
        p += 16;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if (kHaveAvx2) {
        p = findStringSpecialAvx2(p, end);
        if (end - p >= 32)
            return p;  // found
    }
#endif
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        const __m128i hits = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                          _mm_cmpeq_epi8(_mm_min_epu8(v, control), v));
        const int mask = _mm_movemask_epi8(hits);
        if (mask)
            return p + __builtin_ctz(unsigned(mask));
        p += 16;
    }
#endif
    for (; p < end; ++p) {
        const unsigned char c = static_cast<unsigned char>(*p);
        if (c == '"' || c == '\\' || c < 0x20)
            return p;
    }
    return end;
}

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }

/// raw == key, inline: the member names compared are a few bytes long, shorter than a memcmp call.
inline bool sameShortKey(std::string_view raw, std::string_view key)
{
    if (raw.size() != key.size())
        return false;
    for (size_t i = 0; i < raw.size(); ++i)
        if (raw[i] != key[i])
            return false;
    return true;
}

inline bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

inline int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c - 'A' + 10;
}

void appendUtf8(std::string &out, unsigned cp)
{
    if (cp < 0x80) {
        out.push_back(char(cp));
    } else if (cp < 0x800) {
        out.push_back(char(0xC0 | (cp >> 6)));
        out.push_back(char(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(char(0xE0 | (cp >> 12)));
        out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(char(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(char(0xF0 | (cp >> 18)));
        out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(char(0x80 | (cp & 0x3F)));
    }
}

} // namespace

JsonScanner::JsonScanner(Sink &sink) : m_sink(sink)
{
    m_stack.reserve(64);
    std::memset(m_captureIndex, -1, sizeof m_captureIndex);
}

void JsonScanner::setCapturedKeys(const std::string_view *keys, int count)
{
    m_captureKeys = keys;
    m_captureKeyCount = std::min(count, int(CapturedMembers::kMaxKeys));
    std::memset(m_captureIndex, -1, sizeof m_captureIndex);
    for (int k = 0; k < m_captureKeyCount; ++k) {
        if (keys[k].empty())
            continue;
        qint8 &slot = m_captureIndex[static_cast<unsigned char>(keys[k][0])];
        slot = slot == -1 ? qint8(k) : qint8(-2);
    }
}

std::string JsonScanner::unescape(std::string_view raw)
{
    std::string out;
    out.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c != '\\' || i + 1 >= raw.size()) {
            out.push_back(c);
            continue;
        }
        const char e = raw[++i];
        switch (e) {
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
            if (i + 4 >= raw.size()) {  // cannot happen after validation; keep the bytes
                out.append(raw.substr(i - 1));
                return out;
            }
            unsigned cp = 0;
            for (int k = 1; k <= 4; ++k)
                cp = cp * 16 + unsigned(hexValue(raw[i + k]));
            i += 4;
            // A high surrogate followed by a low one is one code point; Python joins them too.
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u') {
                unsigned low = 0;
                bool hex = true;
                for (int k = 3; k <= 6; ++k) {
                    if (!isHex(raw[i + k])) {
                        hex = false;
                        break;
                    }
                    low = low * 16 + unsigned(hexValue(raw[i + k]));
                }
                if (hex && low >= 0xDC00 && low < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    i += 6;
                }
            }
            appendUtf8(out, cp);
            break;
        }
        default: out.push_back(e); break;  // '"', '\\', '/'
        }
    }
    return out;
}

void JsonScanner::fail(const char *message, qint64 offset, qint64 line, qint64 column)
{
    if (m_failed)
        return;
    m_failed = true;
    m_errorMessage = message;
    m_errorOffset = offset;
    m_errorLine = line;
    m_errorColumn = column;
}

void JsonScanner::failAt(const char *message, const char *p, const char *data)
{
    const qint64 offset = m_base + (p - data);
    fail(message, offset, m_line, offset - m_lineStart + 1);
}

void JsonScanner::setMark(const char *p, const char *data)
{
    m_markOffset = m_base + (p - data);
    m_markLine = m_line;
    m_markColumn = m_markOffset - m_lineStart + 1;
}

void JsonScanner::endValue(qint64 endOffset)
{
    const size_t depth = m_stack.size();
    if (depth == 0 || (depth <= 2 && ((m_reportChildren >> (depth - 1)) & 1u)))
        m_sink.valueEnd(int(depth), endOffset, m_escapes != m_escapesAt[depth]);
    m_state = depth == 0 ? State::Done : State::AfterValue;
}

void JsonScanner::closeContainer(qint64 endOffset)
{
    m_stack.pop_back();
    endValue(endOffset);
}

// Validates one whole container that starts at `p` ('{' or '[') and ends before `end`, with the
// same grammar as the resumable state machine in feed() but as straight-line code over a small
// local stack: most of a trace is many small event objects, and dispatching every token through
// the resumable state costs more than twice as much. Returns the byte after the container, or
// nullptr when the container runs past `end`, nests deeper than the local stack or is invalid;
// the caller then scans it again with the state machine, which resumes across chunks and words
// the error. Nothing but counters is changed unless it succeeds.
const char *JsonScanner::fastContainer(const char *p, const char *end, const char *data)
{
    constexpr int kFastDepth = 64;
    quint8 stack[kFastDepth];
    int depth = 0;
    qint64 line = m_line;
    qint64 lineStart = m_lineStart;
    qint64 escapes = m_escapes;
    qint64 nonStandard = m_nonStandardCount;
    qint64 firstNonStandardLine = m_firstNonStandardLine;
    const size_t baseDepth = m_stack.size();
    size_t maxDepth = m_maxDepthSeen;
    bool reachedEnd = false;
    bool inKey = false;
    // Members of the container itself (depth 1) whose values are wanted (setCapturedKeys()).
    const bool capture = m_captureKeyCount > 0;
    CapturedMembers captured;
    const char *keyStart = nullptr;
    qint64 escapesAtKey = 0;
    int pendingField = -1;    // the key just read is keys[pendingField]
    int capturingField = -1;  // the scalar or string being read is that member's value
    const char *valueStart = nullptr;

#define GOBLIN_FAST_WS                                                                                         \
    for (;;) {                                                                                                 \
        if (p == end) {                                                                                        \
            reachedEnd = true;                                                                                 \
            goto giveUp;                                                                                       \
        }                                                                                                      \
        const unsigned char w = static_cast<unsigned char>(*p);                                                \
        if (w > ' ')                                                                                           \
            break;                                                                                             \
        if (w == ' ' || w == '\t' || w == '\r') {                                                              \
            ++p;                                                                                               \
        } else if (w == '\n') {                                                                                \
            ++p;                                                                                               \
            ++line;                                                                                            \
            lineStart = m_base + (p - data);                                                                   \
            while (end - p >= 8 && std::memcmp(p, "        ", 8) == 0) /* indentation */                     \
                p += 8;                                                                                        \
        } else {                                                                                               \
            break;                                                                                             \
        }                                                                                                      \
    }

open:
    if (depth == kFastDepth)
        goto giveUp;
    if (*p == '{') {
        stack[depth++] = 1;
        ++p;
        if (baseDepth + size_t(depth) > maxDepth)
            maxDepth = baseDepth + size_t(depth);
        GOBLIN_FAST_WS
        if (*p == '}') {
            ++p;
            goto closed;
        }
        goto key;
    }
    stack[depth++] = 0;
    ++p;
    if (baseDepth + size_t(depth) > maxDepth)
        maxDepth = baseDepth + size_t(depth);
    GOBLIN_FAST_WS
    if (*p == ']') {
        ++p;
        goto closed;
    }
    goto value;

key:
    if (*p != '"')
        goto giveUp;
    ++p;
    inKey = true;
    if (capture && depth == 1) {
        keyStart = p;
        escapesAtKey = escapes;
    }
    goto string;
afterKey:
    if (capture && depth == 1) {
        const std::string_view raw(keyStart, size_t(p - 1 - keyStart));
        pendingField = -1;
        if (escapes == escapesAtKey) {
            const int k = raw.empty() ? -1 : m_captureIndex[static_cast<unsigned char>(raw[0])];
            if (k >= 0) {
                if (sameShortKey(raw, m_captureKeys[k]))
                    pendingField = k;
            } else if (k == -2) {  // several keys start with this byte ("ph", "pid")
                for (int kk = 0; kk < m_captureKeyCount; ++kk)
                    if (sameShortKey(raw, m_captureKeys[kk])) {
                        pendingField = kk;
                        break;
                    }
            }
        } else {
            const std::string key = unescape(raw);
            for (int kk = 0; kk < m_captureKeyCount; ++kk)
                if (key == m_captureKeys[kk]) {
                    pendingField = kk;
                    break;
                }
        }
    }
    GOBLIN_FAST_WS
    if (*p != ':')
        goto giveUp;
    ++p;
    GOBLIN_FAST_WS

value:
    if (pendingField >= 0 && depth == 1) {
        const qint64 at = m_base + (p - data);
        if (*p == '{' || *p == '[') {
            captured.have |= quint8(1u << pendingField);
            captured.begin[pendingField] = at;
            captured.end[pendingField] = at + 1;
        } else {
            capturingField = pendingField;  // ends at afterValue
            valueStart = p;
        }
        pendingField = -1;
    }
    switch (*p) {
    case '{':
    case '[':
        goto open;
    case '"':
        ++p;
        inKey = false;
        goto string;
    case '-':
        ++p;
        if (p == end) {
            reachedEnd = true;
            goto giveUp;
        }
        if (*p == 'I') {
            if (end - p < 8) {
                reachedEnd = true;
                goto giveUp;
            }
            if (std::memcmp(p, "Infinity", 8) != 0)
                goto giveUp;
            if (nonStandard++ == 0)
                firstNonStandardLine = line;
            p += 8;
            goto afterValue;
        }
        [[fallthrough]];
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9': {
        // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
        if (*p == '0') {
            ++p;
        } else if (isDigit(*p)) {
            while (p < end && isDigit(*p))
                ++p;
        } else {
            goto giveUp;
        }
        if (p < end && *p == '.') {
            ++p;
            if (p < end && !isDigit(*p))
                goto giveUp;
            while (p < end && isDigit(*p))
                ++p;
        }
        if (p < end && (*p == 'e' || *p == 'E')) {
            ++p;
            if (p < end && (*p == '+' || *p == '-'))
                ++p;
            if (p < end && !isDigit(*p))
                goto giveUp;
            while (p < end && isDigit(*p))
                ++p;
        }
        if (p == end) {  // the number may go on in the next chunk
            reachedEnd = true;
            goto giveUp;
        }
        goto afterValue;
    }
    case 't':
    case 'f':
    case 'n':
    case 'N':
    case 'I': {
        const char *word = *p == 't' ? "true" : *p == 'f' ? "false" : *p == 'n' ? "null" : *p == 'N' ? "NaN" : "Infinity";
        const size_t length = std::strlen(word);
        if (size_t(end - p) < length) {
            reachedEnd = true;
            goto giveUp;
        }
        if (std::memcmp(p, word, length) != 0)
            goto giveUp;
        if (*p == 'N' || *p == 'I') {
            if (nonStandard++ == 0)
                firstNonStandardLine = line;
        }
        p += length;
        goto afterValue;
    }
    default:
        goto giveUp;
    }

string:  // p is just after the opening quote; keys and values share this
    for (;;) {
        p = findStringSpecial(p, end);
        if (p == end) {
            reachedEnd = true;
            goto giveUp;
        }
        if (*p == '"') {
            ++p;
            break;
        }
        if (*p != '\\')
            goto giveUp;  // control character
        ++escapes;
        if (end - p < 2) {
            reachedEnd = true;
            goto giveUp;
        }
        switch (p[1]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            p += 2;
            break;
        case 'u':
            if (end - p < 6) {
                reachedEnd = true;
                goto giveUp;
            }
            if (!isHex(p[2]) || !isHex(p[3]) || !isHex(p[4]) || !isHex(p[5]))
                goto giveUp;
            p += 6;
            break;
        default:
            goto giveUp;
        }
    }
    if (inKey)
        goto afterKey;

afterValue:
    if (capturingField >= 0) {
        captured.have |= quint8(1u << capturingField);
        captured.begin[capturingField] = m_base + (valueStart - data);
        captured.end[capturingField] = m_base + (p - data);
        capturingField = -1;
    }
    GOBLIN_FAST_WS
    if (*p == ',') {
        ++p;
        GOBLIN_FAST_WS
        if (stack[depth - 1])
            goto key;
        goto value;
    }
    if (*p != (stack[depth - 1] ? '}' : ']'))
        goto giveUp;
    ++p;

closed:
    if (--depth == 0) {
        m_line = line;
        m_lineStart = lineStart;
        m_escapes = escapes;
        m_nonStandardCount = nonStandard;
        m_firstNonStandardLine = firstNonStandardLine;
        m_maxDepthSeen = maxDepth;
        if (capture) {
            m_captured = captured;
            m_capturedValid = true;  // for the valueEnd() that follows; reset after it
        }
        return p;
    }
    goto afterValue;

giveUp:
    if (reachedEnd)
        m_fastPathEnabled = false;
    return nullptr;
#undef GOBLIN_FAST_WS
}

// Starts the value whose first byte `c` sits at `p`. Returns the next byte to scan, or nullptr on
// a syntax error.
const char *JsonScanner::beginValue(char c, const char *p, const char *end, const char *data)
{
    const size_t depth = m_stack.size();
    const qint64 offset = m_base + (p - data);
    const bool reported = depth == 0 || (depth <= 2 && ((m_reportChildren >> (depth - 1)) & 1u));
    auto report = [&]() {
        m_escapesAt[depth] = m_escapes;
        return m_sink.valueBegin(int(depth), c, offset, m_line);
    };
    switch (c) {
    case '{':
    case '[': {
        if (depth >= maxDepthLimit()) {
            failAt("nesting deeper than the scanner's limit", p, data);
            m_errorIsDepthLimit = true;
            return nullptr;
        }
        const bool children = reported && report();
        if (depth <= 1) {
            if (children)
                m_reportChildren |= quint8(1u << depth);
            else
                m_reportChildren &= quint8(~(1u << depth));
        }
        if (!children && depth >= 1 && m_fastPathEnabled) {
            if (const char *next = fastContainer(p, end, data)) {
                endValue(m_base + (next - data));
                m_capturedValid = false;
                return next;
            }
        }
        m_stack.push_back(c == '{' ? 1 : 0);
        if (m_stack.size() > m_maxDepthSeen)
            m_maxDepthSeen = m_stack.size();
        m_state = c == '{' ? State::ObjectFirst : State::ArrayFirst;
        return p + 1;
    }
    case '"':
        if (reported)
            report();
        m_stringIsKey = false;
        m_stringIsRootKey = false;
        m_stringStart = offset;
        m_stringLine = m_line;
        m_stringColumn = offset - m_lineStart + 1;
        m_state = State::String;
        return p + 1;
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        if (reported)
            report();
        m_literalStart = offset;
        m_literalLine = m_line;
        m_literalColumn = offset - m_lineStart + 1;
        m_numberState = c == '-' ? NumberState::Minus : c == '0' ? NumberState::Zero : NumberState::Int;
        m_state = State::Number;
        return p + 1;
    case 't':
    case 'f':
    case 'n':
    case 'N':
    case 'I':
        if (reported)
            report();
        m_literalStart = offset;
        m_literalLine = m_line;
        m_literalColumn = offset - m_lineStart + 1;
        m_literal = c == 't' ? "rue" : c == 'f' ? "alse" : c == 'n' ? "ull" : c == 'N' ? "aN" : "nfinity";
        if (c == 'N' || c == 'I') {
            if (m_nonStandardCount++ == 0)
                m_firstNonStandardLine = m_line;
        }
        m_state = State::Literal;
        return p + 1;
    default:
        failAt("Expecting value", p, data);
        return nullptr;
    }
}

JsonScanner::Status JsonScanner::feed(const char *data, size_t size)
{
    if (m_failed)
        return Status::Error;
    m_base = m_offset;
    m_fastPathEnabled = true;
    const char *p = data;
    const char *const end = data + size;

#define GOBLIN_SKIP_WS                                                                                         \
    while (p < end) {                                                                                          \
        const char w = *p;                                                                                     \
        if (w == ' ' || w == '\t' || w == '\r') {                                                              \
            ++p;                                                                                               \
        } else if (w == '\n') {                                                                                \
            ++p;                                                                                               \
            ++m_line;                                                                                          \
            m_lineStart = m_base + (p - data);                                                                 \
        } else {                                                                                               \
            break;                                                                                             \
        }                                                                                                      \
    }                                                                                                          \
    if (p == end)                                                                                              \
        break;

    while (p < end) {
        switch (m_state) {
        case State::String: {
            const char *q = findStringSpecial(p, end);
            if (m_stringIsRootKey)
                m_key.append(p, size_t(q - p));
            if (q == end) {
                p = end;
                break;
            }
            if (*q == '"') {
                p = q + 1;
                if (m_stringIsRootKey) {
                    m_stringIsRootKey = false;
                    m_state = State::Colon;
                    if (m_key.find('\\') == std::string::npos)
                        m_sink.rootKey(m_key, m_stringStart, m_stringLine);
                    else
                        m_sink.rootKey(unescape(m_key), m_stringStart, m_stringLine);
                } else if (m_stringIsKey) {
                    m_state = State::Colon;
                } else {
                    endValue(m_base + (p - data));
                }
            } else if (*q == '\\') {
                if (m_stringIsRootKey)
                    m_key.push_back('\\');
                ++m_escapes;
                m_markOffset = m_base + (q - data);
                m_markLine = m_line;
                m_markColumn = m_markOffset - m_lineStart + 1;
                p = q + 1;
                m_state = State::Escape;
            } else {
                failAt("Invalid control character at", q, data);
                goto stopped;
            }
            break;
        }
        case State::Escape: {
            const char c = *p;
            switch (c) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                m_state = State::String;
                break;
            case 'u':
                m_hexLeft = 4;
                m_state = State::Unicode;
                break;
            default:
                fail("Invalid \\escape", m_markOffset, m_markLine, m_markColumn);
                goto stopped;
            }
            if (m_stringIsRootKey)
                m_key.push_back(c);
            ++p;
            break;
        }
        case State::Unicode: {
            const char c = *p;
            if (!isHex(c)) {
                fail("Invalid \\uXXXX escape", m_markOffset + 1, m_markLine, m_markColumn + 1);  // at the 'u', as Python
                goto stopped;
            }
            if (m_stringIsRootKey)
                m_key.push_back(c);
            ++p;
            if (--m_hexLeft == 0)
                m_state = State::String;
            break;
        }
        case State::Number: {
            // Digits are consumed in tight loops; any byte that cannot continue the number ends it
            // (if it is complete) and is then read again in the state that follows.
            bool ended = false;
            while (p < end && !ended) {
                const char c = *p;
                switch (m_numberState) {
                case NumberState::Minus:
                    if (c == '0') {
                        m_numberState = NumberState::Zero;
                        ++p;
                    } else if (c >= '1' && c <= '9') {
                        m_numberState = NumberState::Int;
                        ++p;
                    } else if (c == 'I') {  // -Infinity
                        if (m_nonStandardCount++ == 0)
                            m_firstNonStandardLine = m_line;
                        m_literal = "nfinity";
                        m_state = State::Literal;
                        ++p;
                        ended = true;
                    } else {
                        fail("Expecting value", m_literalStart, m_literalLine, m_literalColumn);
                        goto stopped;
                    }
                    break;
                case NumberState::Int:
                    while (p < end && isDigit(*p))
                        ++p;
                    if (p == end)
                        break;
                    [[fallthrough]];
                case NumberState::Zero:
                    if (*p == '.' || *p == 'e' || *p == 'E') {
                        m_numberState = *p == '.' ? NumberState::Dot : NumberState::Exp;
                        setMark(p, data);
                        ++p;
                    } else {
                        endValue(m_base + (p - data));
                        ended = true;
                    }
                    break;
                case NumberState::Dot:
                    if (!isDigit(c)) {
                        // Python's number pattern stops before the '.', so that is where it complains.
                        fail(m_stack.empty() ? "Extra data" : "Expecting ',' delimiter", m_markOffset, m_markLine,
                             m_markColumn);
                        goto stopped;
                    }
                    m_numberState = NumberState::Frac;
                    ++p;
                    break;
                case NumberState::Frac:
                    while (p < end && isDigit(*p))
                        ++p;
                    if (p == end)
                        break;
                    if (*p == 'e' || *p == 'E') {
                        m_numberState = NumberState::Exp;
                        setMark(p, data);
                        ++p;
                    } else {
                        endValue(m_base + (p - data));
                        ended = true;
                    }
                    break;
                case NumberState::Exp:
                    if (c == '+' || c == '-') {
                        m_numberState = NumberState::ExpSign;
                        ++p;
                        break;
                    }
                    [[fallthrough]];
                case NumberState::ExpSign:
                    if (!isDigit(*p)) {
                        fail(m_stack.empty() ? "Extra data" : "Expecting ',' delimiter", m_markOffset, m_markLine,
                             m_markColumn);
                        goto stopped;
                    }
                    m_numberState = NumberState::ExpDigits;
                    ++p;
                    break;
                case NumberState::ExpDigits:
                    while (p < end && isDigit(*p))
                        ++p;
                    if (p == end)
                        break;
                    endValue(m_base + (p - data));
                    ended = true;
                    break;
                }
            }
            break;
        }
        case State::Literal: {
            while (p < end && *m_literal) {
                if (*p != *m_literal) {
                    fail("Expecting value", m_literalStart, m_literalLine, m_literalColumn);
                    goto stopped;
                }
                ++p;
                ++m_literal;
            }
            if (!*m_literal)
                endValue(m_base + (p - data));
            break;
        }
        case State::AfterValue: {
            GOBLIN_SKIP_WS
            const char c = *p;
            const bool inObject = m_stack.back() != 0;
            if (c == ',') {
                m_state = inObject ? State::Key : State::Value;
                ++p;
            } else if ((c == '}' && inObject) || (c == ']' && !inObject)) {
                ++p;
                closeContainer(m_base + (p - data));
            } else {
                failAt("Expecting ',' delimiter", p, data);
                goto stopped;
            }
            break;
        }
        case State::ObjectFirst:
        case State::Key: {
            GOBLIN_SKIP_WS
            const char c = *p;
            if (c == '"') {
                const qint64 offset = m_base + (p - data);
                m_stringIsKey = true;
                m_stringIsRootKey = m_stack.size() == 1;
                if (m_stringIsRootKey)
                    m_key.clear();
                m_stringStart = offset;
                m_stringLine = m_line;
                m_stringColumn = offset - m_lineStart + 1;
                m_state = State::String;
                ++p;
            } else if (c == '}' && m_state == State::ObjectFirst) {
                ++p;
                closeContainer(m_base + (p - data));
            } else {
                failAt("Expecting property name enclosed in double quotes", p, data);
                goto stopped;
            }
            break;
        }
        case State::Colon: {
            GOBLIN_SKIP_WS
            if (*p != ':') {
                failAt("Expecting ':' delimiter", p, data);
                goto stopped;
            }
            ++p;
            m_state = State::Value;
            break;
        }
        case State::ArrayFirst: {
            GOBLIN_SKIP_WS
            if (*p == ']') {
                ++p;
                closeContainer(m_base + (p - data));
                break;
            }
            if (const char *next = beginValue(*p, p, end, data))
                p = next;
            else
                goto stopped;
            break;
        }
        case State::Root:
        case State::Value: {
            GOBLIN_SKIP_WS
            if (const char *next = beginValue(*p, p, end, data))
                p = next;
            else
                goto stopped;
            break;
        }
        case State::Done: {
            GOBLIN_SKIP_WS
            failAt("Extra data", p, data);
            goto stopped;
        }
        }
    }
#undef GOBLIN_SKIP_WS
    m_offset = m_base + qint64(size);
    return Status::Ok;

stopped:
    m_stopOffset = m_base + (p - data);
    m_stopLine = m_line;
    return Status::Error;
}

void JsonScanner::startInsideRootArray(qint64 offset)
{
    m_stack.assign({1, 0});
    m_maxDepthSeen = 2;
    m_reportChildren = 0x3;
    m_state = State::Value;
    m_base = m_offset = offset;
    m_line = 1;
    m_lineStart = offset;
}

bool JsonScanner::atRootArrayElement() const
{
    return !m_failed && m_state == State::Value && m_stack.size() == 2 && m_stack[0] == 1 && m_stack[1] == 0 &&
           (m_reportChildren & 0x3) == 0x3;
}

bool JsonScanner::afterRootArrayElement() const
{
    return !m_failed && m_state == State::AfterValue && m_stack.size() == 2 && m_stack[0] == 1 && m_stack[1] == 0 &&
           (m_reportChildren & 0x3) == 0x3;
}

void JsonScanner::skipTo(const Resume &r)
{
    m_state = r.afterElement ? State::AfterValue : State::Value;
    m_base = m_offset = r.offset;
    m_line = r.line;
    m_lineStart = r.lineStart;
    m_escapes += r.escapes;
    m_maxDepthSeen = std::max(m_maxDepthSeen, r.maxDepth);
}

JsonScanner::Status JsonScanner::finish()
{
    if (m_failed)
        return Status::Error;
    const qint64 column = m_offset - m_lineStart + 1;
    if (m_state == State::Number) {
        switch (m_numberState) {
        case NumberState::Zero:
        case NumberState::Int:
        case NumberState::Frac:
        case NumberState::ExpDigits:
            endValue(m_offset);
            break;
        case NumberState::Minus:
            fail("Expecting value", m_literalStart, m_literalLine, m_literalColumn);
            return Status::Error;
        default:
            fail(m_stack.empty() ? "Extra data" : "Expecting ',' delimiter", m_markOffset, m_markLine, m_markColumn);
            return Status::Error;
        }
    }
    switch (m_state) {
    case State::Done:
        return Status::Ok;
    case State::String:
    case State::Escape:
    case State::Unicode:
        fail("Unterminated string starting at", m_stringStart, m_stringLine, m_stringColumn);
        break;
    case State::Literal:
        fail("Expecting value", m_literalStart, m_literalLine, m_literalColumn);
        break;
    case State::ObjectFirst:
    case State::Key:
        fail("Expecting property name enclosed in double quotes", m_offset, m_line, column);
        break;
    case State::Colon:
        fail("Expecting ':' delimiter", m_offset, m_line, column);
        break;
    case State::AfterValue:
        fail("Expecting ',' delimiter", m_offset, m_line, column);
        break;
    default:
        fail("Expecting value", m_offset, m_line, column);
        break;
    }
    return Status::Error;
}

} // namespace goblin
