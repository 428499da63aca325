// Python's read_text() decodes the whole file before json.loads sees it: one bad byte anywhere
// makes the reference crash, and this check words that crash as Python would. The workbench
// replaces bad bytes (they can only sit inside strings of a valid document) with '?' so that
// simdjson, which insists on UTF-8, still reads the event.
#include "kineto/tracereader.h"

#include <algorithm>

namespace goblin::kineto {

namespace {

/// One step of CPython's UTF-8 decoder at a byte >= 0x80 (Objects/stringlib/codecs.h): `valid`
/// bytes of a good sequence, or the `bad` bytes its error message spans and the reason; both 0
/// when the sequence runs past the `available` bytes and more data follows. Lead bytes C0, C1
/// and F5..FF are invalid start bytes; E0, ED, F0 and F4 narrow their second byte's range.
struct Utf8Step {
    int valid = 0;
    int bad = 0;
    const char *reason = "";
};

Utf8Step pythonUtf8Step(const unsigned char *s, size_t available, bool endOfData)
{
    const unsigned c = s[0];
    if (c < 0xC2 || c > 0xF4)
        return {0, 1, "invalid start byte"};
    const size_t need = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    for (size_t k = 1; k < need; ++k) {
        if (k >= available)
            return endOfData ? Utf8Step{0, int(available), "unexpected end of data"} : Utf8Step{};
        const unsigned b = s[k];
        bool continuation = (b & 0xC0) == 0x80;
        if (k == 1 && continuation) {
            if (c == 0xE0)
                continuation = b >= 0xA0;  // overlong
            else if (c == 0xED)
                continuation = b < 0xA0;   // a surrogate
            else if (c == 0xF0)
                continuation = b >= 0x90;  // overlong
            else if (c == 0xF4)
                continuation = b < 0x90;   // beyond U+10FFFF
        }
        if (!continuation)
            return {0, int(k), "invalid continuation byte"};
    }
    return {int(need), 0, ""};
}

} // namespace

void TraceReader::checkUtf8(bool eof)
{
    const qint64 dataEnd = m_bufBase + qint64(m_len);
    qint64 checkEnd = dataEnd;
    if (!eof) {
        // Leave a possibly incomplete sequence at the end for the next round.
        qint64 p = dataEnd;
        int back = 0;
        while (p > m_utf8From && back < 4) {
            const quint8 c = quint8(*at(p - 1));
            --p;
            ++back;
            if ((c & 0xC0) != 0x80) {  // a lead byte or ASCII
                int need = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
                if (need > back)
                    checkEnd = p;
                break;
            }
        }
    }
    if (checkEnd <= m_utf8From)
        return;
    char *begin = at(m_utf8From);
    const size_t length = size_t(checkEnd - m_utf8From);
    if (!simdjson::validate_utf8(begin, length)) {
        // Rare: walk the range, replacing each invalid subsequence with '?'. Sequences are
        // judged as CPython's decoder judges them (pythonUtf8Step), so where a round ends
        // changes nothing: a sequence cut off by the end of this round's data waits for the next.
        size_t i = 0;
        auto *u = reinterpret_cast<unsigned char *>(begin);
        while (i < length) {
            const unsigned char c = u[i];
            if (c < 0x80) {
                ++i;
                continue;
            }
            const Utf8Step step = pythonUtf8Step(u + i, length - i, eof && checkEnd == dataEnd);
            if (step.valid > 0) {
                i += size_t(step.valid);
                continue;
            }
            if (step.bad == 0) {  // cut off: read on first
                checkEnd = m_utf8From + qint64(i);
                break;
            }
            const qint64 offset = m_utf8From + qint64(i);
            if (m_firstInvalidUtf8Offset < 0) {
                m_firstInvalidUtf8Offset = offset;
                qint64 line;
                if (m_scanner.failed()) {
                    line = m_lineAtBase + std::count(at(m_bufBase), at(offset), '\n');
                } else {
                    // The scanner has counted lines up to the start of this round's new data.
                    const qint64 scanned = m_scanner.offset();
                    line = m_scanner.line();
                    if (offset >= scanned)
                        line += std::count(at(scanned), at(offset), '\n');
                    else
                        line -= std::count(at(offset), at(scanned), '\n');
                }
                m_firstInvalidUtf8Line = line;
                const QString reason = QLatin1String(step.reason);
                const qint64 position = offset + m_docSkip;
                m_utf8Reason = step.bad > 1 ? QStringLiteral("'utf-8' codec can't decode bytes in position %1-%2: %3")
                                                  .arg(position)
                                                  .arg(position + qint64(step.bad) - 1)
                                                  .arg(reason)
                                            : QStringLiteral("'utf-8' codec can't decode byte 0x%1 in position %2: %3")
                                                  .arg(c, 2, 16, QLatin1Char('0'))
                                                  .arg(position)
                                                  .arg(reason);
            }
            for (int b = 0; b < step.bad && i < length; ++b, ++i) {
                u[i] = '?';
                ++m_invalidUtf8Bytes;
            }
        }
    }
    m_utf8From = checkEnd;
}

} // namespace goblin::kineto
