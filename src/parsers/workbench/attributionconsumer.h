#pragma once
/// \file Where the primary Kineto trace's GPU time was launched from (traceattribution.h), as an
/// event consumer (kineto/eventconsumer.h). While the events stream past it keeps compact records
/// only: per thread, the CPU ranges (ops, annotations, python frames) and the runtime calls; the
/// GPU events with their correlation id; the ProfilerStep windows. Names are interned. The join —
/// GPU event → runtime call (args.correlation) → innermost CPU op around the call on its thread
/// (time containment) → the stack of ranges enclosing it — is made once the document ends, because
/// Kineto writes the three kinds in separate blocks, in any order. docs/attribution.md defines
/// every figure; scripts/attribution_count.py counts the same figures independently.

#include "kineto/eventconsumer.h"
#include "workbench/bytelog.h"
#include "workbench/idmap.h"

#include <QtGlobal>

#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace goblin::workbench {

/// The thread of an event as its "tid" member's raw token; empty when it has none.
std::string_view eventThreadToken(const kineto::KinetoEvent &event);

/// args["Input Dims"] of an op as compact JSON text (whitespace outside strings removed); empty
/// when the args object has no such member at depth 1, or a value that cannot be shown (cut off).
/// `keyFound`: the member is there (record_shapes was on), whatever its value.
std::string inputDimsText(std::string_view args, bool *keyFound);
/// Appends args["Input type"] of an op (the dtypes of its inputs) as compact JSON text to `out`;
/// nothing when there is none. `dimsToken`: the "Input Dims" value where the scanner located it
/// inside `args` (the search starts behind it, where Kineto writes the types), else empty.
void appendInputTypes(std::string &out, std::string_view args, std::string_view dimsToken);
/// The ops whose cost needs their "Concrete Inputs" (a convolution's stride, padding, dilation,
/// groups; attention's is_causal): only their key carries it, so no other op pays for the search.
bool opNeedsConcreteInputs(std::string_view name);
/// Appends '\x1d' and args["Concrete Inputs"] as compact JSON text to `out`; nothing when there is
/// none. `dimsToken` as for appendInputTypes (Kineto writes it after "Input Dims").
void appendConcreteInputs(std::string &out, std::string_view args, std::string_view dimsToken);
/// compactArrayText appended to `out` (nothing when it would be empty): no allocation per op.
void appendCompactArray(std::string &out, std::string_view value);
/// A JSON array's text (from its '[') with whitespace outside strings removed; empty when it is
/// no array or is cut off.
std::string compactArrayText(std::string_view value);

class AttributionConsumer final : public kineto::EventConsumer
{
public:
    explicit AttributionConsumer(const kineto::ConsumerContext &) {}

    static std::unique_ptr<kineto::EventConsumer> make(const kineto::ConsumerContext &context)
    {
        return std::make_unique<AttributionConsumer>(context);
    }

    void onEvent(const kineto::KinetoEvent &event) override;
    void finishRange() override;
    void absorb(kineto::EventConsumer &laterRange, int generation) override;
    void finish(const kineto::KinetoDocument &document, TorchTrace &out) override;

    /// What kind of range or call a CPU record is (the order matters: frames of the flame graph).
    enum Kind : quint8 { KindOp, KindAnnotation, KindPython, KindModule, KindCall };

    /// One CPU range or runtime call of a thread, decoded. For a call, `end` holds the
    /// correlation id.
    struct CpuRecord {
        qint64 begin;
        qint64 end;
        quint32 key;  ///< interned name (ops: name and input shapes)
        Kind kind;
    };
    /// One GPU event, decoded.
    struct GpuRecord {
        qint64 correlation;  ///< -1: none
        qint64 durationNs;
        quint32 name;
        bool inGraph;  ///< carries a nonzero "graph id"
    };

