#include "pftrace/pftracereader.h"

#include "io/bytesource.h"
#include "kernels/pushedfile.h"
#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "kernels/hostlanesbuilder.h"
#include "kernels/timelinebuilder.h"
#include "pynumber.h"

#include <QFileInfo>

#include <protozero/exception.hpp>
#include <protozero/pbf_reader.hpp>
#include <protozero/varint.hpp>

#include <zlib.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace goblin
{

namespace
{

const QString kFormat = QStringLiteral("pftrace");
constexpr size_t kChunkBytes = size_t(1) << 20;
constexpr quint64 kMaxPacketBytes = quint64(256) << 20; // no writer makes a packet this large
constexpr qint64 kMaxPlausibleKernelNs = 86'400'000'000'000;

// Field numbers (perfetto protos/perfetto/trace/…).
namespace trace_packet {
constexpr protozero::pbf_tag_type kClockSnapshot = 6, kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11,
                                  kInternedData = 12, kSequenceFlags = 13, kIncrementalStateCleared = 41,
                                  kTimestampClockId = 58, kDefaults = 59, kTrackDescriptor = 60,
                                  kPreviousPacketDropped = 42, kCompressedPackets = 50;
}
namespace track_event {
constexpr protozero::pbf_tag_type kCategoryIids = 3, kDebugAnnotations = 4, kType = 9, kNameIid = 10, kTrackUuid = 11,
                                  kCategories = 22, kName = 23;
constexpr quint64 kSliceBegin = 1, kSliceEnd = 2, kInstant = 3;
}
namespace debug_annotation {
constexpr protozero::pbf_tag_type kNameIid = 1, kBool = 2, kUint = 3, kInt = 4, kString = 6, kName = 10;
}
namespace track_descriptor {
constexpr protozero::pbf_tag_type kUuid = 1, kName = 2, kProcess = 3, kThread = 4, kParentUuid = 5;
}
constexpr quint32 kBootTime = 6;        // BUILTIN_CLOCK_BOOTTIME: the default trace clock
constexpr quint32 kSeqIncrementalCleared = 1, kSeqNeedsIncrementalState = 2;
constexpr qint64 kMaxInflatedBytes = qint64(1) << 30; // compressed_packets: no writer makes more

/// A field of the wrong wire type: the packet is malformed (protozero's typed getters assume it).
struct WrongWireType : protozero::exception {
    const char *what() const noexcept override { return "wrong wire type"; }
};

void want(const protozero::pbf_reader &r, protozero::pbf_wire_type type)
{
    if (r.wire_type() != type)
        throw WrongWireType();
}

enum class Kind : quint8 { Kernel, RuntimeCall, Marker, Other };

struct Track {
    std::string name;
    qint64 pid = -1;
    qint64 tid = -1;
    quint64 parent = 0;
};

/// Per trusted_packet_sequence_id: what its packets may refer to (cleared with its incremental state).
struct Sequence {
    std::unordered_map<quint64, std::string> eventNames, categories, annotationNames;
    std::unordered_map<quint32, std::pair<quint64, quint64>> incrementalClocks; ///< id -> (last value, ns per unit)
    bool valid = false;       ///< its incremental state was set (SEQ_INCREMENTAL_STATE_CLEARED seen)
    quint32 defaultClock = 0; ///< 0: none set
    quint64 defaultTrack = 0;
    bool haveDefaultTrack = false;
};

/// What a TYPE_SLICE_BEGIN said (its END only closes it).
struct OpenSlice {
    std::uint32_t name = 0; ///< index into Reader::m_strings
    std::uint32_t category = 0;
    Kind kind = Kind::Other;
    qint64 startNs = 0;
    qint64 agent = -1;
    qint64 queue = -1;
    qint64 tid = -1;
};

struct Slice {
    std::uint32_t name = 0;
    qint64 startNs = 0;
    qint64 endNs = 0;
    quint64 track = 0;
    qint64 agent = -1;
    qint64 queue = -1;
    qint64 tid = -1;
};

/// "AGENT [2]" in a rocprofv3 track name ("COMPUTE AGENT [2] STREAM [0] (GPU)"), "Agent 2", "GPU 0".
qint64 agentFromText(std::string_view text)
{
    return kernels::agentNumber(text);
}

qint64 agentFromTrackName(std::string_view name)
{
    std::string upper(name);
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    const size_t at = upper.find("AGENT [");
    if (at == std::string::npos)
        return -1;
    qint64 n = 0;
    size_t i = at + 7;
    if (i >= upper.size() || !std::isdigit(static_cast<unsigned char>(upper[i])))
        return -1;
    while (i < upper.size() && std::isdigit(static_cast<unsigned char>(upper[i])) && n < (qint64(1) << 40))
        n = n * 10 + (upper[i++] - '0');
    return n;
}

/// rocprofv3 names kernel slices by the demangled `kernel_name`, which keeps the `.kd` symbol suffix.
std::string_view kernelName(std::string_view name)
{
    name = pythonStrip(name);
    for (std::string_view suffix : {std::string_view(" [clone .kd]"), std::string_view(".kd")})
        if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix)
            return name.substr(0, name.size() - suffix.size());
    return name;
}

/// What finish() counted of the kernel slices.
struct SliceCounts {
    qint64 rows = 0, skipped = 0, zeroRows = 0, negativeRows = 0, noNameRows = 0, implausibleRows = 0, noAgent = 0;
};

class Reader
{
public:
    Reader(const QString &rel, KernelSink &sink, KernelTrace &trace) : m_rel(rel), m_sink(sink), m_trace(trace)
    {
        if (sink.keepHostLanes)
            m_lanes.emplace();
    }

    /// Splits the stream into packets; false once the framing is broken (the rest is not read).
    bool feed(const char *data, size_t size);
    void finishInput() {}  // a packet cut off by the end shows in finish()
    ReadOutcome finish(InputFileInfo &info, const QString &inputProblem);

private:
    // finish()'s phases: why nothing can be read (nullopt: the file is read); each kernel slice
    // onto the timeline and into the readings; the marker slices into the host activity; what the
    // packet stream and the kernel slices said; the file's row.
    std::optional<ReadOutcome> refusal(InputFileInfo &info, const QString &inputProblem);
    qint64 pidOfTrack(quint64 uuid) const;
    void sweepKernel(const Slice &k, qint64 correlation, kernels::TimelineBuilder &timeline,
                     std::vector<std::uint32_t> &globalIds, SliceCounts &c);
    void collectMarkers();
    /// The thread of a slice (its tid annotation, else its track's) for the host lanes.
    std::uint16_t laneThread(quint64 track, qint64 tid);
    void streamDiagnostics(const QString &inputProblem);
    void sliceDiagnostics(const SliceCounts &c, bool streamOverflow);
    void describe(InputFileInfo &info, const SliceCounts &c) const;

    void packet(const char *data, size_t size);
    /// TracePacket.compressed_packets: a zlib stream of more `0x0a len packet` records.
    void inflatePackets(const char *data, size_t size);
    int m_nesting = 0;
    qint64 m_badCompressed = 0;
    void trackEvent(protozero::pbf_reader event, Sequence &seq, qint64 ts);
    /// A slice's debug annotations the reader uses (agent, queue, tid, corr_id; -1: not given).
    struct SliceArgs {
        qint64 agent = -1, queue = -1, tid = -1, correlation = -1;
        bool wantCorrelation = false;  ///< corr_id is read for the host lanes only
    };
    static void debugAnnotation(protozero::pbf_reader a, const Sequence &seq, SliceArgs &args);
    /// A BEGIN or INSTANT event: a slice opened on its track (an instant marker kept as a mark).
    void sliceStart(quint64 type, quint64 track, std::string_view name, const std::string &category, qint64 ts,
                    const SliceArgs &args);
    void trackDescriptor(protozero::pbf_reader desc);
    void internedData(protozero::pbf_reader data, Sequence &seq);
    void clockSnapshot(protozero::pbf_reader snapshot, Sequence &seq);
    std::uint32_t intern(std::string_view s)
    {
        auto it = m_stringIds.find(std::string(s));
        if (it != m_stringIds.end())
            return it->second;
        const auto id = std::uint32_t(m_strings.size());
        m_strings.emplace_back(s);
        m_stringIds.emplace(m_strings.back(), id);
        return id;
    }

    QString m_rel;
    KernelSink &m_sink;
    KernelTrace &m_trace;

    // ---- Framing.
    std::string m_carry;      ///< bytes of an incomplete packet (or its header)
    qint64 m_offset = 0;      ///< absolute offset of the first byte of m_carry
    bool m_broken = false;
    QString m_brokenWhy;
    qint64 m_packets = 0;
    qint64 m_badPackets = 0;
    qint64 m_firstBadPacketOffset = -1;
    qint64 m_packetOffset = 0; ///< offset of the packet being decoded

    // ---- What the packets said.
    std::unordered_map<quint32, Sequence> m_sequences;
    std::unordered_map<quint64, Track> m_tracks;
    /// Per track, its BEGIN and END events in file order: paired at the end (pairSlices()).
    struct Mark {
        qint64 ts;
        std::uint32_t begin; ///< index into m_begins; kNoBegin for an END
    };
    static constexpr std::uint32_t kNoBegin = 0xffffffffu;
    std::unordered_map<quint64, std::vector<Mark>> m_marks;
    std::vector<OpenSlice> m_begins;
    qint64 m_unended = 0;
    qint64 m_reorderedTracks = 0;
    qint64 m_droppedPackets = 0; ///< SEQ_NEEDS_INCREMENTAL_STATE before the sequence's reset
    void pairSlices();
    std::vector<std::string> m_strings;
    std::unordered_map<std::string, std::uint32_t> m_stringIds;
    std::vector<Slice> m_kernels;
    std::vector<Slice> m_markers;
    std::map<std::string, qint64> m_otherCategories;
    qint64 m_unmatchedEnds = 0;
    qint64 m_events = 0;
    qint64 m_hipCalls = 0;
    // The Timeline's host lanes (the window's reading only): each BEGIN's corr_id (by index into
    // m_begins) and each kernel's (by index into m_kernels).
    std::optional<kernels::HostLanesBuilder> m_lanes;
    std::vector<qint64> m_beginCorrelations, m_kernelCorrelations;
    static constexpr qint64 kUnknownPid = -2;
    qint64 m_onlyPid = kUnknownPid;  ///< the pid of every track that has one (0: several or none)
};

bool Reader::feed(const char *data, size_t size)
{
    if (m_broken)
        return false;
    m_carry.append(data, size);
    const char *p = m_carry.data();
    const char *const end = p + m_carry.size();
    while (p < end) {
        const char *q = p;
        quint64 tag = 0, length = 0;
        try {
            tag = protozero::decode_varint(&q, end);
            if (q == end)
                break;
            length = protozero::decode_varint(&q, end);
        } catch (const protozero::end_of_buffer_exception &) {
            break; // the header continues in the next chunk
        } catch (const protozero::exception &) {
            m_broken = true;
            m_brokenWhy = QStringLiteral("a malformed varint at byte offset %1").arg(m_offset + (p - m_carry.data()));
            break;
        }
        if (tag != 0x0a || length > kMaxPacketBytes) {
            m_broken = true;
            m_brokenWhy = tag != 0x0a ? QStringLiteral("byte offset %1 holds field tag 0x%2 where a TracePacket (tag 0x0a) "
                                                       "should start")
                                            .arg(m_offset + (p - m_carry.data()))
                                            .arg(tag, 0, 16)
                                      : QStringLiteral("the packet at byte offset %1 claims %2 bytes")
                                            .arg(m_offset + (p - m_carry.data()))
                                            .arg(length);
            break;
        }
        if (quint64(end - q) < length)
            break; // the packet continues in the next chunk
        m_packetOffset = m_offset + (p - m_carry.data());
        packet(q, size_t(length));
        p = q + length;
    }
    const size_t used = size_t(p - m_carry.data());
    m_offset += qint64(used);
    m_carry.erase(0, used);
    return !m_broken;
}

void Reader::packet(const char *data, size_t size)
{
    ++m_packets;
    try {
        protozero::pbf_reader packet(data, size);
        quint64 timestamp = 0;
        bool haveTimestamp = false;
        quint32 clock = 0, sequenceId = 0, flags = 0;
        bool cleared = false, dropped = false;
        protozero::data_view event, interned, defaults, descriptor, snapshot, compressed;
        bool haveCompressed = false;
        bool haveEvent = false, haveInterned = false, haveDefaults = false, haveDescriptor = false, haveSnapshot = false;
        while (packet.next()) {
            switch (packet.tag()) {
            case trace_packet::kTimestamp: timestamp = (want(packet, protozero::pbf_wire_type::varint), packet.get_uint64()); haveTimestamp = true; break;
            case trace_packet::kTimestampClockId: clock = (want(packet, protozero::pbf_wire_type::varint), packet.get_uint32()); break;
            case trace_packet::kSequenceId: sequenceId = (want(packet, protozero::pbf_wire_type::varint), packet.get_uint32()); break;
            case trace_packet::kSequenceFlags: flags = (want(packet, protozero::pbf_wire_type::varint), packet.get_uint32()); break;
            case trace_packet::kIncrementalStateCleared: cleared = (want(packet, protozero::pbf_wire_type::varint), packet.get_bool()); break;
            case trace_packet::kTrackEvent: event = (want(packet, protozero::pbf_wire_type::length_delimited), packet.get_view()); haveEvent = true; break;
            case trace_packet::kInternedData: interned = (want(packet, protozero::pbf_wire_type::length_delimited), packet.get_view()); haveInterned = true; break;
            case trace_packet::kDefaults: defaults = (want(packet, protozero::pbf_wire_type::length_delimited), packet.get_view()); haveDefaults = true; break;
            case trace_packet::kTrackDescriptor: descriptor = (want(packet, protozero::pbf_wire_type::length_delimited), packet.get_view()); haveDescriptor = true; break;
            case trace_packet::kClockSnapshot: snapshot = (want(packet, protozero::pbf_wire_type::length_delimited), packet.get_view()); haveSnapshot = true; break;
            case trace_packet::kPreviousPacketDropped: dropped = (want(packet, protozero::pbf_wire_type::varint), packet.get_bool()); break;
            case trace_packet::kCompressedPackets: compressed = (want(packet, protozero::pbf_wire_type::length_delimited), packet.get_view()); haveCompressed = true; break;
            default: packet.skip(); break;
            }
        }
        if (haveCompressed)
            return inflatePackets(compressed.data(), compressed.size());
        Sequence &seq = m_sequences[sequenceId];
        if (cleared || (flags & kSeqIncrementalCleared)) {
            seq = Sequence();
            seq.valid = true;
        } else if (dropped) {
            seq.valid = false; // interned data may have been lost with the dropped packets
        }
        if ((flags & kSeqNeedsIncrementalState) && !seq.valid) {
            ++m_droppedPackets;
            return;
        }
        if (haveDefaults) {
            protozero::pbf_reader d(defaults);
            while (d.next()) {
                if (d.tag() == 58) {
                    seq.defaultClock = (want(d, protozero::pbf_wire_type::varint), d.get_uint32());
                } else if (d.tag() == 11) { // TrackEventDefaults
                    protozero::pbf_reader ted = (want(d, protozero::pbf_wire_type::length_delimited), d.get_message());
                    while (ted.next()) {
                        if (ted.tag() == 11) {
                            seq.defaultTrack = (want(ted, protozero::pbf_wire_type::varint), ted.get_uint64());
                            seq.haveDefaultTrack = true;
                        } else {
                            ted.skip();
                        }
                    }
                } else {
                    d.skip();
                }
            }
        }
        if (haveSnapshot)
            clockSnapshot(protozero::pbf_reader(snapshot), seq);
        if (haveInterned)
            internedData(protozero::pbf_reader(interned), seq);
        if (haveDescriptor)
            trackDescriptor(protozero::pbf_reader(descriptor));
        if (haveEvent) {
            // The packet's clock: its own, else the sequence's default, else the trace clock.
            const quint32 clockId = clock ? clock : seq.defaultClock ? seq.defaultClock : kBootTime;
            qint64 ts = qint64(timestamp);
            const auto inc = seq.incrementalClocks.find(clockId);
            if (inc != seq.incrementalClocks.end()) {
                inc->second.first += timestamp;
                ts = qint64(inc->second.first * inc->second.second);
            }
            (void)haveTimestamp;
            trackEvent(protozero::pbf_reader(event), seq, ts);
        }
    } catch (const protozero::exception &) {
        ++m_badPackets;
        if (m_firstBadPacketOffset < 0)
            m_firstBadPacketOffset = m_packetOffset;
    }
}

void Reader::inflatePackets(const char *data, size_t size)
{
    std::string out;
    z_stream z{};
    if (m_nesting > 0 || inflateInit(&z) != Z_OK) {
        ++m_badCompressed;
        return;
    }
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data));
    z.avail_in = uInt(size);
    int rc = Z_OK;
    char buffer[1 << 16];
    while (rc == Z_OK && qint64(out.size()) < kMaxInflatedBytes) {
        z.next_out = reinterpret_cast<Bytef *>(buffer);
        z.avail_out = sizeof buffer;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buffer, sizeof buffer - z.avail_out);
        if (rc == Z_BUF_ERROR && z.avail_in == 0)
            break;
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        ++m_badCompressed;
        return;
    }
    ++m_nesting;
    const char *p = out.data();
    const char *const end = p + out.size();
    while (p < end) {
        const char *q = p;
        const quint64 tag = protozero::decode_varint(&q, end);
        const quint64 length = q < end ? protozero::decode_varint(&q, end) : 0;
        if (tag != 0x0a || length > quint64(end - q)) {
            ++m_badCompressed;
            break;
        }
        packet(q, size_t(length));
        p = q + length;
    }
    --m_nesting;
}

