#include "rocprofjson/rocprofjsonreader.h"

#include "io/bytesource.h"
#include "kernels/pushedfile.h"
#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "kernels/hostlanesbuilder.h"
#include "kernels/timelinebuilder.h"
#include "pynumber.h"
#include "syntax/jsonscanner.h"

#include <QFileInfo>

#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace goblin
{

namespace
{

const QString kFormat = QStringLiteral("rocprofv3-json");
constexpr size_t kChunkBytes = size_t(1) << 20;
constexpr qint64 kMaxPlausibleKernelNs = 86'400'000'000'000; // as the CSV reader: no kernel runs a day
constexpr int kKeepBadRecordLines = 5;

/// What the splitter hands over: the kind of a value it copied out whole.
enum class Capture : quint8 {
    None,
    Metadata,      ///< tool[i].metadata
    Agent,         ///< an element of tool[i].agents
    Symbol,        ///< an element of tool[i].kernel_symbols
    KindNames,     ///< tool[i].strings.buffer_records: [{kind, operations: [...]}, ...]
    MarkerString,  ///< an element of tool[i].strings.marker_api: {key: corr id, value: message}
    RenameNames,   ///< tool[i].strings.correlation_id: {external: [{key, value}, ...]}
    Dispatch,      ///< an element of tool[i].buffer_records.kernel_dispatch
    HipCall,       ///< ... of buffer_records.hip_api
    Marker,        ///< ... of buffer_records.marker_api
};

/// The containers on the way to what is read; every other value is skipped.
enum class Node : quint8 { Root, Tools, Process, Agents, Symbols, Strings, MarkerStrings, Buffers, Records };

struct Frame {
    Node node;
    bool object;
    bool expectKey;
    Capture records = Capture::None; ///< Node::Records: what its elements are
    std::string key;                 ///< objects: the key of the member being read (raw bytes)
};

struct Agent {
    qint64 logicalNodeId = -1;
    int type = 0; ///< 1 CPU, 2 GPU
};

struct Dispatch {
    qint64 startNs = 0;
    qint64 endNs = 0;
    quint64 agent = 0;
    quint64 queue = 0;
    quint64 kernelId = 0;
    quint64 external = 0;
    qint64 tid = 0;
    int process = 0;
};

struct MarkerRecord {
    qint64 startNs = 0;
    qint64 endNs = 0;
    qint64 tid = 0;
    quint64 kind = 0;
    quint64 operation = 0;
    quint64 correlation = 0;
    int process = 0;
};

/// One element of the tool array: one profiled process.
struct Process {
    qint64 pid = 0;
    bool pidKnown = false;
    std::unordered_map<quint64, Agent> agents; ///< id.handle ->
    struct Symbol {
        std::string name; ///< formatted_kernel_name, stripped as the CSV reader strips a cell
        std::uint32_t globalId = 0;
        bool interned = false;
    };
    std::unordered_map<quint64, Symbol> symbols; ///< kernel_id ->
    std::vector<std::pair<std::string, std::vector<std::string>>> kindNames; ///< index = kind
    std::unordered_map<quint64, std::string> markerMessages;                ///< correlation id ->
    std::unordered_map<quint64, Process::Symbol> renamed;                   ///< external id ->
};

bool toInt64(simdjson::ondemand::value &v, qint64 &out)
{
    std::int64_t i;
    if (v.get_int64().get(i) == simdjson::SUCCESS) {
        out = i;
        return true;
    }
    return false;
}

bool toUint64(simdjson::ondemand::value &v, quint64 &out)
{
    std::uint64_t u;
    if (v.get_uint64().get(u) == simdjson::SUCCESS) {
        out = u;
        return true;
    }
    return false;
}

/// `{"handle": N}` or a bare number (older writers).
bool handleOf(simdjson::ondemand::value &v, quint64 &out)
{
    simdjson::ondemand::json_type type;
    if (v.type().get(type) != simdjson::SUCCESS)
        return false;
    if (type == simdjson::ondemand::json_type::number)
        return toUint64(v, out);
    simdjson::ondemand::object o;
    if (v.get_object().get(o) != simdjson::SUCCESS)
        return false;
    // Every member is looked at (not find_field, which stops at the first): a repeated "handle"
    // reads as json.loads reads it, the last one.
    bool found = false;
    for (auto result : o) {
        simdjson::ondemand::field field;
        std::string_view key;
        if (std::move(result).get(field) != simdjson::SUCCESS || field.unescaped_key().get(key) != simdjson::SUCCESS)
            return false;
        if (key == "handle")
            found = toUint64(field.value(), out);
    }
    return found;
}

/// The members of one record that the reader uses, by bit: the first one met twice. json.loads
/// keeps the last value of a repeated key without a word; the reader does the same and says so.
class SeenMembers
{
public:
    /// Notes member `bit` (< 32) named `name` (a literal).
    void see(int bit, const char *name)
    {
        if ((m_seen >> bit) & 1u) {
            if (!m_repeated)
                m_repeated = name;
        }
        m_seen |= 1u << bit;
    }
    /// Forgets members `mask`: their object was replaced by a later copy of it.
    void forget(quint32 mask) { m_seen &= ~mask; }
    const char *repeated() const { return m_repeated; }

private:
    quint32 m_seen = 0;
    const char *m_repeated = nullptr;
};

/// Calls fn(key, value) for every member of `o`, until fn returns false; false when a member is
/// malformed or fn refused one.
template<typename Fn>
bool eachMember(simdjson::ondemand::object &o, Fn fn)
{
    for (auto result : o) {
        simdjson::ondemand::field field;
        if (std::move(result).get(field) != simdjson::SUCCESS)
            return false;
        std::string_view key;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS)
            return false;
        if (!fn(key, field.value()))
            return false;
    }
    return true;
}

// The records (most of the file) are parsed with simdjson's DOM parser, which runs the library's
// best kernels (the on-demand front end compiled into this file is its generic one).
bool domInt64(simdjson::dom::element e, qint64 &out)
{
    std::int64_t v;
    if (e.get_int64().get(v) != simdjson::SUCCESS)
        return false;
    out = v;
    return true;
}

bool domUint64(simdjson::dom::element e, quint64 &out)
{
    std::uint64_t v;
    if (e.get_uint64().get(v) != simdjson::SUCCESS)
        return false;
    out = v;
    return true;
}

/// `{"handle": N}` or a bare number.
bool domHandle(simdjson::dom::element e, quint64 &out)
{
    simdjson::dom::object o;
    if (e.get_object().get(o) != simdjson::SUCCESS)
        return domUint64(e, out);
    bool found = false;
    for (const auto field : o)  // (at_key() finds the first of a repeated key; json.loads keeps the last)
        if (field.key == "handle")
            found = domUint64(field.value, out);
    return found;
}

/// The member `key` of `e` when it is an object, the last one where it repeats (as json.loads).
bool domLastMember(simdjson::dom::element e, std::string_view key, simdjson::dom::element &out)
{
    simdjson::dom::object o;
    if (e.get_object().get(o) != simdjson::SUCCESS)
        return false;
    bool found = false;
    for (const auto field : o)
        if (field.key == key) {
            out = field.value;
            found = true;
        }
    return found;
}

/// What finish() counted of the dispatches.
struct SweepCounts {
    qint64 rows = 0, skipped = 0, zeroRows = 0, negativeRows = 0, noNameRows = 0, implausibleRows = 0, orphanRows = 0;
};

class Reader : JsonScanner::Sink
{
public:
    Reader(const QString &rel, KernelSink &sink, KernelTrace &trace) : m_rel(rel), m_sink(sink), m_trace(trace), m_scanner(*this)
    {
        m_stack.reserve(16);
        if (sink.keepHostLanes)
            m_lanes.emplace();
    }

    /// Feeds one chunk at absolute offset `offset` (offsets follow on). False: stop (bad JSON).
    bool feed(const char *data, size_t size);
    void finishInput() { m_scanner.finish(); }
    ReadOutcome finish(InputFileInfo &info, const QString &inputProblem);

private:
    // JsonScanner::Sink: the scanner only validates; its reports are not needed.
    void rootKey(std::string_view, qint64, qint64) override {}
    bool valueBegin(int, char, qint64, qint64) override { return false; }
    void valueEnd(int, qint64, bool) override {}

    void split(const char *p, const char *end);
    const char *continueValue(const char *p, const char *end);
    void startValue(char first);
    void captured();
    void badRecord(const char *what);
    /// The record being read had a member twice (`seen.repeated()`): counted, the first named.
    void noteRepeated(const SeenMembers &seen);

    void readMetadata(simdjson::ondemand::object o);
    void readAgent(simdjson::ondemand::object o);
    void readSymbol(simdjson::ondemand::object o);
    void readKindNames(simdjson::ondemand::array a);
    void readMarkerString(simdjson::ondemand::object o);
    void readRenameNames(simdjson::ondemand::object o);
    void readDispatch(simdjson::dom::object o);
    void readTimedRecord(simdjson::dom::object o, Capture kind);

    // finish()'s phases: why nothing can be read (nullopt: the file is read); each dispatch onto
    // the timeline and into the readings; the marker ranges into the host activity; what the
    // input and the dispatches said; the file's row.
    QString syntaxWhere() const;
    std::optional<ReadOutcome> refusal(InputFileInfo &info, const QString &inputProblem);
    Process::Symbol *symbolOf(const Dispatch &d, Process &proc);
    void sweepDispatch(const Dispatch &d, quint64 correlation, kernels::TimelineBuilder &timeline, SweepCounts &c);
    void collectMarkers();
    void collectHipCalls();
    void inputDiagnostics(const QString &inputProblem);
    void dispatchDiagnostics(const SweepCounts &c, bool streamOverflow);
    void describe(InputFileInfo &info, const SweepCounts &c) const;

    Process &process() { return m_processes.back(); }

    QString m_rel;
    KernelSink &m_sink;
    KernelTrace &m_trace;
    JsonScanner m_scanner;
    simdjson::ondemand::parser m_parser;
    simdjson::dom::parser m_dom;

    // ---- The splitter: where the bytes are in the document (valid JSON: the scanner checked).
    std::vector<Frame> m_stack;
    bool m_inKey = false, m_keyEscape = false;
    bool m_rootSeen = false, m_rootObject = false, m_toolSeen = false;
    bool m_sawContent = false; ///< a byte other than whitespace was fed
    // A value being skipped or copied out.
    bool m_valueActive = false;
    Capture m_capture = Capture::None;
    int m_valueDepth = 0;
    bool m_valueString = false, m_valueEscape = false, m_valueScalar = false;
    std::string m_buffer;
    qint64 m_offset = 0;       ///< absolute offset of the next byte to split
    qint64 m_line = 1;         ///< its line
    qint64 m_lineStart = 0;    ///< absolute offset of its line's first byte
    qint64 m_valueLine = 0;    ///< where the value being copied began
    qint64 m_valueColumn = 0;

    // ---- What was read.
    std::vector<Process> m_processes;
    std::vector<Dispatch> m_dispatches;
    std::vector<MarkerRecord> m_markers;
    qint64 m_hipCalls = 0;
    // The Timeline's host lanes (the window's reading only): the dispatches' internal correlation
    // ids (by dispatch index) and the HIP calls as records.
    std::optional<kernels::HostLanesBuilder> m_lanes;
    std::vector<quint64> m_dispatchCorrelations;
    std::vector<MarkerRecord> m_hipRecords;
    qint64 m_badRecords = 0;
    std::vector<std::pair<qint64, QString>> m_badRecordLines; ///< the first few: line, what
    qint64 m_repeatedRecords = 0;  ///< records with a member twice
    QString m_firstRepeated;       ///< the first of them: where and which member
    qint64 m_firstRepeatedLine = 0;
};

bool Reader::feed(const char *data, size_t size)
{
    if (m_scanner.failed())
        return false;
    const qint64 base = m_offset;
    for (size_t i = 0; !m_sawContent && i < size; ++i)
        m_sawContent = data[i] != ' ' && data[i] != '\n' && data[i] != '\r' && data[i] != '\t';
    m_scanner.feed(data, size);
    // Only the bytes the scanner accepted are split: nothing after a syntax error is read.
    size_t valid = size;
    if (m_scanner.failed())
        valid = size_t(std::clamp<qint64>(m_scanner.stopOffset() - base, 0, qint64(size)));
    split(data, data + valid);
    return !m_scanner.failed();
}

void Reader::split(const char *p, const char *end)
{
    auto advanceTo = [&](const char *q) {
        m_offset += q - p;
        p = q;
    };
    while (p < end) {
        if (m_valueActive) {
            advanceTo(continueValue(p, end));
            continue;
        }
        if (m_inKey) {
            const char *q = p;
            while (q < end) {
                const char c = *q;
                if (m_keyEscape) {
                    m_keyEscape = false;
                } else if (c == '\\') {
                    m_keyEscape = true;
                } else if (c == '"') {
                    break;
                }
                ++q;
            }
            m_stack.back().key.append(p, size_t(q - p));
            if (q < end) {
                m_inKey = false;
                m_stack.back().expectKey = false;
                ++q;
            }
            advanceTo(q);
            continue;
        }
        const char c = *p;
        switch (c) {
        case '\n':
            ++m_line;
            m_lineStart = m_offset + 1;
            [[fallthrough]];
        case ' ':
        case '\t':
        case '\r':
        case ':':
            advanceTo(p + 1);
            continue;
        case ',':
            if (!m_stack.empty() && m_stack.back().object)
                m_stack.back().expectKey = true;
            advanceTo(p + 1);
            continue;
        case '}':
        case ']':
            if (!m_stack.empty())
                m_stack.pop_back();
            advanceTo(p + 1);
            continue;
        case '"':
            if (!m_stack.empty() && m_stack.back().object && m_stack.back().expectKey) {
                m_inKey = true;
                m_keyEscape = false;
                m_stack.back().key.clear();
                advanceTo(p + 1);
                continue;
            }
            break;
        default:
            break;
        }
        startValue(c);
        if (!m_valueActive)
            advanceTo(p + 1); // a container descended into: its '{' or '[' is consumed
    }
}

/// The bytes of interest in 64 bytes of text, one bit per byte.
struct Block64 {
    quint64 quote = 0, backslash = 0, open = 0, close = 0, newline = 0;
};

Block64 classify64(const char *p)
{
    Block64 b;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), brace = _mm_set1_epi8('{'),
                  bracket = _mm_set1_epi8('['), braceEnd = _mm_set1_epi8('}'), bracketEnd = _mm_set1_epi8(']'),
                  newline = _mm_set1_epi8('\n');
    for (int k = 0; k < 4; ++k) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 16 * k));
        const int shift = 16 * k;
        auto bits = [&](__m128i m) { return quint64(quint32(_mm_movemask_epi8(m))) << shift; };
        b.quote |= bits(_mm_cmpeq_epi8(x, quote));
        b.backslash |= bits(_mm_cmpeq_epi8(x, backslash));
        b.open |= bits(_mm_or_si128(_mm_cmpeq_epi8(x, brace), _mm_cmpeq_epi8(x, bracket)));
        b.close |= bits(_mm_or_si128(_mm_cmpeq_epi8(x, braceEnd), _mm_cmpeq_epi8(x, bracketEnd)));
        b.newline |= bits(_mm_cmpeq_epi8(x, newline));
    }