    /// Records as bytes: each number the difference to the previous one where that is small,
    /// zigzagged, as a LEB128 varint (an op takes ~7 bytes instead of 24, a GPU event ~5). A
    /// segment is what one reader wrote; `names` maps the interned ids of a byte range's reader
    /// onto the main reader's (null: already the main reader's).
    struct Segment {
        ByteLog bytes;
        std::shared_ptr<const std::vector<quint32>> names;
    };
    struct ThreadLog {
        std::vector<Segment> segments;
        qint64 previousBegin = 0;  // of the segment being written
        qint64 previousCorrelation = 0;
        CpuRecord first{0, 0, 0, KindOp};
        CpuRecord last{0, 0, 0, KindOp};
        qint64 records = 0;  ///< in `segments`, which hold them in the join's order
        /// Records met after one they sort before (python frames are written after the ops
        /// inside them; Kineto writes the runtime calls after the ops): kept whole and merged
        /// into the stream when it is swept.
        std::vector<CpuRecord> late;
    };
    struct GpuLog {
        std::vector<Segment> segments;
        qint64 previousCorrelation = 0;
    };
    struct StepRecord {
        qint64 begin;
        qint64 end;
        quint32 name;
    };
    /// A `[memory]` event that allocated or freed on a GPU device, for the op around it.
    struct AllocRecord {
        qint64 tsNs;
        qint64 bytes;    ///< negative: freed
        quint32 thread;  ///< m_allocThreads: pid and tid without quotes (2021 traces quote only the ops')
        quint32 device;  ///< interned "\x1e<Device Id>,<Device Type>"
    };

    /// Strings to small ids, stored once.
    class Interner
    {
    public:
        quint32 id(std::string_view text);
        const std::string &text(quint32 id) const { return *m_texts[id]; }
        size_t size() const { return m_texts.size(); }

    private:
        struct Hash {
            using is_transparent = void;
            // Kernel names run to hundreds of bytes and share long prefixes (Cijk_Ailk_Bljk_…):
            // the length, the first 16 and the last 48 bytes tell them apart at a fraction of the
            // cost of hashing every byte (as the GPU timeline's name table does).
            size_t operator()(std::string_view s) const noexcept
            {
                if (s.size() <= 64)
                    return std::hash<std::string_view>{}(s);
                return std::hash<std::string_view>{}(s.substr(0, 16)) * 31 ^
                       std::hash<std::string_view>{}(s.substr(s.size() - 48)) ^ s.size();
            }
        };
        static constexpr size_t kRecentSlots = 1024;
        std::deque<std::string> m_storage;
        std::vector<const std::string *> m_texts;
        std::array<quint32, kRecentSlots> m_recent = filledRecent();
        static std::array<quint32, kRecentSlots> filledRecent()
        {
            std::array<quint32, kRecentSlots> filled;
            filled.fill(~quint32(0));
            return filled;
        }
        std::unordered_map<std::string_view, quint32, Hash, std::equal_to<>> m_ids;
    };

private:
    void addCpu(const kineto::KinetoEvent &event, Kind kind, qint64 begin, qint64 end, quint32 key);
    void addAllocation(const kineto::KinetoEvent &event);
    /// The segment this reader writes into (a new one after a byte range's), numbers reset.
    static void append(ThreadLog &log, const CpuRecord &record);
    static Segment &writable(std::vector<Segment> &segments, qint64 &previous, qint64 *previous2 = nullptr);

    Interner m_names;    // range names, op keys (name \x1f shapes), kernel names
    Interner m_threads;  // "pid \x1f tid" as written
    std::vector<ThreadLog> m_cpu;  // per thread id
    GpuLog m_gpu;
    qint64 m_gpuEvents = 0;
    /// Runtime calls per 4096 correlation ids: the join keeps the sites of dense pages in arrays.
    static constexpr int kCorrelationPageBits = 12;
    IdMap<qint64> m_correlationPages;
    std::vector<StepRecord> m_steps;
    Interner m_allocThreads;
    std::vector<AllocRecord> m_allocs;
    qint64 m_ops = 0;
    qint64 m_calls = 0;
    bool m_shapes = false;
    std::string m_keyScratch;
    std::string m_lastThread;  // the last thread key looked up, and its id: events come in runs
    quint32 m_lastThreadId = 0;
};

} // namespace goblin::workbench