void Reader::clockSnapshot(protozero::pbf_reader snapshot, Sequence &seq)
{
    while (snapshot.next()) {
        if (snapshot.tag() != 1) {
            snapshot.skip();
            continue;
        }
        protozero::pbf_reader clock = (want(snapshot, protozero::pbf_wire_type::length_delimited), snapshot.get_message());
        quint32 id = 0;
        quint64 value = 0, multiplier = 1;
        bool incremental = false;
        while (clock.next()) {
            switch (clock.tag()) {
            case 1: id = (want(clock, protozero::pbf_wire_type::varint), clock.get_uint32()); break;
            case 2: value = (want(clock, protozero::pbf_wire_type::varint), clock.get_uint64()); break;
            case 3: incremental = (want(clock, protozero::pbf_wire_type::varint), clock.get_bool()); break;
            case 4: multiplier = (want(clock, protozero::pbf_wire_type::varint), clock.get_uint64()); break;
            default: clock.skip(); break;
            }
        }
        if (incremental)
            seq.incrementalClocks[id] = {value, multiplier ? multiplier : 1};
    }
}

void Reader::internedData(protozero::pbf_reader data, Sequence &seq)
{
    while (data.next()) {
        std::unordered_map<quint64, std::string> *table = nullptr;
        switch (data.tag()) {
        case 1: table = &seq.categories; break;
        case 2: table = &seq.eventNames; break;
        case 3: table = &seq.annotationNames; break;
        default: data.skip(); continue;
        }
        protozero::pbf_reader entry = (want(data, protozero::pbf_wire_type::length_delimited), data.get_message());
        quint64 iid = 0;
        std::string name;
        while (entry.next()) {
            if (entry.tag() == 1)
                iid = (want(entry, protozero::pbf_wire_type::varint), entry.get_uint64());
            else if (entry.tag() == 2)
                name = (want(entry, protozero::pbf_wire_type::length_delimited), entry.get_string());
            else
                entry.skip();
        }
        (*table)[iid] = std::move(name);
    }
}