#else
    for (int i = 0; i < 64; ++i) {
        const quint64 bit = quint64(1) << i;
        switch (p[i]) {
        case '"': b.quote |= bit; break;
        case '\\': b.backslash |= bit; break;
        case '{':
        case '[': b.open |= bit; break;
        case '}':
        case ']': b.close |= bit; break;
        case '\n': b.newline |= bit; break;
        default: break;
        }
    }
#endif
    return b;
}

/// Bit i = parity of the bits 0..i of x: which bytes lie inside a string (an opening quote counts
/// in, its closing quote out).
quint64 prefixXor(quint64 x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/// A value starts with `first` (not consumed): descend into it, copy it out, or skip it.
void Reader::startValue(char first)
{
    const bool container = first == '{' || first == '[';
    auto descend = [&](Node node, Capture records = Capture::None) {
        m_stack.push_back({node, first == '{', first == '{', records, {}});
    };
    auto take = [&](Capture what) {
        m_valueActive = true;
        m_capture = what;
        m_valueDepth = 0;
        m_valueString = false;
        m_valueEscape = false;
        m_valueScalar = !container && first != '"';
        m_buffer.clear();
        m_valueLine = m_line;
        m_valueColumn = m_offset - m_lineStart + 1;
    };
    if (m_stack.empty()) {
        if (!m_rootSeen) {
            m_rootSeen = true;
            m_rootObject = first == '{';
            if (m_rootObject) {
                descend(Node::Root);
                return;
            }
        }
        take(Capture::None);
        return;
    }
    const Frame &f = m_stack.back();
    const std::string &key = f.key;
    switch (f.node) {
    case Node::Root:
        if (key == "rocprofiler-sdk-tool" && first == '[') {
            m_toolSeen = true;
            return descend(Node::Tools);
        }
        break;
    case Node::Tools:
        if (first == '{') {
            m_processes.emplace_back();
            return descend(Node::Process);
        }
        break;
    case Node::Process:
        if (key == "metadata" && first == '{')
            return take(Capture::Metadata);
        if (key == "agents" && first == '[')
            return descend(Node::Agents);
        if (key == "kernel_symbols" && first == '[')
            return descend(Node::Symbols);
        if (key == "strings" && first == '{')
            return descend(Node::Strings);
        if (key == "buffer_records" && first == '{')
            return descend(Node::Buffers);
        break;
    case Node::Agents:
        if (first == '{')
            return take(Capture::Agent);
        break;
    case Node::Symbols:
        if (first == '{')
            return take(Capture::Symbol);
        break;
    case Node::Strings:
        if (key == "buffer_records" && first == '[')
            return take(Capture::KindNames);
        if (key == "marker_api" && first == '[')
            return descend(Node::MarkerStrings);
        if (key == "correlation_id" && first == '{')
            return take(Capture::RenameNames);
        break;
    case Node::MarkerStrings:
        if (first == '{')
            return take(Capture::MarkerString);
        break;
    case Node::Buffers:
        if (first == '[') {
            if (key == "kernel_dispatch")
                return descend(Node::Records, Capture::Dispatch);
            if (key == "hip_api")
                return descend(Node::Records, Capture::HipCall);
            if (key == "marker_api")
                return descend(Node::Records, Capture::Marker);
        }
        break;
    case Node::Records:
        if (first == '{')
            return take(f.records);
        break;
    }
    take(Capture::None);
}

/// Skips or copies the active value from `p`; returns where it stopped (its end, or `end`).
const char *Reader::continueValue(const char *p, const char *end)
{
    const char *const from = p;
    const char *q = p;
    bool done = false;
    if (m_valueScalar) {
        // A number or literal: it ends before a delimiter (the scanner checked its spelling).
        while (q < end) {
            const char c = *q;
            if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r') {
                done = true;
                break;
            }
            ++q;
        }
    } else {
        while (q < end) {
            // 64 bytes at a time while inside a container and no backslash is near: the quotes'
            // prefix parity tells which bytes are inside strings, the brackets outside them move
            // the depth (the technique of simdjson's stage 1, without its escape handling).
            if (m_valueDepth > 0 && !m_valueEscape && end - q >= 64) {
                const Block64 b = classify64(q);
                if (b.backslash == 0) {
                    const quint64 inString = prefixXor(b.quote) ^ (m_valueString ? ~quint64(0) : 0);
                    quint64 structural = (b.open | b.close) & ~inString;
                    int stop = -1;
                    while (structural) {
                        const int i = __builtin_ctzll(structural);
                        structural &= structural - 1;
                        if ((b.open >> i) & 1) {
                            ++m_valueDepth;
                        } else if (--m_valueDepth == 0) {
                            stop = i;
                            break;
                        }
                    }
                    const int used = stop < 0 ? 64 : stop + 1;
                    const quint64 usedMask = used == 64 ? ~quint64(0) : (quint64(1) << used) - 1;
                    if (const quint64 newlines = b.newline & usedMask) {
                        m_line += __builtin_popcountll(newlines);
                        m_lineStart = m_offset + (q - from) + (63 - __builtin_clzll(newlines)) + 1;
                    }
                    m_valueString = stop < 0 && ((inString >> 63) & 1);
                    q += used;
                    if (stop >= 0) {
                        done = true;
                        break;
                    }
                    continue;
                }
            }
            const char c = *q;
            if (m_valueString) {
                if (m_valueEscape)
                    m_valueEscape = false;
                else if (c == '\\')
                    m_valueEscape = true;
                else if (c == '"') {
                    m_valueString = false;
                    if (m_valueDepth == 0) {
                        ++q;
                        done = true;
                        break;
                    }
                }
                ++q;
                continue;
            }
            switch (c) {
            case '"':
                m_valueString = true;
                break;
            case '{':
            case '[':
                ++m_valueDepth;
                break;
            case '}':
            case ']':
                if (--m_valueDepth == 0) {
                    ++q;
                    done = true;
                }
                break;
            case '\n':
                ++m_line;
                m_lineStart = m_offset + (q - from) + 1;
                break;
            default:
                break;
            }
            if (done)
                break;
            ++q;
        }
    }
    if (m_capture != Capture::None)
        m_buffer.append(from, size_t(q - from));
    if (done) {
        m_valueActive = false;
        if (m_capture != Capture::None)
            captured();
    }
    return q;
}

