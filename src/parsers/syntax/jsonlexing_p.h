#pragma once
/// \file Internal to syntax/jsonscanner*.cpp: the byte-level helpers of the scanner's two paths
/// (the resumable state machine in jsonscanner.cpp, the whole-container fast path in
/// jsonfastpath.cpp). In an unnamed namespace so that each path keeps its own inlined copy.

#include <string_view>

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
__attribute__((target("avx2"))) inline const char *findStringSpecialAvx2(const char *p, const char *end)
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

} // namespace

} // namespace goblin