void Reader::trackDescriptor(protozero::pbf_reader desc)
{
    quint64 uuid = 0;
    Track track;
    while (desc.next()) {
        switch (desc.tag()) {
        case track_descriptor::kUuid: uuid = (want(desc, protozero::pbf_wire_type::varint), desc.get_uint64()); break;
        case track_descriptor::kName: track.name = (want(desc, protozero::pbf_wire_type::length_delimited), desc.get_string()); break;
        case track_descriptor::kParentUuid: track.parent = (want(desc, protozero::pbf_wire_type::varint), desc.get_uint64()); break;
        case track_descriptor::kProcess: {
            protozero::pbf_reader p = (want(desc, protozero::pbf_wire_type::length_delimited), desc.get_message());
            while (p.next())
                if (p.tag() == 1)
                    track.pid = (want(p, protozero::pbf_wire_type::varint), p.get_int32());
                else
                    p.skip();
            break;
        }
        case track_descriptor::kThread: {
            protozero::pbf_reader t = (want(desc, protozero::pbf_wire_type::length_delimited), desc.get_message());
            while (t.next())
                if (t.tag() == 1)
                    track.pid = (want(t, protozero::pbf_wire_type::varint), t.get_int32());
                else if (t.tag() == 2)
                    track.tid = (want(t, protozero::pbf_wire_type::varint), t.get_int64());
                else
                    t.skip();
            break;
        }
        default: desc.skip(); break;
        }
    }
    m_tracks[uuid] = std::move(track);
}