void Reader::badRecord(const char *what)
{
    ++m_badRecords;
    if (m_badRecordLines.size() < size_t(kKeepBadRecordLines))
        m_badRecordLines.emplace_back(m_valueLine, QStringLiteral("%1 (column %2)").arg(QLatin1String(what)).arg(m_valueColumn));
}

const char *captureName(Capture c)
{
    switch (c) {
    case Capture::Metadata: return "metadata";
    case Capture::Agent: return "agents";
    case Capture::Symbol: return "kernel_symbols";
    case Capture::KindNames: return "strings.buffer_records";
    case Capture::MarkerString: return "strings.marker_api";
    case Capture::RenameNames: return "strings.correlation_id";
    case Capture::Dispatch: return "buffer_records.kernel_dispatch";
    case Capture::HipCall: return "buffer_records.hip_api";
    case Capture::Marker: return "buffer_records.marker_api";
    case Capture::None: break;
    }
    return "";
}

void Reader::noteRepeated(const SeenMembers &seen)
{
    if (!seen.repeated() || m_repeatedRecords++ > 0)
        return;
    m_firstRepeatedLine = m_valueLine;
    m_firstRepeated = QStringLiteral("a %1 record at line %2, column %3 has the member \"%4\" more than once")
                          .arg(QLatin1String(captureName(m_capture)))
                          .arg(m_valueLine)
                          .arg(m_valueColumn)
                          .arg(QLatin1String(seen.repeated()));
}

