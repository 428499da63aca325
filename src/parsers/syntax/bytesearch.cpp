#include "syntax/bytesearch.h"

namespace goblin::syntax
{

#if defined(GOBLIN_CSV_AVX2)
/// findAny3 with 32-byte AVX2 compares, for the long quoted kernel names (chosen at run time;
/// the build targets baseline x86-64).
__attribute__((target("avx2"))) const char *findAny3Avx2(const char *p, const char *e, char a, char b, char c)
{
    const __m256i va = _mm256_set1_epi8(a);
    const __m256i vb = _mm256_set1_epi8(b);
    const __m256i vc = _mm256_set1_epi8(c);
    while (e - p >= 64) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
        const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 32));
        const __m256i mx = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(x, va), _mm256_cmpeq_epi8(x, vb)),
                                           _mm256_cmpeq_epi8(x, vc));
        const __m256i my = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(y, va), _mm256_cmpeq_epi8(y, vb)),
                                           _mm256_cmpeq_epi8(y, vc));
        const std::uint64_t mask =
            std::uint32_t(_mm256_movemask_epi8(mx)) | (std::uint64_t(std::uint32_t(_mm256_movemask_epi8(my))) << 32);
        if (mask)
            return p + __builtin_ctzll(mask);
        p += 64;
    }
    return findAny3(p, e, a, b, c);
}

extern const bool kHaveAvx2 = [] {
    __builtin_cpu_init(); // static initialisers may run before libgcc's own
    return __builtin_cpu_supports("avx2") != 0;
}();
#endif

} // namespace goblin::syntax
