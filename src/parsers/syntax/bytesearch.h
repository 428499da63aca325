#pragma once
/// \file The byte searches of the CSV grammar: the next quote or line end (SSE2, AVX2 when the
/// CPU has it), and physical line breaks as Python's universal newlines count them; and the
/// search for a quoted key in a JSON event's bytes.

#include <QtGlobal>

#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GOBLIN_CSV_AVX2 1
#endif

namespace goblin::syntax
{

/// First byte in [p, e) equal to a, b or c; e when none. The reader spends most of its time
/// here (kernel names are hundreds of bytes long), so it looks at 32 bytes per step.
[[gnu::always_inline]] inline const char *findAny3(const char *p, const char *e, char a, char b, char c)
{
#if defined(__SSE2__)
    const __m128i va = _mm_set1_epi8(a);
    const __m128i vb = _mm_set1_epi8(b);
    const __m128i vc = _mm_set1_epi8(c);
    while (e - p >= 32) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 16));
        const __m128i mx =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)), _mm_cmpeq_epi8(x, vc));
        const __m128i my =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(y, va), _mm_cmpeq_epi8(y, vb)), _mm_cmpeq_epi8(y, vc));
        const unsigned mask = unsigned(_mm_movemask_epi8(mx)) | (unsigned(_mm_movemask_epi8(my)) << 16);
        if (mask)
            return p + __builtin_ctz(mask);
        p += 32;
    }
    if (e - p >= 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        const __m128i mx =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)), _mm_cmpeq_epi8(x, vc));
        const unsigned mask = unsigned(_mm_movemask_epi8(mx));
        if (mask)
            return p + __builtin_ctz(mask);
        p += 16;
    }
#endif
    for (; p < e; ++p)
        if (*p == a || *p == b || *p == c)
            return p;
    return e;
}

#if defined(GOBLIN_CSV_AVX2)
/// findAny3 with 32-byte AVX2 compares, for the long quoted kernel names (chosen at run time;
/// the build targets baseline x86-64).
const char *findAny3Avx2(const char *p, const char *e, char a, char b, char c);
extern const bool kHaveAvx2;
#endif

/// The search inside quoted fields, where the long names are.
inline const char *findInQuoted(const char *p, const char *e)
{
#if defined(GOBLIN_CSV_AVX2)
    if (kHaveAvx2)
        return findAny3Avx2(p, e, '"', '\n', '\r');
#endif
    return findAny3(p, e, '"', '\n', '\r');
}

/// Physical line breaks in [p, e) as Python's universal newlines count them (CRLF is one).
inline qint64 countLineBreaks(const char *p, const char *e)
{
    qint64 n = 0;
    for (; p < e; ++p) {
        if (*p == '\n') {
            ++n;
        } else if (*p == '\r') {
            ++n;
            if (p + 1 < e && p[1] == '\n')
                ++p;
        }
    }
    return n;
}

/// Line feeds in [p, e), found with memchr (the C library's vector search: under the fuzzers'
/// instrumentation a byte loop costs a callback per byte).
inline qint64 countNewlines(const char *p, const char *e)
{
    qint64 n = 0;
    while (p < e) {
        const void *hit = std::memchr(p, '\n', size_t(e - p));
        if (!hit)
            break;
        ++n;
        p = static_cast<const char *>(hit) + 1;
    }
    return n;
}

/// The first `quoted` (a key with its quotes) in [p, end), or nullptr. Candidates are a quote
/// followed by the key's first letter, 16 positions at a time: an event's args hold a handful.
/// The JSON event readers (workbench/) find their args members with it.
inline const char *findQuoted(const char *p, const char *end, std::string_view quoted)
{
    const size_t k = quoted.size();
    if (size_t(end - p) < k)
        return nullptr;
    const char *const last = end - k;  // the last position a match can start at
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i letter = _mm_set1_epi8(quoted[1]);
    while (last - p >= 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 1));
        unsigned mask = unsigned(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(y, letter))));
        while (mask) {
            const char *at = p + __builtin_ctz(mask);
            if (std::memcmp(at, quoted.data(), k) == 0)
                return at;
            mask &= mask - 1;
        }
        p += 16;
    }
#endif
    for (; p <= last; ++p)
        if (*p == '"' && p[1] == quoted[1] && std::memcmp(p, quoted.data(), k) == 0)
            return p;
    return nullptr;
}

/// findQuoted inside a JSON object whose '{' is at `p`, with what the caller needs to trust the
/// match without walking the object: whether a '{', '}' or backslash lies between the '{' and the
/// match (or, when there is no match, whether a backslash lies anywhere). One pass over the bytes.
struct QuotedInObject {
    const char *at = nullptr;
    bool braceOrEscapeBefore = false;  ///< found: a '{', '}' or '\\' in (p, at)
    bool escape = false;               ///< not found: a '\\' in [p, end)
};
inline QuotedInObject findQuotedInObject(const char *p, const char *end, std::string_view quoted)
{
    QuotedInObject out;
    const size_t k = quoted.size();
    const char *q = p + 1;
    bool special = false;
#if defined(__SSE2__)
    if (size_t(end - q) > k + 16) {
        const char *const last = end - k;
        const __m128i quote = _mm_set1_epi8('"');
        const __m128i letter = _mm_set1_epi8(quoted[1]);
        const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'), slash = _mm_set1_epi8('\\');
        while (last - q >= 16) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(q));
            const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i *>(q + 1));
            unsigned pairs = unsigned(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(y, letter))));
            const unsigned braces = unsigned(_mm_movemask_epi8(_mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(x, open), _mm_cmpeq_epi8(x, close)), _mm_cmpeq_epi8(x, slash))));
            while (pairs) {
                const unsigned i = unsigned(__builtin_ctz(pairs));
                if (std::memcmp(q + i, quoted.data(), k) == 0) {
                    out.at = q + i;
                    out.braceOrEscapeBefore = special || (braces & ((1u << i) - 1u));
                    return out;
                }
                pairs &= pairs - 1;
            }
            special = special || braces;
            q += 16;
        }
    }
#endif
    for (; q + k <= end; ++q) {
        if (*q == '"' && q[1] == quoted[1] && std::memcmp(q, quoted.data(), k) == 0) {
            out.at = q;
            out.braceOrEscapeBefore = special;
            return out;
        }
        special = special || *q == '{' || *q == '}' || *q == '\\';
    }
    out.escape = std::memchr(p, '\\', size_t(end - p)) != nullptr;
    return out;
}

} // namespace goblin::syntax