void Reader::captured()
{
    const size_t size = m_buffer.size();
    m_buffer.reserve(size + simdjson::SIMDJSON_PADDING);
    if (m_capture == Capture::Dispatch || m_capture == Capture::HipCall || m_capture == Capture::Marker) {
        simdjson::dom::element e;
        simdjson::dom::object o;
        if (m_dom.parse(m_buffer.data(), size, false).get(e) != simdjson::SUCCESS)
            return badRecord("a value simdjson cannot parse");
        if (e.get_object().get(o) != simdjson::SUCCESS)
            return badRecord("a record that is not an object");
        return m_capture == Capture::Dispatch ? readDispatch(o) : readTimedRecord(o, m_capture);
    }
    simdjson::ondemand::document doc;
    if (m_parser.iterate(m_buffer.data(), size, m_buffer.capacity()).get(doc) != simdjson::SUCCESS)
        return badRecord("a value simdjson cannot parse");
    if (m_capture == Capture::KindNames) {
        simdjson::ondemand::array a;
        if (doc.get_array().get(a) != simdjson::SUCCESS)
            return badRecord("strings.buffer_records is not an array");
        return readKindNames(a);
    }
    simdjson::ondemand::object o;
    if (doc.get_object().get(o) != simdjson::SUCCESS)
        return badRecord("a record that is not an object");
    switch (m_capture) {
    case Capture::Metadata: return readMetadata(o);
    case Capture::Agent: return readAgent(o);
    case Capture::Symbol: return readSymbol(o);
    case Capture::MarkerString: return readMarkerString(o);
    case Capture::RenameNames: return readRenameNames(o);
    default: return;
    }
}

