#include "namepool.h"

#include <cstdio>
#include <cstring>

namespace goblin::kernels
{

namespace
{

__extension__ typedef unsigned __int128 Uint128;

inline std::uint64_t mix64(std::uint64_t a, std::uint64_t b)
{
    const Uint128 r = static_cast<Uint128>(a) * b;
    return std::uint64_t(r) ^ std::uint64_t(r >> 64);
}

inline std::uint64_t load64(const char *p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

} // namespace

std::uint64_t hashBytes(std::string_view s)
{
    constexpr std::uint64_t k1 = 0xa0761d6478bd642full;
    constexpr std::uint64_t k2 = 0xe7037ed1a0b428dbull;
    const char *p = s.data();
    size_t n = s.size();
    std::uint64_t seed = 0x2d358dccaa6c78a5ull ^ std::uint64_t(n);
    while (n > 16) {
        seed = mix64(load64(p) ^ k1, load64(p + 8) ^ seed);
        p += 16;
        n -= 16;
    }
    std::uint64_t a = 0, b = 0;
    if (n >= 8) {
        a = load64(p);
        b = load64(p + n - 8);
    } else if (n >= 4) {
        std::uint32_t x, y;
        std::memcpy(&x, p, 4);
        std::memcpy(&y, p + n - 4, 4);
        a = x;
        b = y;
    } else if (n > 0) {
        a = (std::uint64_t(static_cast<unsigned char>(p[0])) << 16) |
            (std::uint64_t(static_cast<unsigned char>(p[n >> 1])) << 8) | static_cast<unsigned char>(p[n - 1]);
    }
    return mix64(a ^ k2 ^ seed, b ^ k1 ^ std::uint64_t(s.size()));
}

std::string cutName(std::string_view name)
{
    if (name.size() <= kMaxNameBytes)
        return std::string(name);
    char note[96];
    const int noteBytes = std::snprintf(note, sizeof note, "\xe2\x80\xa6 [cut: %llu bytes in all, #%016llx]",
                                        static_cast<unsigned long long>(name.size()),
                                        static_cast<unsigned long long>(hashBytes(name)));
    size_t keep = kMaxNameBytes - size_t(noteBytes);
    // Not inside a UTF-8 sequence: back up over continuation bytes to the start of a character.
    while (keep > 0 && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80)
        --keep;
    std::string out;
    out.reserve(keep + size_t(noteBytes));
    out.append(name.substr(0, keep));
    out.append(note, size_t(noteBytes));
    return out;
}

QString NameCuts::message() const
{
    if (count == 0)
        return QString();
    return QStringLiteral("%1 name(s) longer than %2 were cut to their first %2 for classification and display "
                          "(the longest had %3 bytes); no profiler writes such a name, the file is damaged or "
                          "crafted")
        .arg(count)
        .arg(QStringLiteral("%1 KiB").arg(kMaxNameBytes / 1024))
        .arg(longestBytes);
}

std::uint32_t NamePool::internLong(std::string_view name)
{
    const std::string cut = cutName(name);
    const size_t before = m_views.size();
    const std::uint32_t id = internKept(cut);
    if (m_views.size() > before)
        m_cutBytes.push_back(name.size());
    return id;
}

NameCuts NamePool::cutsSince(size_t mark) const
{
    NameCuts out;
    for (size_t i = mark; i < m_cutBytes.size(); ++i)
        out.add(m_cutBytes[i]);
    return out;
}

std::uint32_t NamePool::add(std::string_view name, std::uint64_t hash, size_t slot)
{
    m_storage.emplace_back(name);
    m_views.emplace_back(m_storage.back());
    const std::uint32_t id = std::uint32_t(m_views.size());
    m_slots[slot] = {hash, id};
    if (m_views.size() * 2 > m_slots.size())
        grow();
    return id - 1;
}

std::vector<std::string> NamePool::take()
{
    std::vector<std::string> out;
    out.reserve(m_storage.size());
    for (std::string &s : m_storage)
        out.push_back(std::move(s));
    m_storage.clear();
    m_views.clear();
    m_cutBytes.clear();
    m_slots.assign(1024, Slot());
    return out;
}

void NamePool::grow()
{
    std::vector<Slot> table(m_slots.size() * 2);
    const size_t mask = table.size() - 1;
    for (const Slot &s : m_slots) {
        if (s.id == 0)
            continue;
        size_t i = size_t(s.hash) & mask;
        while (table[i].id != 0)
            i = (i + 1) & mask;
        table[i] = s;
    }
    m_slots.swap(table);
}

} // namespace goblin::kernels