void Reader::debugAnnotation(protozero::pbf_reader a, const Sequence &seq, SliceArgs &args)
{
    std::string annotation;
    qint64 number = -1;
    bool isNumber = false;
    std::string text;
    while (a.next()) {
        switch (a.tag()) {
        case debug_annotation::kNameIid: {
            const auto it = seq.annotationNames.find((want(a, protozero::pbf_wire_type::varint), a.get_uint64()));
            if (it != seq.annotationNames.end())
                annotation = it->second;
            break;
        }
        case debug_annotation::kName: annotation = (want(a, protozero::pbf_wire_type::length_delimited), a.get_string()); break;
        case debug_annotation::kUint: number = qint64((want(a, protozero::pbf_wire_type::varint), a.get_uint64())); isNumber = true; break;
        case debug_annotation::kInt: number = (want(a, protozero::pbf_wire_type::varint), a.get_int64()); isNumber = true; break;
        case debug_annotation::kBool: a.skip(); break;
        case debug_annotation::kString: text = (want(a, protozero::pbf_wire_type::length_delimited), a.get_string()); break;
        default: a.skip(); break;
        }
    }
    if (annotation == "agent")
        args.agent = isNumber ? number : agentFromText(text);
    else if (annotation == "queue" && isNumber)
        args.queue = number;
    else if (annotation == "tid" && isNumber)
        args.tid = number;
    else if (args.wantCorrelation && isNumber && annotation == "corr_id")
        args.correlation = number;
}