void Reader::readMetadata(simdjson::ondemand::object o)
{
    SeenMembers seen;
    qint64 pid = 0;
    bool known = false;
    eachMember(o, [&](std::string_view key, simdjson::ondemand::value &v) {
        if (key == "pid") {
            seen.see(0, "pid");
            known = toInt64(v, pid);
        }
        return true;
    });
    noteRepeated(seen);
    if (known) {
        process().pid = pid;
        process().pidKnown = true;
    }
}

void Reader::readAgent(simdjson::ondemand::object o)
{
    quint64 handle = 0;
    bool haveId = false;
    Agent agent;
    SeenMembers seen;
    const bool ok = eachMember(o, [&](std::string_view key, simdjson::ondemand::value &v) {
        if (key == "id") {
            seen.see(0, "id");
            haveId = handleOf(v, handle);
        } else if (key == "logical_node_id") {
            seen.see(1, "logical_node_id");
            agent.logicalNodeId = -1;
            toInt64(v, agent.logicalNodeId);
        } else if (key == "type") {
            seen.see(2, "type");
            qint64 t = 0;
            agent.type = toInt64(v, t) ? int(t) : 0;
        }
        return true;
    });
    noteRepeated(seen);
    if (!ok || !haveId)
        return badRecord("an agent without id.handle");
    process().agents[handle] = agent;
}

void Reader::readSymbol(simdjson::ondemand::object o)
{
    quint64 id = 0;
    bool haveId = false, haveName = false;
    std::string name;
    SeenMembers seen;
    const bool ok = eachMember(o, [&](std::string_view key, simdjson::ondemand::value &v) {
        if (key == "kernel_id") {
            seen.see(0, "kernel_id");
            haveId = toUint64(v, id);
        } else if (key == "formatted_kernel_name") {
            seen.see(1, "formatted_kernel_name");
            std::string_view s;
            haveName = v.get_string().get(s) == simdjson::SUCCESS;
            if (haveName)
                name = std::string(pythonStrip(s));
        }
        return true;
    });
    noteRepeated(seen);
    if (!ok || !haveId || !haveName)
        return badRecord("a kernel symbol without kernel_id or formatted_kernel_name");
    process().symbols[id].name = std::move(name);
}

void Reader::readKindNames(simdjson::ondemand::array a)
{
    auto &names = process().kindNames;
    names.clear();
    for (auto element : a) {
        simdjson::ondemand::object o;
        if (element.get_object().get(o) != simdjson::SUCCESS)
            return badRecord("strings.buffer_records holds a non-object");
        std::pair<std::string, std::vector<std::string>> entry;
        SeenMembers seen;
        const bool ok = eachMember(o, [&](std::string_view key, simdjson::ondemand::value &v) {
            if (key == "kind") {
                seen.see(0, "kind");
                std::string_view s;
                entry.first = v.get_string().get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
            } else if (key == "operations") {
                seen.see(1, "operations");
                entry.second.clear();
                simdjson::ondemand::array ops;
                if (v.get_array().get(ops) != simdjson::SUCCESS)
                    return true;
                for (auto op : ops) {
                    std::string_view s;
                    entry.second.emplace_back(op.get_string().get(s) == simdjson::SUCCESS ? std::string(s) : std::string());
                }
            }
            return true;
        });
        noteRepeated(seen);
        if (!ok)
            return badRecord("strings.buffer_records holds a malformed entry");
        names.push_back(std::move(entry));
    }
}

/// cereal writes a std::map as [{"key": k, "value": v}, ...].
bool keyValue(simdjson::ondemand::object &o, quint64 &key, std::string &value, SeenMembers &seen)
{
    bool haveKey = false, haveValue = false;
    const bool ok = eachMember(o, [&](std::string_view k, simdjson::ondemand::value &v) {
        if (k == "key") {
            seen.see(0, "key");
            haveKey = toUint64(v, key);
        } else if (k == "value") {
            seen.see(1, "value");
            std::string_view s;
            haveValue = v.get_string().get(s) == simdjson::SUCCESS;
            if (haveValue)
                value = std::string(s);
        }
        return true;
    });
    return ok && haveKey && haveValue;
}

void Reader::readMarkerString(simdjson::ondemand::object o)
{
    quint64 key = 0;
    std::string value;
    SeenMembers seen;
    const bool ok = keyValue(o, key, value, seen);
    noteRepeated(seen);
    if (!ok)
        return badRecord("a strings.marker_api entry without key and value");
    process().markerMessages[key] = std::move(value);
}

void Reader::readRenameNames(simdjson::ondemand::object o)
{
    // json.loads keeps the last "external" of the object: the names of each copy are collected
    // apart, and a later copy replaces them.
    std::unordered_map<quint64, Process::Symbol> renamed;
    SeenMembers seen;
    bool bad = false;
    eachMember(o, [&](std::string_view member, simdjson::ondemand::value &v) {
        if (member != "external")
            return true;
        seen.see(0, "external");
        renamed.clear();
        bad = false;
        simdjson::ondemand::array a;
        if (v.get_array().get(a) != simdjson::SUCCESS)
            return true;
        for (auto element : a) {
            simdjson::ondemand::object e;
            quint64 key = 0;
            std::string value;
            SeenMembers entrySeen;
            if (element.get_object().get(e) != simdjson::SUCCESS || !keyValue(e, key, value, entrySeen)) {
                bad = true;  // as before: the entries up to the bad one are kept
                return true;
            }
            noteRepeated(entrySeen);
            renamed[key].name = std::string(pythonStrip(value));
        }
        return true;
    });
    noteRepeated(seen);
    for (auto &[key, symbol] : renamed)
        process().renamed[key] = std::move(symbol);
    if (bad)
        badRecord("a strings.correlation_id.external entry without key and value");
}

