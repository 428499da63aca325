#include "syntax/utf8validator.h"

#include <algorithm>

namespace goblin::syntax
{

std::optional<Utf8Failure> firstUtf8Error(QByteArrayView bytes)
{
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.constData());
    const qint64 n = bytes.size();
    qint64 i = 0;
    auto fail = [&](qint64 at, qint64 len, const char *reason) {
        Utf8Failure f;
        f.offset = at;
        f.line = 1 + std::count(bytes.begin(), bytes.begin() + at, '\n');
        if (len <= 1)
            f.pythonMessage = QStringLiteral("'utf-8' codec can't decode byte 0x%1 in position %2: %3")
                                  .arg(p[at], 2, 16, QLatin1Char('0'))
                                  .arg(at)
                                  .arg(QLatin1String(reason));
        else
            f.pythonMessage = QStringLiteral("'utf-8' codec can't decode bytes in position %1-%2: %3")
                                  .arg(at)
                                  .arg(at + len - 1)
                                  .arg(QLatin1String(reason));
        return f;
    };
    auto cont = [&](qint64 k) { return k < n && (p[k] & 0xc0) == 0x80; };
    while (i < n) {
        const unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        int need = 0;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            if (c == 0xe0)
                lo = 0xa0;
            if (c == 0xed)
                hi = 0x9f;  // no surrogates
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            if (c == 0xf0)
                lo = 0x90;
            if (c == 0xf4)
                hi = 0x8f;
        } else {
            return fail(i, 1, "invalid start byte");
        }
        // Python's error covers the valid part of the sequence: up to the end of the data
        // ("unexpected end of data") or up to the byte that does not continue it.
        qint64 k = i + 1;
        for (int j = 0; j < need; ++j, ++k) {
            if (k >= n)
                return fail(i, k - i, "unexpected end of data");
            const unsigned char b = p[k];
            const bool ok = j == 0 ? (b >= lo && b <= hi) : cont(k);
            if (!ok)
                return fail(i, k - i, "invalid continuation byte");
        }
        i = k;
    }
    return std::nullopt;
}

qint64 codePoints(std::string_view field)
{
    qint64 n = 0;
    for (char c : field)
        if ((static_cast<unsigned char>(c) & 0xc0) != 0x80)
            ++n;
    return n;
}

} // namespace goblin::syntax