void Reader::sliceStart(quint64 type, quint64 track, std::string_view name, const std::string &category, qint64 ts,
                        const SliceArgs &args)
{
    // rocprofv3's categories, and Kineto's names for the same things (a chrome trace's "cat"),
    // which a writer converting Kineto's events may keep.
    Kind kind = Kind::Other;
    if (category == "kernel_dispatch" || category == "kernel")
        kind = Kind::Kernel;
    else if (category == "hip_api" || category == "cuda_runtime" || category == "cuda_driver")
        kind = Kind::RuntimeCall;
    else if (category == "marker_api" || category == "user_annotation")
        kind = Kind::Marker;
    else
        ++m_otherCategories[category.empty() ? std::string("(none)") : category];
    OpenSlice open{intern(kind == Kind::Kernel ? kernelName(name) : name), intern(category), kind, ts,
                   args.agent, args.queue, args.tid};
    if (type == track_event::kSliceBegin) {
        m_marks[track].push_back({ts, std::uint32_t(m_begins.size())});
        m_begins.push_back(open);
        if (m_lanes)
            m_beginCorrelations.push_back(args.correlation);
    } else if (kind == Kind::Marker) {
        m_markers.push_back({open.name, ts, ts, track, args.agent, args.queue, args.tid});
    }
}

void Reader::trackEvent(protozero::pbf_reader event, Sequence &seq, qint64 ts)
{
    ++m_events;
    quint64 type = 0, track = seq.haveDefaultTrack ? seq.defaultTrack : 0;
    std::string nameStorage;
    std::string category;
    SliceArgs args;
    args.wantCorrelation = m_lanes.has_value();
    while (event.next()) {
        switch (event.tag()) {
        case track_event::kType: type = (want(event, protozero::pbf_wire_type::varint), event.get_enum()); break;
        case track_event::kTrackUuid: track = (want(event, protozero::pbf_wire_type::varint), event.get_uint64()); break;
        case track_event::kName: {
            const protozero::data_view v = (want(event, protozero::pbf_wire_type::length_delimited), event.get_view());
            nameStorage.assign(v.data(), v.size());
            break;
        }
        case track_event::kNameIid: {
            const auto it = seq.eventNames.find((want(event, protozero::pbf_wire_type::varint), event.get_uint64()));
            if (it != seq.eventNames.end())
                nameStorage = it->second;
            break;
        }
        case track_event::kCategories:
            if (category.empty()) {
                const protozero::data_view v = (want(event, protozero::pbf_wire_type::length_delimited), event.get_view());
                category.assign(v.data(), v.size());
            } else {
                event.skip();
            }
            break;
        case track_event::kCategoryIids: {
            auto lookup = [&](quint64 iid) {
                const auto it = seq.categories.find(iid);
                if (category.empty() && it != seq.categories.end())
                    category = it->second;
            };
            if (event.wire_type() == protozero::pbf_wire_type::length_delimited) {
                for (quint64 iid : event.get_packed_uint64())
                    lookup(iid);
            } else {
                lookup((want(event, protozero::pbf_wire_type::varint), event.get_uint64()));
            }
            break;
        }
        case track_event::kDebugAnnotations:
            debugAnnotation((want(event, protozero::pbf_wire_type::length_delimited), event.get_message()), seq, args);
            break;
        default: event.skip(); break;
        }
    }
    if (type == track_event::kSliceBegin || type == track_event::kInstant)
        sliceStart(type, track, nameStorage, category, ts, args);
    else if (type == track_event::kSliceEnd)
        m_marks[track].push_back({ts, kNoBegin});
}

