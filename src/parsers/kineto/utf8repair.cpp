// Python's read_text() decodes the whole file before json.loads sees it: one bad byte anywhere
// makes the reference crash, and this check words that crash as Python would. The workbench
// replaces bad bytes (they can only sit inside strings of a valid document) with '?' so that
// simdjson, which insists on UTF-8, still reads the event.
#include "kineto/tracereader.h"

#include <algorithm>

namespace goblin::kineto {

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
        // Rare: walk the range, replacing each maximal invalid subsequence with '?'.
        size_t i = 0;
        auto *u = reinterpret_cast<unsigned char *>(begin);
        while (i < length) {
            const unsigned char c = u[i];
            if (c < 0x80) {
                ++i;
                continue;
            }
            size_t need = 0;
            unsigned cp = 0;
            unsigned minimum = 0;
            if ((c & 0xE0) == 0xC0) {
                need = 1;
                cp = c & 0x1F;
                minimum = 0x80;
            } else if ((c & 0xF0) == 0xE0) {
                need = 2;
                cp = c & 0x0F;
                minimum = 0x800;
            } else if ((c & 0xF8) == 0xF0) {
                need = 3;
                cp = c & 0x07;
                minimum = 0x10000;
            }
            bool ok = need > 0 && i + need < length + 1;
            size_t k = 1;
            for (; ok && k <= need; ++k) {
                if (i + k >= length || (u[i + k] & 0xC0) != 0x80) {
                    ok = false;
                    break;
                }
                cp = (cp << 6) | (u[i + k] & 0x3F);
            }
            if (ok && (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)))
                ok = false;
            if (ok) {
                i += need + 1;
                continue;
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
                const size_t bad = std::max<size_t>(1, std::min(k, length - i));
                const bool endOfData = eof && need > 0 && i + k >= length;
                const QString reason = endOfData ? QStringLiteral("unexpected end of data")
                                       : need == 0 ? QStringLiteral("invalid start byte")
                                                   : QStringLiteral("invalid continuation byte");
                const qint64 position = offset + m_docSkip;
                m_utf8Reason = bad > 1 ? QStringLiteral("'utf-8' codec can't decode bytes in position %1-%2: %3")
                                             .arg(position)
                                             .arg(position + qint64(bad) - 1)
                                             .arg(reason)
                                       : QStringLiteral("'utf-8' codec can't decode byte 0x%1 in position %2: %3")
                                             .arg(c, 2, 16, QLatin1Char('0'))
                                             .arg(position)
                                             .arg(reason);
            }
            const size_t bad = std::max<size_t>(1, k);
            for (size_t b = 0; b < bad && i < length; ++b, ++i) {
                u[i] = '?';
                ++m_invalidUtf8Bytes;
            }
        }
    }
    m_utf8From = checkEnd;
}

} // namespace goblin::kineto
