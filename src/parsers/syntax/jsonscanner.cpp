#include "syntax/jsonscanner.h"

#include "syntax/jsonlexing_p.h"

#include <algorithm>
#include <cstring>

namespace goblin {

// JsonScanner::unescape() is in jsonunescape.cpp, JsonScanner::fastContainer() in jsonfastpath.cpp.

JsonScanner::JsonScanner(Sink &sink) : m_sink(sink)
{
    m_stack.reserve(64);
    std::memset(m_captureIndex, -1, sizeof m_captureIndex);
    std::memset(m_nestedIndex, -1, sizeof m_nestedIndex);
}

namespace {

/// Key index by keySlot(): the key's number, -1 none, -2 several.
void indexKeys(qint8 (&index)[256 * 8], const std::string_view *keys, int count, size_t (*slotOf)(std::string_view))
{
    std::memset(index, -1, sizeof index);
    for (int k = 0; k < count; ++k) {
        if (keys[k].empty())
            continue;
        qint8 &slot = index[slotOf(keys[k])];
        slot = slot == -1 ? qint8(k) : qint8(-2);
    }
}

} // namespace

void JsonScanner::setCapturedKeys(const std::string_view *keys, int count)
{
    m_captureKeys = keys;
    m_captureKeyCount = std::min(count, int(CapturedMembers::kMaxKeys));
    indexKeys(m_captureIndex, keys, m_captureKeyCount, &keySlot);
}

void JsonScanner::setNestedCapturedKeys(int parent, const std::string_view *keys, int count)
{
    m_nestedParent = parent;
    m_nestedKeys = keys;
    m_nestedKeyCount = std::min(count, int(CapturedMembers::kMaxNestedKeys));
    indexKeys(m_nestedIndex, keys, m_nestedKeyCount, &keySlot);
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