/// Pairs each track's BEGINs and ENDs. An END closes the latest open BEGIN in file order (the
/// Perfetto SDK writes each slice's END right after its BEGIN, whatever the time order of the
/// slices: rocprofv3 writes category by category, agent by agent). Writers that put all the
/// BEGINs of a group before its ENDs (PyTorch's encoder) make that pairing end a slice before it
/// began; such a track is paired again in time order (ENDs first at equal times).
void Reader::pairSlices()
{
    std::vector<std::pair<std::uint32_t, qint64>> pairs; // begin index, end ts
    std::vector<std::uint32_t> open;
    auto pairTrack = [&](const std::vector<Mark> &marks, qint64 &unmatched, qint64 &unended) {
        pairs.clear();
        open.clear();
        unmatched = unended = 0;
        bool backwards = false;
        for (const Mark &m : marks) {
            if (m.begin != kNoBegin) {
                open.push_back(m.begin);
            } else if (open.empty()) {
                ++unmatched;
            } else {
                backwards = backwards || m.ts < m_begins[open.back()].startNs;
                pairs.emplace_back(open.back(), m.ts);
                open.pop_back();
            }
        }
        unended = qint64(open.size());
        return !backwards;
    };
    std::vector<std::pair<std::uint32_t, std::pair<qint64, quint64>>> ended; // begin -> (end, track)
    for (auto &[track, marks] : m_marks) {
        qint64 unmatched = 0, unended = 0;
        if (!pairTrack(marks, unmatched, unended)) {
            ++m_reorderedTracks;
            std::stable_sort(marks.begin(), marks.end(), [](const Mark &a, const Mark &b) {
                if (a.ts != b.ts)
                    return a.ts < b.ts;
                return a.begin == kNoBegin && b.begin != kNoBegin;
            });
            pairTrack(marks, unmatched, unended);
        }
        m_unmatchedEnds += unmatched;
        m_unended += unended;
        for (const auto &[begin, endTs] : pairs)
            ended.push_back({begin, {endTs, track}});
    }
    // File order of the BEGINs: the order rocprofv3's other outputs list the records in.
    std::sort(ended.begin(), ended.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    for (const auto &[begin, end] : ended) {
        const OpenSlice &o = m_begins[begin];
        const Slice slice{o.name, o.startNs, end.first, end.second, o.agent, o.queue, o.tid};
        switch (o.kind) {
        case Kind::Kernel:
            m_kernels.push_back(slice);
            if (m_lanes)
                m_kernelCorrelations.push_back(m_beginCorrelations[begin]);
            break;
        case Kind::Marker: m_markers.push_back(slice); break;
        case Kind::RuntimeCall:
            if (slice.endNs >= slice.startNs) {
                ++m_hipCalls;
                if (m_strings[o.category].rfind("cuda", 0) == 0)
                    m_trace.host.runtimeName = QStringLiteral("CUDA");
                m_trace.host.runtimeCalls.push_back({slice.startNs, slice.endNs});
                if (m_lanes) {
                    const std::uint16_t thread = laneThread(slice.track, slice.tid);
                    if (const qint64 c = m_beginCorrelations[begin]; c >= 0)
                        m_lanes->addRuntime(m_strings[o.name], thread, slice.startNs, slice.endNs, c);
                    else
                        m_lanes->add(HostSliceKind::Runtime, m_strings[o.name], thread, slice.startNs, slice.endNs);
                }
            }
            break;
        case Kind::Other: break;
        }
    }
    m_marks.clear();
    m_beginCorrelations = {};
}

std::optional<ReadOutcome> Reader::refusal(InputFileInfo &info, const QString &inputProblem)
{
    if (m_packets > 0)
        return std::nullopt;
    auto refuse = [&](Severity severity, const QString &message, const QString &dialect) {
        m_trace.diagnostics.push_back({severity, m_rel, 0, message});
        info.dialect = dialect;
        m_trace.files.push_back(info);
        return ReadOutcome::Unusable;
    };
    if (!inputProblem.isEmpty())
        return refuse(Severity::Error, QStringLiteral("cannot be read: %1; no kernels read from it").arg(inputProblem),
                      QStringLiteral("unreadable"));
    if (m_broken)
        return refuse(Severity::Warning,
                      QStringLiteral("is not a Perfetto trace (%1); no kernels read from it").arg(m_brokenWhy),
                      QStringLiteral("not a TracePacket stream"));
    if (m_carry.empty() && m_offset == 0)
        return refuse(Severity::Warning, QStringLiteral("is empty (0 bytes): no kernels read from it"),
                      QStringLiteral("empty"));
    return refuse(Severity::Error,
                  QStringLiteral("ends inside its first packet (%1 bytes): truncated; no kernels read from it")
                      .arg(m_carry.size()),
                  QStringLiteral("truncated Perfetto trace"));
}

qint64 Reader::pidOfTrack(quint64 uuid) const
{
    // The process of a track: its own descriptor, or a parent's.
    for (int hops = 0; hops < 8; ++hops) {
        const auto it = m_tracks.find(uuid);
        if (it == m_tracks.end())
            return qint64(-1);
        if (it->second.pid >= 0)
            return it->second.pid;
        uuid = it->second.parent;
    }
    return qint64(-1);
}

std::uint16_t Reader::laneThread(quint64 track, qint64 tid)
{
    if (tid < 0) {
        const auto t = m_tracks.find(track);
        tid = t != m_tracks.end() ? t->second.tid : -1;
    }
    qint64 pid = pidOfTrack(track);
    if (pid < 0) {
        // rocprofv3 names the tracks of threads other than the main one without their process:
        // a file of one process (as rocprofv3 writes one per process) gives them its pid.
        if (m_onlyPid == kUnknownPid) {
            m_onlyPid = 0;
            for (const auto &[uuid, t] : m_tracks)
                if (t.pid >= 0 && t.pid != m_onlyPid) {
                    if (m_onlyPid != 0) {
                        m_onlyPid = 0;
                        break;
                    }
                    m_onlyPid = t.pid;
                }
        }
        pid = m_onlyPid;
    }
    return m_lanes->threadOf(pid, std::max<qint64>(tid, 0));
}

void Reader::sweepKernel(const Slice &k, qint64 correlation, kernels::TimelineBuilder &timeline,
                         std::vector<std::uint32_t> &globalIds, SliceCounts &c)
{
    KernelReading &w = *m_sink.workbench.reading;
    ++c.rows;
    const std::string &name = m_strings[k.name];
    if (name.empty()) {
        ++c.noNameRows;
        ++c.skipped;
        ++w.rowsSkippedNoName;
        return;
    }
    if (globalIds[k.name] == 0xffffffffu)
        globalIds[k.name] = m_sink.names.intern(name);
    const std::uint32_t id = globalIds[k.name];
    qint64 agent = k.agent;
    if (agent < 0) {
        const auto t = m_tracks.find(k.track);
        agent = t == m_tracks.end() ? -1 : agentFromTrackName(t->second.name);
    }
    if (agent < 0)
        ++c.noAgent;
    const std::string label = agent < 0 ? std::string() : "Agent " + std::to_string(agent);
    const qint64 queue = k.queue >= 0 ? k.queue : qint64(k.track & 0x7fffffffffffffffULL);
    const qint64 pid = pidOfTrack(k.track);
    if (m_lanes && correlation >= 0)  // the kernel's side of its flow
        m_lanes->addGpu(k.startNs, correlation, qint32(agent), qint32(queue));
    long long duration = 0;
    if (__builtin_sub_overflow(k.endNs, k.startNs, &duration) || duration <= 0) {
        ++(duration == 0 ? c.zeroRows : c.negativeRows);
        ++c.skipped;
        ++w.rowsSkippedNonPositive;
        if (duration == 0)
            timeline.addKernel(id, name, pid, agent, queue, k.startNs, k.endNs);
        return;
    }
    timeline.addKernel(id, name, pid, agent, queue, k.startNs, k.endNs);
    if (m_sink.reference) {
        m_sink.reference->use(id, duration);
        m_sink.reference->span(k.startNs, k.endNs);
        m_sink.reference->agents.add(m_sink.host, label);
    }
    if (duration > kMaxPlausibleKernelNs) {
        ++c.implausibleRows;
        ++c.skipped;
        ++w.rowsSkippedUnreadable;
        return;
    }
    m_sink.workbench.use(id, duration);
    m_sink.workbench.span(k.startNs, k.endNs);
    m_sink.workbench.agents.add(m_sink.host, label);
}

void Reader::collectMarkers()
{
    for (const Slice &m : m_markers) {
        const std::string &name = m_strings[m.name];
        if (name.empty())
            continue;
        const auto t = m_tracks.find(m.track);
        const qint64 tid = m.tid >= 0 ? m.tid : (t != m_tracks.end() ? t->second.tid : -1);
        m_trace.host.ranges.push_back({QString::fromStdString(name), std::max<qint64>(pidOfTrack(m.track), 0),
                                       std::max<qint64>(tid, 0), m.startNs, m.endNs});
        if (m_lanes && m.endNs > m.startNs)
            m_lanes->add(kernels::markerKind(name), name, laneThread(m.track, m.tid), m.startNs, m.endNs);
    }
    if (!m_markers.empty() || m_hipCalls > 0)
        m_trace.host.files << m_rel;
}

void Reader::streamDiagnostics(const QString &inputProblem)
{
    Diagnostics &diags = m_trace.diagnostics;
    if (m_broken)
        diags.push_back({Severity::Error, m_rel, 0,
                         QStringLiteral("the packet stream breaks off: %1 (damaged file?); the %2 packets before are "
                                        "read, the rest is not")
                             .arg(m_brokenWhy)
                             .arg(m_packets)});
    else if (!inputProblem.isEmpty())
        diags.push_back({Severity::Error, m_rel, 0,
                         QStringLiteral("read error: %1; the %2 packets before it are read").arg(inputProblem).arg(m_packets)});
    else if (!m_carry.empty())
        diags.push_back({Severity::Error, m_rel, 0,
                         QStringLiteral("ends inside a packet at byte offset %1 (%2 bytes of it): the file was cut "
                                        "short; the %3 packets before are read")
                             .arg(m_offset)
                             .arg(m_carry.size())
                             .arg(m_packets)});
    if (m_badCompressed > 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 compressed_packets blocks do not inflate to packets (damaged?); left out")
                             .arg(m_badCompressed)});
    if (m_droppedPackets > 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 packets need interned data their sequence never set (the writer lost "
                                        "packets, or the trace starts mid-sequence); left out, as Perfetto does")
                             .arg(m_droppedPackets)});
    if (m_badPackets > 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 packets are malformed protobuf (the first at byte offset %2) and were left out")
                             .arg(m_badPackets)
                             .arg(m_firstBadPacketOffset)});
}

