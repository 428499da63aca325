// JsonScanner's fast path: one whole container validated by straight-line code.
#include "syntax/jsonscanner.h"

#include "syntax/jsonlexing_p.h"

#include <algorithm>
#include <cstring>

namespace goblin {

// Validates one whole container that starts at `p` ('{' or '[') and ends before `end`, with the
// same grammar as the resumable state machine in feed() but as straight-line code over a small
// local stack: most of a trace is many small event objects, and dispatching every token through
// the resumable state costs more than twice as much. Returns the byte after the container, or
// nullptr when the container runs past `end`, nests deeper than the local stack or is invalid;
// the caller then scans it again with the state machine, which resumes across chunks and words
// the error. Nothing but counters and the captured members (valid only after a success) is
// changed unless it succeeds.
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
    // Written in place (a copy of the whole struct per event showed in profiles): read only once
    // m_capturedValid says it succeeded, which it does not until then.
    CapturedMembers &captured = m_captured;
    captured.have = 0;
    captured.duplicated = 0;
    captured.nestedHave = 0;
    captured.nestedDuplicated = 0;
    captured.nestedScanned = false;
    const char *keyStart = nullptr;
    qint64 escapesAtKey = 0;
    int pendingField = -1;    // the key just read is keys[pendingField]
    int capturingField = -1;  // the scalar or string being read is that member's value
    const char *valueStart = nullptr;
    // Members of the object that is the value of keys[m_nestedParent] (an event's args), located
    // one level down while it is open (setNestedCapturedKeys()).
    int nestedDepth = 0;  // that object's inside while it is open, else 0 (no depth matches)
    int pendingNested = -1, capturingNested = -1, openNested = -1;
    const char *nestedStart = nullptr;

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
    if (capture && (depth == 1 || depth == nestedDepth)) {
        keyStart = p;
        escapesAtKey = escapes;
    }
    goto string;
afterKey:
    if (capture && depth == 1) {
        const std::string_view raw(keyStart, size_t(p - 1 - keyStart));
        pendingField = -1;
        if (escapes == escapesAtKey) {
            const int k = raw.empty() ? -1 : m_captureIndex[keySlot(raw)];
            if (k >= 0) {
                if (sameShortKey(raw, m_captureKeys[k]))
                    pendingField = k;
            } else if (k == -2) {  // several keys of this first byte and length
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
    } else if (depth == nestedDepth) {
        const std::string_view raw(keyStart, size_t(p - 1 - keyStart));
        pendingNested = -1;
        if (escapes != escapesAtKey) {
            captured.nestedScanned = false;  // the readers search these bytes themselves
        } else {
            const int k = raw.empty() ? -1 : m_nestedIndex[keySlot(raw)];
            if (k >= 0) {
                if (sameShortKey(raw, m_nestedKeys[k]))
                    pendingNested = k;
            } else if (k == -2) {
                for (int kk = 0; kk < m_nestedKeyCount; ++kk)
                    if (sameShortKey(raw, m_nestedKeys[kk])) {
                        pendingNested = kk;
                        break;
                    }
            }
            if (pendingNested >= 0 && (captured.nestedHave & (1u << pendingNested))) {
                captured.nestedDuplicated |= quint8(1u << pendingNested);
                pendingNested = -1;  // the first occurrence counts
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
            captured.duplicated |= quint8(captured.have & (1u << pendingField));
            captured.have |= quint8(1u << pendingField);
            captured.begin[pendingField] = at;
            captured.end[pendingField] = at + 1;
        } else {
            capturingField = pendingField;  // ends at afterValue
            valueStart = p;
        }
        if (pendingField == m_nestedParent) {  // (a later duplicate replaces the members found)
            captured.nestedHave = 0;
            captured.nestedDuplicated = 0;
            captured.nestedScanned = *p == '{';
            nestedDepth = *p == '{' ? 2 : 0;
        }
        pendingField = -1;
    }
    if (pendingNested >= 0) {  // set at depth == nestedDepth only
        nestedStart = p;
        if (*p == '{' || *p == '[')
            openNested = pendingNested;  // ends at closed
        else
            capturingNested = pendingNested;  // ends at afterValue
        pendingNested = -1;
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
        captured.duplicated |= quint8(captured.have & (1u << capturingField));
        captured.have |= quint8(1u << capturingField);
        captured.begin[capturingField] = m_base + (valueStart - data);
        captured.end[capturingField] = m_base + (p - data);
        capturingField = -1;
    }
    if (capturingNested >= 0) {
        captured.nestedHave |= quint8(1u << capturingNested);
        captured.nestedBegin[capturingNested] = m_base + (nestedStart - data);
        captured.nestedEnd[capturingNested] = m_base + (p - data);
        capturingNested = -1;
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
            m_capturedValid = true;  // for the valueEnd() that follows; reset after it
        }
        return p;
    }
    if (depth == nestedDepth && openNested >= 0) {  // a nested member's container ended
        captured.nestedHave |= quint8(1u << openNested);
        captured.nestedBegin[openNested] = m_base + (nestedStart - data);
        captured.nestedEnd[openNested] = m_base + (p - data);
        openNested = -1;
    } else if (depth < nestedDepth) {
        nestedDepth = 0;  // the object itself ended
    }
    goto afterValue;

giveUp:
    if (reachedEnd)
        m_fastPathEnabled = false;
    return nullptr;
#undef GOBLIN_FAST_WS
}


} // namespace goblin
