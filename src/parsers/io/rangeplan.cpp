#include "io/rangeplan.h"

#include <algorithm>
#include <array>

namespace goblin::io {

qint64 findElementStart(const char *data, qint64 size, qint64 from)
{
    const auto isSpace = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
    for (qint64 i = std::max<qint64>(0, from); i < size; ++i) {
        if (data[i] != '{')
            continue;
        qint64 j = i - 1;
        while (j >= 0 && isSpace(data[j]))
            --j;
        if (j < 0 || data[j] != ',')
            continue;
        --j;
        while (j >= 0 && isSpace(data[j]))
            --j;
        if (j >= 0 && data[j] == '}')
            return i;
    }
    return -1;
}

qint64 findElementStart(ByteSource &source, qint64 from)
{
    // A small window on the stack: a cut is usually found within a few hundred bytes, and the
    // fuzzer plans ranges in inputs of a few kB thousands of times a second (a fresh zeroed 64 kB
    // window per cut was a tenth of its time under ASan).
    constexpr qint64 kLookBack = 256;
    constexpr qint64 kWindow = 4096;
    std::array<char, size_t(kLookBack + kWindow)> window;
    for (qint64 at = from; at < from + (qint64(1) << 20) && at < source.fileSize(); at += kWindow) {
        const qint64 base = std::max<qint64>(0, at - kLookBack);
        const qint64 n = source.peek(base, window.data(), qint64(window.size()));
        if (n <= 0)
            return -1;
        if (const qint64 i = findElementStart(window.data(), n, at - base); i >= 0)
            return base + i;
    }
    return -1;
}

} // namespace goblin::io