void Reader::readDispatch(simdjson::dom::object o)
{
    Dispatch d;
    d.process = int(m_processes.size()) - 1;
    bool haveStart = false, haveEnd = false, haveAgent = false, haveKernel = false;
    quint64 internal = 0;  ///< the HIP call's correlation (host lanes only)
    // Later copies of a member replace earlier ones (json.loads keeps the last): each value is
    // reset before it is read again.
    SeenMembers seen;
    constexpr quint32 kInfoMembers = 0xe0;  // bits 5-7: the members of dispatch_info
    for (const auto field : o) {
        const std::string_view key = field.key;
        if (key == "start_timestamp") {
            seen.see(0, "start_timestamp");
            haveStart = domInt64(field.value, d.startNs);
        } else if (key == "end_timestamp") {
            seen.see(1, "end_timestamp");
            haveEnd = domInt64(field.value, d.endNs);
        } else if (key == "thread_id") {
            seen.see(2, "thread_id");
            d.tid = 0;
            domInt64(field.value, d.tid);
        } else if (key == "correlation_id") {
            seen.see(3, "correlation_id");
            d.external = 0;
            simdjson::dom::element ext;
            if (domLastMember(field.value, "external", ext))
                domHandle(ext, d.external);
            internal = 0;
            if (m_lanes && domLastMember(field.value, "internal", ext))
                domHandle(ext, internal);
        } else if (key == "dispatch_info") {
            seen.see(4, "dispatch_info");
            seen.forget(kInfoMembers);
            haveAgent = haveKernel = false;
            d.agent = d.queue = d.kernelId = 0;
            simdjson::dom::object info;
            if (field.value.get_object().get(info) != simdjson::SUCCESS)
                break;
            for (const auto f : info) {
                if (f.key == "agent_id") {
                    seen.see(5, "dispatch_info.agent_id");
                    haveAgent = domHandle(f.value, d.agent);
                } else if (f.key == "queue_id") {
                    seen.see(6, "dispatch_info.queue_id");
                    d.queue = 0;
                    domHandle(f.value, d.queue);
                } else if (f.key == "kernel_id") {
                    seen.see(7, "dispatch_info.kernel_id");
                    haveKernel = domUint64(f.value, d.kernelId);
                }
            }
        }
    }
    noteRepeated(seen);
    if (!haveStart || !haveEnd || !haveAgent || !haveKernel)
        return badRecord("a kernel dispatch without integer start_timestamp, end_timestamp, "
                         "dispatch_info.agent_id or dispatch_info.kernel_id");
    m_dispatches.push_back(d);
    if (m_lanes)
        m_dispatchCorrelations.push_back(internal);
}

void Reader::readTimedRecord(simdjson::dom::object o, Capture kind)
{
    MarkerRecord r;
    r.process = int(m_processes.size()) - 1;
    bool haveStart = false, haveEnd = false;
    SeenMembers seen;
    for (const auto field : o) {
        const std::string_view key = field.key;
        if (key == "start_timestamp") {
            seen.see(0, "start_timestamp");
            haveStart = domInt64(field.value, r.startNs);
        } else if (key == "end_timestamp") {
            seen.see(1, "end_timestamp");
            haveEnd = domInt64(field.value, r.endNs);
        } else if (key == "thread_id") {
            seen.see(2, "thread_id");
            r.tid = 0;
            domInt64(field.value, r.tid);
        } else if (key == "kind") {
            seen.see(3, "kind");
            r.kind = 0;
            domUint64(field.value, r.kind);
        } else if (key == "operation") {
            seen.see(4, "operation");
            r.operation = 0;
            domUint64(field.value, r.operation);
        } else if (key == "correlation_id") {
            seen.see(5, "correlation_id");
            r.correlation = 0;
            simdjson::dom::element in;
            if (domLastMember(field.value, "internal", in))
                domHandle(in, r.correlation);
        }
    }
    noteRepeated(seen);
    if (!haveStart || !haveEnd || r.endNs < r.startNs)
        return badRecord(kind == Capture::HipCall ? "a hip_api record without integer start/end_timestamp (end >= start)"
                                                  : "a marker_api record without integer start/end_timestamp (end >= start)");
    if (kind == Capture::HipCall) {
        ++m_hipCalls;
        m_trace.host.runtimeCalls.push_back({r.startNs, r.endNs});
        if (m_lanes)
            m_hipRecords.push_back(r);
    } else {
        m_markers.push_back(r);
    }
}

QString Reader::syntaxWhere() const
{
    return m_scanner.failed() ? QStringLiteral("line %1, column %2").arg(m_scanner.errorLine()).arg(m_scanner.errorColumn())
                              : QString();
}

std::optional<ReadOutcome> Reader::refusal(InputFileInfo &info, const QString &inputProblem)
{
    auto refuse = [&](Severity severity, qint64 line, const QString &message, const QString &dialect) {
        m_trace.diagnostics.push_back({severity, m_rel, line, message});
        info.dialect = dialect;
        m_trace.files.push_back(info);
        return ReadOutcome::Unusable;
    };
    if (!m_sawContent && inputProblem.isEmpty())
        return refuse(Severity::Warning, 0, QStringLiteral("is empty or blank: no kernels read from it"),
                      QStringLiteral("empty"));
    if (m_toolSeen && !m_processes.empty())
        return std::nullopt;
    if (!inputProblem.isEmpty())
        return refuse(Severity::Error, 0, QStringLiteral("cannot be read: %1; no kernels read from it").arg(inputProblem),
                      QStringLiteral("unreadable"));
    if (m_scanner.failed())
        return refuse(Severity::Error, m_scanner.errorLine(),
                      QStringLiteral("is not valid JSON (%1 at %2) before any rocprofv3 record; no kernels read "
                                     "from it")
                          .arg(QString::fromStdString(m_scanner.errorMessage()), syntaxWhere()),
                      QStringLiteral("invalid JSON"));
    return refuse(Severity::Warning, 0,
                  QStringLiteral("is JSON but not rocprofv3's (no top-level \"rocprofiler-sdk-tool\" array, as "
                                 "--output-format json writes); no kernels read from it"),
                  QStringLiteral("foreign JSON"));
}

