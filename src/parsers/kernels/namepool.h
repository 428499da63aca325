#pragma once
/// \file Interned kernel names: each distinct name stored once, looked up by view without
/// building a std::string. Shared by every kernel source (CSV traces, rocpd, rpd and Nsight
/// databases, rocprofv3 JSON, Perfetto traces), so both readings of a run use one id per name,
/// and every name is capped at kMaxNameBytes where it enters.

#include <QString>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace goblin::kernels
{

/// The longest name kept whole, in bytes. The longest real kernel names seen are C++ template
/// instantiations of about 7 KB (tests/data/runs/real-gunrock-compile); a name past this cap
/// comes from a damaged or crafted file, and is cut (cutName()) before anything classifies or
/// displays it, so no name regex ever runs over megabytes.
constexpr std::size_t kMaxNameBytes = 16 * 1024;

/// `name` as the workbench keeps it: unchanged up to kMaxNameBytes; a longer one becomes its first
/// bytes (cut at a UTF-8 character boundary) and a note of the whole length and a hash of the
/// whole name, at most kMaxNameBytes in all. The hash keeps two long names that share their
/// first 16 KiB two kernels (their sums stay apart as in the reference); cutName() of a cut name
/// is itself.
std::string cutName(std::string_view name);

/// Names that were cut in one file: how many and the longest (bytes).
struct NameCuts {
    std::int64_t count = 0;
    std::uint64_t longestBytes = 0;

    void add(std::uint64_t bytes)
    {
        ++count;
        longestBytes = std::max(longestBytes, bytes);
    }
    void add(const NameCuts &o)
    {
        count += o.count;
        longestBytes = std::max(longestBytes, o.longestBytes);
    }
    /// The one diagnostic a file gets for its cut names (empty when none were cut).
    QString message() const;
};

/// Multiply-mix hash, 16 bytes per step: every row's kernel name (often 1-2 KB) is hashed, so
/// std::hash (byte-wise murmur) would be a visible share of the load time.
std::uint64_t hashBytes(std::string_view s);

class NamePool
{
public:
    NamePool() : m_slots(1024) {}

    /// The id of `name` (0-based, first-seen order), adding it when new. A name longer than
    /// kMaxNameBytes is interned as cutName() makes it, and noted (cutsSince()).
    std::uint32_t intern(std::string_view name)
    {
        if (name.size() > kMaxNameBytes) [[unlikely]]
            return internLong(name);
        return internKept(name);
    }

    size_t size() const { return m_views.size(); }
    std::string_view view(std::uint32_t id) const { return m_views[id]; }

    /// A mark for cutsSince(): how many distinct names were cut so far.
    size_t cutMark() const { return m_cutBytes.size(); }
    /// The distinct names cut since `mark` (a reader takes a mark when it starts a file).
    NameCuts cutsSince(size_t mark) const;

    /// Hands the names over (id = index) and empties the pool.
    std::vector<std::string> take();

private:
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t id = 0; // 1-based; 0 = empty
    };

    std::uint32_t internKept(std::string_view name)
    {
        const std::uint64_t h = hashBytes(name);
        const size_t mask = m_slots.size() - 1;
        size_t i = size_t(h) & mask;
        for (;;) {
            Slot &slot = m_slots[i];
            if (slot.id == 0)
                break;
            if (slot.hash == h && m_views[slot.id - 1] == name)
                return slot.id - 1;
            i = (i + 1) & mask;
        }
        return add(name, h, i);
    }
    std::uint32_t internLong(std::string_view name);
    std::uint32_t add(std::string_view name, std::uint64_t hash, size_t slot);
    void grow();

    std::vector<Slot> m_slots;
    std::deque<std::string> m_storage; // never moves its elements: views into SSO strings stay valid
    std::vector<std::string_view> m_views;
    std::vector<std::uint64_t> m_cutBytes; ///< the whole length of each distinct name that was cut
};

} // namespace goblin::kernels

namespace goblin::kernels
{

/// Per record, one id for the name cell both readings use: interned once when both readings
/// read the same column. reset() at every record.
struct RowNameIds {
    NamePool &pool;
    int column = -1;
    std::uint32_t id = 0;

    void reset() { column = -1; }
    std::uint32_t operator()(int nameColumn, std::string_view stripped)
    {
        if (nameColumn != column) {
            id = pool.intern(stripped);
            column = nameColumn;
        }
        return id;
    }
};

} // namespace goblin::kernels
