#pragma once
/// \file Strict UTF-8 checking, fed chunk by chunk, as Python's utf-8 codec decides it.

#include <QByteArrayView>
#include <QString>
#include <QtGlobal>

#include <optional>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace goblin::syntax
{

/// Incremental validator with the rules of Python's strict utf-8 codec (no overlong forms,
/// no surrogates, nothing above U+10FFFF).
struct Utf8Validator {
    int need = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;

    /// Offset of the first invalid byte in [p, p + n), or -1.
    qint64 feed(const unsigned char *p, qint64 n)
    {
        qint64 i = 0;
        while (i < n) {
            if (need == 0) {
#if defined(__SSE2__)
                while (n - i >= 16) {
                    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
                    if (_mm_movemask_epi8(x))
                        break;
                    i += 16;
                }
#endif
                while (i < n && p[i] < 0x80)
                    ++i;
                if (i == n)
                    break;
                const unsigned char c = p[i];
                lo = 0x80;
                hi = 0xBF;
                if (c >= 0xC2 && c <= 0xDF) {
                    need = 1;
                } else if (c == 0xE0) {
                    need = 2;
                    lo = 0xA0;
                } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
                    need = 2;
                } else if (c == 0xED) {
                    need = 2;
                    hi = 0x9F;
                } else if (c == 0xF0) {
                    need = 3;
                    lo = 0x90;
                } else if (c >= 0xF1 && c <= 0xF3) {
                    need = 3;
                } else if (c == 0xF4) {
                    need = 3;
                    hi = 0x8F;
                } else {
                    return i;
                }
                ++i;
            } else {
                const unsigned char c = p[i];
                if (c < lo || c > hi)
                    return i;
                lo = 0x80;
                hi = 0xBF;
                --need;
                ++i;
            }
        }
        return -1;
    }
};

/// Where Python's strict UTF-8 decoder (Path.read_text) fails, with its message.
struct Utf8Failure {
    qint64 offset = 0;
    qint64 line = 1;
    QString pythonMessage;
};

/// The first bytes Python's strict utf-8 codec refuses in a whole text, if any.
std::optional<Utf8Failure> firstUtf8Error(QByteArrayView bytes);

/// Code points in a UTF-8 field (Python's csv counts characters, not bytes).
qint64 codePoints(std::string_view field);

} // namespace goblin::syntax