Process::Symbol *Reader::symbolOf(const Dispatch &d, Process &proc)
{
    if (d.external != 0 && !proc.renamed.empty()) {
        auto it = proc.renamed.find(d.external);
        if (it != proc.renamed.end())
            return &it->second;
    }
    auto it = proc.symbols.find(d.kernelId);
    return it != proc.symbols.end() ? &it->second : nullptr;
}

void Reader::sweepDispatch(const Dispatch &d, quint64 correlation, kernels::TimelineBuilder &timeline, SweepCounts &c)
{
    KernelReading &w = *m_sink.workbench.reading;
    Process &proc = m_processes[size_t(d.process)];
    Process::Symbol *symbol = symbolOf(d, proc);
    const auto agentIt = proc.agents.find(d.agent);
    if (!symbol || agentIt == proc.agents.end()) {
        ++c.orphanRows;
        ++c.skipped;
        ++w.rowsSkippedUnreadable;
        return;
    }
    ++c.rows;
    if (symbol->name.empty()) {
        ++c.noNameRows;
        ++c.skipped;
        ++w.rowsSkippedNoName;
        if (m_sink.reference)
            ++m_sink.reference->reading->rowsSkippedNoName;
        return;
    }
    if (!symbol->interned) {
        symbol->globalId = m_sink.names.intern(symbol->name);
        symbol->interned = true;
    }
    const qint64 agent = agentIt->second.logicalNodeId;
    const std::string label = agent < 0 ? std::string() : "Agent " + std::to_string(agent);
    const qint64 pid = proc.pidKnown ? proc.pid : -1;
    if (m_lanes && correlation != 0)  // the kernel's side of its flow (0: no internal id)
        m_lanes->addGpu(d.startNs, qint64(correlation), qint32(agent), qint32(d.queue));
    long long duration = 0;
    if (__builtin_sub_overflow(d.endNs, d.startNs, &duration) || duration <= 0) {
        ++(duration == 0 ? c.zeroRows : c.negativeRows);
        ++c.skipped;
        ++w.rowsSkippedNonPositive;
        if (m_sink.reference)
            ++m_sink.reference->reading->rowsSkippedNonPositive;
        if (duration == 0)
            timeline.addKernel(symbol->globalId, symbol->name, pid, agent, qint64(d.queue), d.startNs, d.endNs);
        return;
    }
    timeline.addKernel(symbol->globalId, symbol->name, pid, agent, qint64(d.queue), d.startNs, d.endNs);
    if (m_sink.reference) {
        m_sink.reference->use(symbol->globalId, duration);
        m_sink.reference->span(d.startNs, d.endNs);
        m_sink.reference->agents.add(m_sink.host, label);
    }
    if (duration > kMaxPlausibleKernelNs) {
        ++c.implausibleRows;
        ++c.skipped;
        ++w.rowsSkippedUnreadable;
        return;
    }
    m_sink.workbench.use(symbol->globalId, duration);
    m_sink.workbench.span(d.startNs, d.endNs);
    m_sink.workbench.agents.add(m_sink.host, label);
}

void Reader::collectMarkers()
{
    qint64 markerRanges = 0;
    for (const MarkerRecord &r : m_markers) {
        const Process &proc = m_processes[size_t(r.process)];
        std::string_view kindName, opName;
        if (r.kind < proc.kindNames.size()) {
            kindName = proc.kindNames[r.kind].first;
            if (r.operation < proc.kindNames[r.kind].second.size())
                opName = proc.kindNames[r.kind].second[r.operation];
        }
        QString name;
        const auto msg = proc.markerMessages.find(r.correlation);
        if (kindName == "MARKER_CORE_API" && opName != "roctxGetThreadId" && msg != proc.markerMessages.end())
            name = QString::fromStdString(msg->second);
        else if (kindName.empty() && msg != proc.markerMessages.end())
            name = QString::fromStdString(msg->second);
        else
            name = QString::fromUtf8(opName.data(), qsizetype(opName.size()));
        if (name.isEmpty())
            continue;
        m_trace.host.ranges.push_back({name, proc.pidKnown ? proc.pid : 0, r.tid, r.startNs, r.endNs});
        ++markerRanges;
        if (m_lanes && r.endNs > r.startNs) {
            const QByteArray text = name.toUtf8();
            const std::string_view view(text.constData(), std::size_t(text.size()));
            m_lanes->add(kernels::markerKind(view), view, m_lanes->threadOf(proc.pidKnown ? proc.pid : 0, r.tid),
                         r.startNs, r.endNs);
        }
    }
    if (markerRanges > 0 || m_hipCalls > 0)
        m_trace.host.files << m_rel;
}

void Reader::inputDiagnostics(const QString &inputProblem)
{
    Diagnostics &diags = m_trace.diagnostics;
    if (m_scanner.failed())
        diags.push_back({Severity::Error, m_rel, m_scanner.errorLine(),
                         QStringLiteral("is not valid JSON from %1 on (%2): the file was cut short or damaged; the %3 "
                                        "kernel dispatch records before it are read, the rest is not")
                             .arg(syntaxWhere(), QString::fromStdString(m_scanner.errorMessage()))
                             .arg(m_dispatches.size())});
    if (!inputProblem.isEmpty())
        diags.push_back({Severity::Error, m_rel, 0,
                         QStringLiteral("read error: %1; the %2 kernel dispatch records before it are read")
                             .arg(inputProblem)
                             .arg(m_dispatches.size())});
    if (m_dispatches.empty() && m_badRecords == 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("holds no kernel dispatches (buffer_records.kernel_dispatch is empty or "
                                        "missing: rocprofv3 ran without --kernel-trace?)")});
    for (const auto &[line, what] : m_badRecordLines)
        diags.push_back({Severity::Warning, m_rel, line, QStringLiteral("record left out: %1").arg(what)});
    if (m_repeatedRecords > 0)
        diags.push_back({Severity::Warning, m_rel, m_firstRepeatedLine,
                         QStringLiteral("%1: the last value is used, as Python's json does%2")
                             .arg(m_firstRepeated,
                                  m_repeatedRecords > 1
                                      ? QStringLiteral("; %1 records in all have a member more than once").arg(m_repeatedRecords)
                                      : QString())});
    if (m_badRecords > qint64(m_badRecordLines.size()))
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 records in all left out as unreadable").arg(m_badRecords)});
}