void Reader::sliceDiagnostics(const SliceCounts &c, bool streamOverflow)
{
    Diagnostics &diags = m_trace.diagnostics;
    if (m_kernels.empty()) {
        std::string others;
        for (const auto &[category, n] : m_otherCategories)
            others += (others.empty() ? "" : ", ") + category + " (" + std::to_string(n) + ")";
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("holds no kernel slices (category \"kernel_dispatch\", as rocprofv3 writes "
                                        "them)%1")
                             .arg(others.empty() ? QString()
                                                 : QStringLiteral("; slices of other categories are not read: %1")
                                                       .arg(QString::fromStdString(others)))});
    }
    if (m_unended > 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 slices begin and never end (the trace was stopped mid-slice?); they are not read")
                             .arg(m_unended)});
    if (m_unmatchedEnds > 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 slice ends have no begin on their track; ignored").arg(m_unmatchedEnds)});
    if (c.noAgent > 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 kernel slices name no agent (no \"agent\" annotation, no \"AGENT [n]\" track "
                                        "name): counted under an unnamed agent")
                             .arg(c.noAgent)});
    const std::pair<qint64, const char *> skips[] = {
        {c.noNameRows, "%1 kernel slices without a name were skipped"},
        {c.negativeRows, "%1 kernel slices ending before they begin were skipped"},
        {c.zeroRows, "%1 kernel slices of zero duration were skipped"},
        {c.implausibleRows, "%1 kernel slices longer than a day (implausible) were skipped"}};
    for (const auto &[n, text] : skips)
        if (n > 0)
            diags.push_back({Severity::Warning, m_rel, 0, QString::fromLatin1(text).arg(n)});
    if (streamOverflow)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("more than 65535 queues on one device: the last ones share one timeline lane")});
}

void Reader::describe(InputFileInfo &info, const SliceCounts &c) const
{
    info.dialect = QStringLiteral("Perfetto TracePacket stream (%1 packets, %2 track events, %3 HIP calls, %4 marker slices)")
                       .arg(m_packets)
                       .arg(m_events)
                       .arg(m_hipCalls)
                       .arg(m_markers.size());
    info.workbenchColumns = {
        {QStringLiteral("kernel_name"), QStringLiteral("TrackEvent.name / name_iid"),
         QStringLiteral("pftrace: slices of category kernel_dispatch (a trailing .kd dropped)"), QString()},
        {QStringLiteral("start"), QStringLiteral("TYPE_SLICE_BEGIN timestamp"), QStringLiteral("pftrace"), QStringLiteral("ns")},
        {QStringLiteral("end"), QStringLiteral("TYPE_SLICE_END timestamp"), QStringLiteral("pftrace"), QStringLiteral("ns")},
        {QStringLiteral("duration"), QString(), QStringLiteral("computed as end - start"), QStringLiteral("ns")},
        {QStringLiteral("agent"), QStringLiteral("debug annotation \"agent\""),
         QStringLiteral("pftrace: \"Agent <n>\", or the track name's AGENT [n]"), QString()},
        {QStringLiteral("stream"), QStringLiteral("debug annotation \"queue\""), QStringLiteral("pftrace, else the track"), QString()}};
    info.rowsRead = c.rows;
    info.rowsSkipped = c.skipped;
}

ReadOutcome Reader::finish(InputFileInfo &info, const QString &inputProblem)
{
    if (const std::optional<ReadOutcome> refused = refusal(info, inputProblem))
        return *refused;
    pairSlices();
    kernels::TimelineBuilder timeline(kFormat, m_rel);
    timeline.expectRows(qint64(m_kernels.size()));
    std::vector<std::uint32_t> globalIds(m_strings.size(), 0xffffffffu);
    SliceCounts counts;
    for (std::size_t i = 0; i < m_kernels.size(); ++i)
        sweepKernel(m_kernels[i], m_lanes ? m_kernelCorrelations[i] : -1, timeline, globalIds, counts);
    collectMarkers();
    streamDiagnostics(inputProblem);
    sliceDiagnostics(counts, timeline.streamOverflow());
    describe(info, counts);
    m_trace.files.push_back(info);
    if (timeline.eventCount() > 0) {
        m_trace.timeline.files.push_back(timeline.take());
        if (m_lanes && m_lanes->rangeCount() > 0) {
            auto built = std::make_shared<HostLanes>(m_lanes->build());
            kernels::hostLanesSummary(*built, m_lanes->threadOverflow(), m_rel,
                                      QStringLiteral("its hip_api and marker_api slices"), m_trace.diagnostics);
            m_trace.timeline.files.back().hostLanes = std::move(built);
        }
    }
    return ReadOutcome::Read;
}

ReadOutcome readFrom(const io::ByteOrigin &origin, qint64 size, const QString &rel, KernelSink &sink, KernelTrace &trace,
                      const ProgressCallback &progress)
{
    return kernels::readPushedFile(origin, size, rel, kFormat, trace, progress, kChunkBytes,
                                   [&] { return Reader(rel, sink, trace); });
}

} // namespace

ReadOutcome readPftrace(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
                         const ProgressCallback &progress)
{
    return readFrom(io::ByteOrigin::file(path), QFileInfo(path).size(), rel, sink, trace, progress);
}

ReadOutcome readPftraceBytes(QByteArrayView bytes, const QString &rel, KernelSink &sink, KernelTrace &trace,
                              const ProgressCallback &progress)
{
    return readFrom(io::ByteOrigin::bytes(bytes), bytes.size(), rel, sink, trace, progress);
}

} // namespace goblin