void Reader::dispatchDiagnostics(const SweepCounts &c, bool streamOverflow)
{
    Diagnostics &diags = m_trace.diagnostics;
    if (c.orphanRows > 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 kernel dispatches name a kernel_id or agent the file does not list "
                                        "(kernel_symbols, agents); they are skipped")
                             .arg(c.orphanRows)});
    if (c.noNameRows > 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 dispatches of kernels without a name were skipped").arg(c.noNameRows)});
    if (c.negativeRows > 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 dispatches with end before start were skipped").arg(c.negativeRows)});
    if (c.zeroRows > 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 dispatches with zero duration were skipped").arg(c.zeroRows)});
    if (c.implausibleRows > 0)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("%1 dispatches longer than a day (implausible) were skipped").arg(c.implausibleRows)});
    if (streamOverflow)
        diags.push_back({Severity::Warning, m_rel, 0,
                         QStringLiteral("more than 65535 queues on one device: the last ones share one timeline lane")});
}

void Reader::describe(InputFileInfo &info, const SweepCounts &c) const
{
    qint64 kernelSymbols = 0;
    for (const Process &p : m_processes)
        kernelSymbols += qint64(p.symbols.size());
    info.dialect = QStringLiteral("rocprofv3 JSON (%1 process%2, %3 kernel symbols, %4 HIP calls, %5 marker records)")
                       .arg(m_processes.size())
                       .arg(m_processes.size() == 1 ? QString() : QStringLiteral("es"))
                       .arg(kernelSymbols)
                       .arg(m_hipCalls)
                       .arg(m_markers.size());
    const QString dispatch = QStringLiteral("buffer_records.kernel_dispatch[].");
    info.workbenchColumns = {
        {QStringLiteral("kernel_name"), QStringLiteral("kernel_symbols[kernel_id].formatted_kernel_name"),
         QStringLiteral("rocprofv3 JSON: the name its CSV writes"), QString()},
        {QStringLiteral("start"), dispatch + QStringLiteral("start_timestamp"), QStringLiteral("rocprofv3 JSON"), QStringLiteral("ns")},
        {QStringLiteral("end"), dispatch + QStringLiteral("end_timestamp"), QStringLiteral("rocprofv3 JSON"), QStringLiteral("ns")},
        {QStringLiteral("duration"), QString(), QStringLiteral("computed as end - start"), QStringLiteral("ns")},
        {QStringLiteral("agent"), QStringLiteral("agents[dispatch_info.agent_id].logical_node_id"),
         QStringLiteral("rocprofv3 JSON: \"Agent <logical_node_id>\" as its CSV writes Agent_Id"), QString()},
        {QStringLiteral("stream"), dispatch + QStringLiteral("dispatch_info.queue_id"), QStringLiteral("rocprofv3 JSON"), QString()}};
    info.rowsRead = c.rows;
    info.rowsSkipped = c.skipped;
}

/// The HIP calls as host ranges (host lanes only), named by their operation in
/// strings.buffer_records, with their internal correlation id (the dispatches' too).
void Reader::collectHipCalls()
{
    for (const MarkerRecord &r : m_hipRecords) {
        const Process &proc = m_processes[size_t(r.process)];
        std::string_view name = "HIP call";
        if (r.kind < proc.kindNames.size() && r.operation < proc.kindNames[r.kind].second.size() &&
            !proc.kindNames[r.kind].second[r.operation].empty())
            name = proc.kindNames[r.kind].second[r.operation];
        const std::uint16_t thread = m_lanes->threadOf(proc.pidKnown ? proc.pid : 0, r.tid);
        if (r.correlation != 0)
            m_lanes->addRuntime(name, thread, r.startNs, r.endNs, qint64(r.correlation));
        else
            m_lanes->add(HostSliceKind::Runtime, name, thread, r.startNs, r.endNs);
    }
    m_hipRecords = {};
}

ReadOutcome Reader::finish(InputFileInfo &info, const QString &inputProblem)
{
    if (const std::optional<ReadOutcome> refused = refusal(info, inputProblem))
        return *refused;
    // The dispatches, in file order (the order rocprofv3's CSV writes them).
    kernels::TimelineBuilder timeline(kFormat, m_rel);
    timeline.expectRows(qint64(m_dispatches.size()));
    SweepCounts counts;
    for (std::size_t i = 0; i < m_dispatches.size(); ++i)
        sweepDispatch(m_dispatches[i], m_lanes ? m_dispatchCorrelations[i] : 0, timeline, counts);
    // Markers: roctx ranges named by their message (as rocprofv3's marker CSV and pftrace do).
    collectMarkers();
    if (m_lanes)
        collectHipCalls();
    // What the file said, its row, its timeline.
    inputDiagnostics(inputProblem);
    dispatchDiagnostics(counts, timeline.streamOverflow());
    describe(info, counts);
    m_trace.files.push_back(info);
    if (timeline.eventCount() > 0) {
        m_trace.timeline.files.push_back(timeline.take());
        if (m_lanes && m_lanes->rangeCount() > 0) {
            auto built = std::make_shared<HostLanes>(m_lanes->build());
            kernels::hostLanesSummary(*built, m_lanes->threadOverflow(), m_rel,
                                      QStringLiteral("its hip_api and marker_api records"), m_trace.diagnostics);
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

ReadOutcome readRocprofJson(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
                             const ProgressCallback &progress)
{
    return readFrom(io::ByteOrigin::file(path), QFileInfo(path).size(), rel, sink, trace, progress);
}

ReadOutcome readRocprofJsonBytes(QByteArrayView bytes, const QString &rel, KernelSink &sink, KernelTrace &trace,
                                  const ProgressCallback &progress)
{
    return readFrom(io::ByteOrigin::bytes(bytes), bytes.size(), rel, sink, trace, progress);
}

} // namespace goblin
