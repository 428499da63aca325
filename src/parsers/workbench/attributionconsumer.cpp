// Attribution of GPU time to the CPU ops, modules and stacks that launched it (traceattribution.h).
// Per event only what the join needs is kept (24-byte records, interned names); the join runs once
// the document ends: per thread a sweep of the ranges and calls in time order gives every runtime
// call its stack, then each GPU event follows its correlation id to a call.
#include "workbench/attributionconsumer.h"

#include "kineto/gpuevents.h"
#include "syntax/bytesearch.h"
#include "syntax/jsontoken.h"
#include "torchtraceparser.h"
#include "workbench/idmap.h"
#include "workbench/memoryconsumer.h"
#include "workbench/tracetraitsconsumer.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>

namespace goblin::workbench {

using kineto::kArgsKey;
using kineto::KinetoEvent;
using kineto::kPidKey;
using syntax::startsWith;
using syntax::trimJson;

namespace {

constexpr char kKeySeparator = '\x1f';  // between an op's name, its dtypes and its shapes; a pid and its tid
/// Inside an op key's dtypes part: before the op's "Concrete Inputs" (kept for a few ops only).
constexpr char kConcreteSeparator = '\x1d';
constexpr quint32 kNone = ~quint32(0);

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/// The bytes at `p` are `text`: a loop, cheaper than a memcmp call for the few bytes of a pid.
inline bool sameBytes(const char *p, std::string_view text)
{
    for (const char c : text)
        if (*p++ != c)
            return false;
    return true;
}

/// The first `"key"` followed by ':' in [p, end), or nullptr.
const char *findKey(const char *p, const char *end, std::string_view quotedKey)
{
    while (p < end) {
        const char *at = syntax::findQuoted(p, end, quotedKey);
        if (!at)
            return nullptr;
        const char *q = at + quotedKey.size();
        while (q < end && isSpace(*q))
            ++q;
        if (q < end && *q == ':')
            return q + 1;
        p = at + 1;
    }
    return nullptr;
}

/// Writes v as a LEB128 varint (at most 10 bytes) at `p`; returns the position after it.
std::uint8_t *putVarint(std::uint8_t *p, quint64 v)
{
    while (v >= 0x80) {
        *p++ = std::uint8_t(v | 0x80);
        v >>= 7;
    }
    *p++ = std::uint8_t(v);
    return p;
}
constexpr size_t kMaxRecordBytes = 1 + 3 * 10;  // a kind byte and three varints
/// A range that ends this little after the one it began in stays nested in it: µs timestamps
/// written as decimals round both ends (docs/attribution.md, "Nesting").
constexpr qint64 kNestingSlackNs = 1000;

quint64 zigzag(qint64 v) { return (quint64(v) << 1) ^ quint64(v >> 63); }
qint64 unzigzag(quint64 v) { return qint64(v >> 1) ^ -qint64(v & 1); }

quint64 getVarint(const std::uint8_t *&p, const std::uint8_t *end)
{
    quint64 v = 0;
    int shift = 0;
    while (p < end) {
        const std::uint8_t b = *p++;
        if (shift < 64)
            v |= quint64(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80))
            break;
    }
    return v;
}

/// The join's order of a thread's records: by start; at one start ranges before calls (a call
/// that starts with an op is inside it), longer ranges first (the outer one); then as written.
bool joinBefore(const AttributionConsumer::CpuRecord &a, const AttributionConsumer::CpuRecord &b)
{
    if (a.begin != b.begin)
        return a.begin < b.begin;
    const bool aCall = a.kind == AttributionConsumer::KindCall, bCall = b.kind == AttributionConsumer::KindCall;
    if (aCall != bCall)
        return bCall;
    if (aCall)
        return false;
    return a.end - a.begin > b.end - b.begin;
}

/// Every record of a thread in the order written.
template <typename F>
void forEachCpu(const AttributionConsumer::ThreadLog &log, F &&f)
{
    for (const AttributionConsumer::Segment &segment : log.segments) {
        qint64 begin = 0, correlation = 0;
        segment.bytes.forEachBlock([&](const std::uint8_t *p, const std::uint8_t *const end) {
            while (p < end) {
                const auto kind = AttributionConsumer::Kind(*p++);
                begin += unzigzag(getVarint(p, end));
                if (kind == AttributionConsumer::KindCall) {
                    correlation += unzigzag(getVarint(p, end));
                    quint32 key = quint32(getVarint(p, end));
                    if (segment.names)
                        key = (*segment.names)[key];
                    f(AttributionConsumer::CpuRecord{begin, correlation, key, kind});
                    continue;
                }
                const qint64 durNs = qint64(getVarint(p, end));
                quint32 key = quint32(getVarint(p, end));
                if (segment.names)
                    key = (*segment.names)[key];
                f(AttributionConsumer::CpuRecord{begin, begin + durNs, key, kind});
            }
        });
    }
}

template <typename F>
void forEachGpu(const AttributionConsumer::GpuLog &log, F &&f)
{
    for (const AttributionConsumer::Segment &segment : log.segments) {
        qint64 correlation = 0;
        segment.bytes.forEachBlock([&](const std::uint8_t *p, const std::uint8_t *const end) {
            while (p < end) {
                const quint64 head = getVarint(p, end);
                correlation += unzigzag(head >> 2);
                const qint64 durNs = qint64(getVarint(p, end));
                quint32 name = quint32(getVarint(p, end));
                if (segment.names)
                    name = (*segment.names)[name];
                f(AttributionConsumer::GpuRecord{(head & 2) ? correlation : -1, durNs, name, bool(head & 1)});
            }
        });
    }
}

} // namespace

std::string_view eventThreadToken(const KinetoEvent &event)
{
    return (event.fields.have & (1u << kineto::kTidKey)) ? trimJson(event.fields.token[kineto::kTidKey])
                                                        : std::string_view();
}

std::string inputDimsText(std::string_view args, bool *keyFound)
{
    const char *const end = args.data() + args.size();
    const char *p = findKey(args.data(), end, "\"Input Dims\"");
    *keyFound = p != nullptr;
    if (!p)
        return {};
    return compactArrayText(std::string_view(p, size_t(end - p)));
}

namespace {

/// Appends the compact array of args[quotedKey], searched from behind "Input Dims" first.
void appendArgArray(std::string &out, std::string_view args, std::string_view dimsToken, std::string_view key)
{
    const char *const begin = args.data();
    const char *const end = begin + args.size();
    const bool dimsInside = !dimsToken.empty() && dimsToken.data() >= begin && dimsToken.data() <= end;
    const char *const from = dimsInside ? dimsToken.data() + dimsToken.size() : begin;
    const char *p = findKey(from, end, key);
    if (!p && from != begin)
        p = findKey(begin, from, key);
    if (p)
        appendCompactArray(out, std::string_view(p, size_t(end - p)));
}

} // namespace

void appendInputTypes(std::string &out, std::string_view args, std::string_view dimsToken)
{
    appendArgArray(out, args, dimsToken, "\"Input type\"");
}

bool opNeedsConcreteInputs(std::string_view name)
{
    // Called for every op with shapes: one length test and one byte decide for nearly all names.
    if (name.size() < 12 || !startsWith(name, "aten::"))
        return false;
    switch (name[6]) {
    case 'c':
        return name == "aten::convolution" || name == "aten::conv1d" || name == "aten::conv2d" ||
               name == "aten::conv3d" || name == "aten::cudnn_convolution" || name == "aten::conv_transpose1d" ||
               name == "aten::conv_transpose2d" || name == "aten::conv_transpose3d";
    case 'm':
        return name == "aten::miopen_convolution";
    case 's':
        return name == "aten::scaled_dot_product_attention";
    case '_':
        return name == "aten::_convolution" || startsWith(name, "aten::_scaled_dot_product_") ||
               startsWith(name, "aten::_flash_attention_") || startsWith(name, "aten::_efficient_attention_");
    default:
        return false;
    }
}

void appendConcreteInputs(std::string &out, std::string_view args, std::string_view dimsToken)
{
    const size_t mark = out.size();
    out.push_back(kConcreteSeparator);
    appendArgArray(out, args, dimsToken, "\"Concrete Inputs\"");
    if (out.size() == mark + 1)
        out.resize(mark);  // none recorded
}

std::string compactArrayText(std::string_view value)
{
    std::string out;
    appendCompactArray(out, value);
    return out;
}

void appendCompactArray(std::string &out, std::string_view value)
{
    const size_t start = out.size();
    const char *p = value.data();
    const char *const end = p + value.size();
    while (p < end && isSpace(*p))
        ++p;
    if (p >= end || *p != '[')
        return;
    int depth = 0;
    bool inString = false;
    for (; p < end; ++p) {
        const char c = *p;
        if (inString) {
            out.push_back(c);
            if (c == '\\' && p + 1 < end)
                out.push_back(*++p);
            else if (c == '"')
                inString = false;
            continue;
        }
        if (isSpace(c))
            continue;
        out.push_back(c);
        if (c == '"')
            inString = true;
        else if (c == '[' || c == '{')
            ++depth;
        else if ((c == ']' || c == '}') && --depth == 0)
            break;
    }
    if (depth != 0)
        out.resize(start);  // cut off: not a value we can show
}

quint32 AttributionConsumer::Interner::id(std::string_view text)
{
    // Names come in runs of a few (an op's launch, its kernel): a direct-mapped slot per
    // (length, middle and last byte) answers most of them with one compare and no hash.
    const size_t n = text.size();
    quint32 &slot = m_recent[(n * 131 + (n ? quint8(text[n / 2]) * 31 + quint8(text[n - 1]) : 0)) % kRecentSlots];
    if (slot < m_texts.size()) {
        const std::string &known = *m_texts[slot];
        if (known.size() == n && std::memcmp(known.data(), text.data(), n) == 0)
            return slot;
    }
    const auto it = m_ids.find(text);
    if (it != m_ids.end()) {
        slot = it->second;
        return it->second;
    }
    const std::string &stored = m_storage.emplace_back(text);
    const quint32 id = quint32(m_texts.size());
    m_texts.push_back(&stored);
    m_ids.emplace(std::string_view(stored), id);
    slot = id;
    return id;
}

// ------------------------------------------------------------------------------------------------

void AttributionConsumer::onEvent(const KinetoEvent &event)
{
    if (event.phText.size() != 1 || event.phText[0] != 'X') {
        if (event.phText.size() == 1 && (event.phText[0] == 'i' || event.phText[0] == 'I') &&
            event.nameText == "[memory]")
            addAllocation(event);
        return;
    }
    const std::string_view cat = event.catText;
    if (cat.empty() || !event.name.isString())
        return;
    // Categories first, on their first byte: most events are none of these.
    enum class What { None, Op, Annotation, Python, Runtime, Gpu } what = What::None;
    switch (cat[0]) {
    case 'c':
        if (cat == "cpu_op")
            what = What::Op;
        else if (cat == "cuda_runtime" || cat == "cuda_driver")
            what = What::Runtime;
        break;
    case 'O':
        if (cat == "Operator")
            what = What::Op;
        break;
    case 'R':
        if (cat == "Runtime")
            what = What::Runtime;
        break;
    case 'u':
        if (cat == "user_annotation")
            what = What::Annotation;
        break;
    case 'p':
        if (cat == "python_function")
            what = What::Python;
        break;
    case 'k':
    case 'K':
    case 'g':
    case 'M':
        if (kineto::gpuEventKind(cat))
            what = What::Gpu;
        break;
    default:
        break;
    }
    if (what == What::None)
        return;
    const std::optional<qint64> beginNs = event.timesNs().tsNs;
    const std::optional<qint64> durNs = event.timesNs().durNs;
    if (!beginNs || !durNs || *durNs < 0)
        return;  // the workbench's consumer reports unusable times
    const std::string_view name = event.nameText;
    const bool haveArgs = event.fields.have & (1u << kArgsKey);
    const std::string_view args = haveArgs ? trimJson(event.fields.token[kArgsKey]) : std::string_view();

    switch (what) {
    case What::Gpu: {
        const ArgIds ids = eventArgIds(event, true);
        const bool usable = ids.correlation && *ids.correlation >= 0;
        Segment &segment = writable(m_gpu.segments, m_gpu.previousCorrelation);
        const qint64 correlation = usable ? *ids.correlation : m_gpu.previousCorrelation;
        std::uint8_t *p = segment.bytes.reserve(kMaxRecordBytes);
        p = putVarint(p, (zigzag(correlation - m_gpu.previousCorrelation) << 2) | (usable ? 2u : 0u) |
                             (ids.graphId && *ids.graphId != 0 ? 1u : 0u));
        m_gpu.previousCorrelation = correlation;
        p = putVarint(p, quint64(*durNs));
        p = putVarint(p, m_names.id(name));
        segment.bytes.commit(p);
        ++m_gpuEvents;
        return;
    }
    case What::Runtime: {
        const ArgIds ids = eventArgIds(event, false);
        if (!ids.correlation || *ids.correlation < 0)
            return;
        ++m_calls;
        ++m_correlationPages.at(quint64(*ids.correlation) >> kCorrelationPageBits);
        // The call's name: a launch outside every op gets a row of its own (a graph replay's
        // hipGraphLaunch / cudaGraphLaunch). Few names, so the interner's recent slot answers.
        addCpu(event, KindCall, *beginNs, *ids.correlation, m_names.id(name));
        return;
    }
    case What::Op:
    case What::Annotation:
        if (!name.empty() && name[0] == 'P' && startsWith(name, "ProfilerStep#")) {
            m_steps.push_back({*beginNs, *beginNs + *durNs, m_names.id(name)});
            return;
        }
        if (what == What::Annotation) {
            addCpu(event, KindAnnotation, *beginNs, *beginNs + *durNs, m_names.id(name));
            return;
        }
        ++m_ops;
        if (haveArgs) {
            // Key: name, dtypes, shapes, written straight into the scratch key (no string per op).
            // Rows are still one per name and shapes: the join takes the dtypes apart. The shapes
            // stay last: the interner hashes a long key's first and last bytes. Kineto writes
            // "Input type" right after "Input Dims", so the search for it starts there.
            if (event.fields.argsScanned) {  // located by the scanner: no search of the args for the shapes
                if (event.fields.argHave & (1u << kineto::kArgInputDims)) {
                    const std::string_view dimsToken = event.fields.argToken[kineto::kArgInputDims];
                    m_keyScratch.assign(name);
                    m_keyScratch.push_back(kKeySeparator);
                    appendInputTypes(m_keyScratch, args, dimsToken);
                    if (opNeedsConcreteInputs(name))
                        appendConcreteInputs(m_keyScratch, args, dimsToken);
                    m_keyScratch.push_back(kKeySeparator);
                    appendCompactArray(m_keyScratch, dimsToken);
                    m_shapes = true;
                    addCpu(event, KindOp, *beginNs, *beginNs + *durNs, m_names.id(m_keyScratch));
                    return;
                }
            } else {
                bool recorded = false;  // the key may hold a value we cannot show
                const std::string dims = inputDimsText(args, &recorded);
                if (recorded) {
                    m_keyScratch.assign(name);
                    m_keyScratch.push_back(kKeySeparator);
                    appendInputTypes(m_keyScratch, args, std::string_view());
                    if (opNeedsConcreteInputs(name))
                        appendConcreteInputs(m_keyScratch, args, std::string_view());
                    m_keyScratch.push_back(kKeySeparator);
                    m_keyScratch.append(dims);
                    m_shapes = true;
                    addCpu(event, KindOp, *beginNs, *beginNs + *durNs, m_names.id(m_keyScratch));
                    return;
                }
            }
        }
        addCpu(event, KindOp, *beginNs, *beginNs + *durNs, m_names.id(name));
        return;
    case What::Python:
        addCpu(event, startsWith(name, "nn.Module: ") ? KindModule : KindPython, *beginNs, *beginNs + *durNs,
               m_names.id(name));
        return;
    default:
        return;
    }
}

void AttributionConsumer::addCpu(const KinetoEvent &event, Kind kind, qint64 begin, qint64 end, quint32 key)
{
    const std::string_view pid =
        (event.fields.have & (1u << kPidKey)) ? trimJson(event.fields.token[kPidKey]) : std::string_view();
    const std::string_view tid = eventThreadToken(event);
    // Most events come from the thread of the one before: compare, compose the key only on a change.
    if (m_threads.size() == 0 || m_lastThread.size() != pid.size() + 1 + tid.size() ||
        !sameBytes(m_lastThread.data(), pid) || !sameBytes(m_lastThread.data() + pid.size() + 1, tid)) {
        m_lastThread.assign(pid);
        m_lastThread.push_back(kKeySeparator);
        m_lastThread.append(tid);
        m_lastThreadId = m_threads.id(m_lastThread);
    }
    const quint32 thread = m_lastThreadId;
    if (thread >= m_cpu.size())
        m_cpu.resize(thread + 1);
    append(m_cpu[thread], CpuRecord{begin, end, key, kind});
}

namespace {

std::string_view unquoted(std::string_view t)
{
    return t.size() >= 2 && t.front() == '"' && t.back() == '"' ? t.substr(1, t.size() - 2) : t;
}

} // namespace

void AttributionConsumer::addAllocation(const KinetoEvent &event)
{
    const std::optional<qint64> ts = event.timesNs().tsNs;
    if (!ts || !(event.fields.have & (1u << kArgsKey)) || !(event.fields.have & (1u << kineto::kTidKey)))
        return;  // (an allocation on no thread is inside no op)
    const MemoryArgs args = readMemoryArgs(trimJson(event.fields.token[kArgsKey]));
    // MemoryConsumer's devices: (Device Id, Device Type) of a GPU; type 0 is the host.
    const qint64 type = std::clamp<qint64>(args.deviceType, -1, 1 << 20);
    const qint64 id = std::clamp<qint64>(args.haveDeviceId ? args.deviceId : -1, -1, 1 << 20);
    if (!args.haveDeviceType || type == 0 || !args.haveBytes || args.bytes == 0)
        return;
    const std::string_view pid =
        (event.fields.have & (1u << kPidKey)) ? unquoted(trimJson(event.fields.token[kPidKey])) : std::string_view();
    m_keyScratch.assign(pid);
    m_keyScratch.push_back(kKeySeparator);
    m_keyScratch.append(unquoted(trimJson(event.fields.token[kineto::kTidKey])));
    const quint32 thread = m_allocThreads.id(m_keyScratch);
    m_keyScratch.assign("\x1e");
    m_keyScratch.append(std::to_string(id));
    m_keyScratch.push_back(',');
    m_keyScratch.append(std::to_string(type));
    m_allocs.push_back({*ts, args.bytes, thread, m_names.id(m_keyScratch)});
}

void AttributionConsumer::append(ThreadLog &log, const CpuRecord &record)
{
    if (log.records > 0 && joinBefore(record, log.last)) {
        log.late.push_back(record);
        return;
    }
    if (log.records == 0)
        log.first = record;
    log.last = record;
    ++log.records;
    Segment &segment = writable(log.segments, log.previousBegin, &log.previousCorrelation);
    std::uint8_t *p = segment.bytes.reserve(kMaxRecordBytes);
    *p++ = std::uint8_t(record.kind);
    p = putVarint(p, zigzag(record.begin - log.previousBegin));
    log.previousBegin = record.begin;
    if (record.kind == KindCall) {
        p = putVarint(p, zigzag(record.end - log.previousCorrelation));
        log.previousCorrelation = record.end;
        p = putVarint(p, record.key);
    } else {
        p = putVarint(p, quint64(record.end - record.begin));
        p = putVarint(p, record.key);
    }
    segment.bytes.commit(p);
}

AttributionConsumer::Segment &AttributionConsumer::writable(std::vector<Segment> &segments, qint64 &previous,
                                                            qint64 *previous2)
{
    // A byte range's segments carry its name map: this reader's records start a segment of their own.
    if (segments.empty() || segments.back().names) {
        segments.emplace_back();
        previous = 0;
        if (previous2)
            *previous2 = 0;
    }
    return segments.back();
}

void AttributionConsumer::finishRange()
{
    for (ThreadLog &log : m_cpu)
        log.late.shrink_to_fit();  // the byte logs' blocks hold no slack worth a copy
}

void AttributionConsumer::absorb(kineto::EventConsumer &laterRange, int)
{
    AttributionConsumer &range = static_cast<AttributionConsumer &>(laterRange);
    // The range interned its own names: its segments keep a map of its ids onto ours.
    auto names = std::make_shared<std::vector<quint32>>(range.m_names.size());
    for (quint32 i = 0; i < names->size(); ++i)
        (*names)[i] = m_names.id(range.m_names.text(i));
    for (quint32 t = 0; t < range.m_cpu.size(); ++t) {
        ThreadLog &from = range.m_cpu[t];
        if (from.records == 0 && from.late.empty())
            continue;
        const quint32 thread = m_threads.id(range.m_threads.text(t));
        if (thread >= m_cpu.size())
            m_cpu.resize(thread + 1);
        ThreadLog &to = m_cpu[thread];
        for (Segment &segment : from.segments)
            segment.names = names;
        CpuRecord first = from.first, last = from.last;  // calls too carry a name
        first.key = (*names)[first.key];
        last.key = (*names)[last.key];
        if (from.records == 0) {
            // only late records
        } else if (to.records == 0 || !joinBefore(first, to.last)) {
            if (to.records == 0)
                to.first = first;
            to.last = last;
            to.records += from.records;
            for (Segment &segment : from.segments)
                to.segments.push_back(std::move(segment));
        } else {
            // The range starts before what we hold ends (a frame written after its contents
            // fell just past the cut): its records go through the same sorting as ours.
            forEachCpu(from, [&](const CpuRecord &r) { append(to, r); });
        }
        for (CpuRecord r : from.late) {
            r.key = (*names)[r.key];
            to.late.push_back(r);
        }
        from = {};
    }
    for (Segment &segment : range.m_gpu.segments) {
        segment.names = names;
        m_gpu.segments.push_back(std::move(segment));
    }
    range.m_gpu = {};
    for (StepRecord s : range.m_steps) {
        s.name = (*names)[s.name];
        m_steps.push_back(s);
    }
    for (AllocRecord a : range.m_allocs) {
        a.thread = m_allocThreads.id(range.m_allocThreads.text(a.thread));
        a.device = (*names)[a.device];
        m_allocs.push_back(a);
    }
    range.m_allocs = {};
    m_gpuEvents += range.m_gpuEvents;
    m_ops += range.m_ops;
    m_calls += range.m_calls;
    range.m_correlationPages.forEach([&](quint64 page, qint64 calls) { m_correlationPages.at(page) += calls; });
    range.m_correlationPages = {};
    m_shapes = m_shapes || range.m_shapes;
}

// ------------------------------------------------------------------------------------------------
// The join.

namespace {

using Kind = AttributionConsumer::Kind;

/// A node of the stack prefix tree: one frame (kind, interned key) under its parent.
struct PathNode {
    quint32 parent;
    quint32 key;
    Kind kind;
};

/// What one scope (whole trace, a step) gathered at one stack node.
struct NodeAggregate {
    qint64 calls = 0;
    qint64 hostNs = 0;
    qint64 hostSelfNs = 0;   // ops: wall time minus the ops directly inside
    qint64 hostTotalNs = 0;  // ops: wall time of the calls not inside an op of the same key
    qint64 launchedNs = 0;   // GPU time launched with this frame on top of the stack
    qint64 opDeviceNs = 0;   // ops: GPU time this op launched itself (device self)
    qint64 opEvents = 0;
    qint64 idleSelfNs = 0;   // ops: host self time while no GPU event of the trace ran
};

/// The trace's GPU activity (every device, every event), to measure how much of a host interval
/// the GPU spent idle. Read from the GPU timeline the workbench's reader finished just before
/// (KinetoConsumer runs first). One device whose events run in order (starts and ends never
/// decrease: one stream, the common case) is read in place; otherwise the events are copied into a
/// sorted union (16 bytes per busy interval).
class GpuBusyUnion
{
public:
    explicit GpuBusyUnion(const GpuTimelineFile *file)
    {
        if (!file)
            return;
        const GpuDeviceTimeline *only = nullptr;
        int withEvents = 0;
        for (const GpuDeviceTimeline &d : file->devices)
            if (!d.events.empty()) {
                only = &d;
                ++withEvents;
            }
        if (withEvents == 1 && inOrder(only->events)) {
            m_inPlace = &only->events;
            return;
        }
        bool sorted = true;
        for (const GpuDeviceTimeline &d : file->devices)
            for (const GpuEvent &e : d.events) {
                if (e.endNs <= e.startNs)
                    continue;
                if (!m_union.empty() && e.startNs >= m_union.back().startNs && e.startNs <= m_union.back().endNs) {
                    m_union.back().endNs = std::max(m_union.back().endNs, e.endNs);
                    continue;
                }
                if (!m_union.empty() && e.startNs < m_union.back().startNs)
                    sorted = false;
                m_union.push_back({e.startNs, e.endNs});
            }
        if (!sorted) {
            std::sort(m_union.begin(), m_union.end(),
                      [](const TimeInterval &a, const TimeInterval &b) { return a.startNs < b.startNs; });
            size_t w = 0;
            for (size_t i = 1; i < m_union.size(); ++i) {
                if (m_union[i].startNs <= m_union[w].endNs)
                    m_union[w].endNs = std::max(m_union[w].endNs, m_union[i].endNs);
                else
                    m_union[++w] = m_union[i];
            }
            if (!m_union.empty())
                m_union.resize(w + 1);
        }
        m_union.shrink_to_fit();
    }
    bool empty() const { return m_inPlace ? false : m_union.empty(); }

    /// GPU-idle time inside [b, e). `cursor` belongs to one thread's walk, whose `b` never
    /// decreases: it skips what ends before b (with ends in order, nothing after it does).
    qint64 idleIn(qint64 b, qint64 e, size_t &cursor) const
    {
        if (e <= b)
            return 0;
        qint64 busy = 0;
        if (m_inPlace) {
            const GpuEventList &list = *m_inPlace;
            const size_t n = list.size();
            while (cursor < n && list[cursor].endNs <= b)
                ++cursor;
            qint64 covered = b;  // events may overlap their predecessor: count each instant once
            for (size_t i = cursor; i < n && list.startNs(i) < e; ++i) {
                const GpuEvent ev = list[i];
                const qint64 from = std::max(ev.startNs, covered), to = std::min(ev.endNs, e);
                if (to > from) {
                    busy += to - from;
                    covered = to;
                }
            }
            return (e - b) - busy;
        }
        const size_t n = m_union.size();
        while (cursor < n && m_union[cursor].endNs <= b)
            ++cursor;
        for (size_t i = cursor; i < n && m_union[i].startNs < e; ++i)
            busy += std::min(e, m_union[i].endNs) - std::max(b, m_union[i].startNs);
        return (e - b) - busy;
    }

private:
    static bool inOrder(const GpuEventList &list)
    {
        qint64 lastStart = std::numeric_limits<qint64>::min(), lastEnd = lastStart;
        for (const GpuEvent &e : list) {
            if (e.startNs < lastStart || e.endNs < lastEnd)
                return false;
            lastStart = e.startNs;
            lastEnd = e.endNs;
        }
        return true;
    }

    const GpuEventList *m_inPlace = nullptr;
    std::vector<TimeInterval> m_union;
};

struct CallInfo {
    quint32 node;    // the top frame at the call (0: none)
    quint32 opNode;  // the innermost op (kNone: none)
    int step;        // -1: outside every step
};

struct ScopeData {
    std::vector<NodeAggregate> nodes;
    IdMap<qint64> leafNs;  // (node, kernel name) -> GPU time
    struct KernelOp {
        qint64 events = 0;
        qint64 ns = 0;
    };
    IdMap<KernelOp> kernelOps;  // (kernel name, op key) -> …
    NodeAggregate &at(quint32 node)
    {
        if (nodes.size() <= node)
            nodes.resize(size_t(node) + 1);
        return nodes[node];
    }
};

quint64 pair64(quint32 a, quint32 b) { return (quint64(a) << 32) | b; }

FrameKind frameKind(Kind kind)
{
    switch (kind) {
    case Kind::KindOp: return FrameKind::Op;
    case Kind::KindAnnotation: return FrameKind::Annotation;
    case Kind::KindPython: return FrameKind::PythonFunction;
    case Kind::KindModule: return FrameKind::Module;
    case Kind::KindCall: return FrameKind::RuntimeCall;
    default: return FrameKind::Root;
    }
}

QString qtext(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

/// The join finish() makes once the document ends, phase by phase: the consumer's records in
/// (each released once its phase is done with it), the attribution and the memory view's
/// allocating ops out.
class AttributionJoin
{
public:
    using AC = AttributionConsumer;
    /// The consumer's records.
    struct Records {
        const AC::Interner &names;
        const AC::Interner &threads;
        const AC::Interner &allocThreads;
        std::vector<AC::ThreadLog> &cpu;
        AC::GpuLog &gpu;
        IdMap<qint64> &correlationPages;  ///< runtime calls per page of correlation ids
        int correlationPageBits;
        std::vector<AC::StepRecord> &steps;
        std::vector<AC::AllocRecord> &allocs;
    };

    AttributionJoin(Records records, TorchTrace &out)
        : m_in(records)
        , m_page(size_t(1) << records.correlationPageBits)
        , m_out(out)
        , m_result(out.attribution)
        // Host self time during GPU idle: the ops the host ran while the GPU waited (the host-gap
        // advice names them). The GPU timeline of this file was finished by the workbench's reader.
        , m_gpuBusy(out.timeline.files.empty() ? nullptr : &out.timeline.files.back())
    {
    }

    void run()
    {
        std::sort(m_in.steps.begin(), m_in.steps.end(),
                  [](const AC::StepRecord &a, const AC::StepRecord &b) { return a.begin < b.begin; });
        m_scopes.resize(1 + m_in.steps.size());
        m_siteIds.resize(m_scopes.size());
        planCallSites();
        m_result.gpuIdleMeasured = !m_gpuBusy.empty();
        walkCpu();
        handAllocatingOps();
        m_siteIds = {};
        attributeGpuEvents();
        planRowKeys();
        for (size_t si = 0; si < m_scopes.size(); ++si)
            buildScope(si);
    }

private:
    /// An open range on a thread's stack.
    struct Open {
        qint64 end;
        quint32 node;
        quint32 key;
        Kind kind;
        int step;
        quint32 seq;  // push order on its thread
    };
    struct AllocStats {
        qint64 allocations = 0, allocatedBytes = 0, freedBytes = 0;
    };

    std::string_view opName(quint32 key) const
    {
        const std::string &k = m_in.names.text(key);
        return std::string_view(k).substr(0, k.find(kKeySeparator));
    }

    /// The step `t` falls in, or -1.
    int stepOf(qint64 t) const
    {
        auto it = std::upper_bound(m_in.steps.begin(), m_in.steps.end(), t,
                                   [](qint64 v, const AC::StepRecord &s) { return v < s.begin; });
        if (it == m_in.steps.begin())
            return -1;
        --it;
        return t < it->end ? int(it - m_in.steps.begin()) : -1;
    }

    /// The node of frame (kind, key) under `parent`, made when new.
    quint32 child(quint32 parent, Kind kind, quint32 key)
    {
        const quint64 k = (quint64(parent) << 32) ^ (quint64(kind) << 29) ^ key;  // keys < 2^29
        bool inserted = false;
        quint32 &id = m_childOf.at(k, &inserted);
        if (inserted) {
            id = quint32(m_nodes.size());
            m_nodes.push_back({parent, key, kind});
        }
        return id;
    }

    /// `f` on the whole trace's scope and on the step's, if any.
    template <typename F>
    void forScopes(int step, F &&f)
    {
        f(m_scopes[0]);
        if (step >= 0)
            f(m_scopes[size_t(step) + 1]);
    }

    AttributionScope &scopeOut(size_t i) { return i == 0 ? m_result.wholeTrace : m_result.steps[i - 1]; }

    // The calls' sites (top frame, innermost op, step); each correlation id → its site + 1, in
    // arrays of 4096 ids where the ids are dense (tracers count them up), else a hash map.
    void planCallSites()
    {
        m_in.correlationPages.forEach([&](quint64 page, qint64 calls) {
            if (calls * 16 >= qint64(m_page)) {  // a sixteenth of the ids or more: an array is smaller
                m_densePage.at(page) = quint32(m_denseSites.size() / m_page + 1);
                m_denseSites.resize(m_denseSites.size() + m_page, 0);
            }
        });
        m_in.correlationPages = {};
    }
    quint32 *denseSlot(qint64 correlation)
    {
        const quint32 *page = m_densePage.find(quint64(correlation) >> m_in.correlationPageBits);
        return page ? &m_denseSites[size_t(*page - 1) * m_page + (size_t(correlation) & (m_page - 1))] : nullptr;
    }
    quint32 *siteSlot(qint64 correlation)  // correlations are >= 0: never the map's empty key
    {
        quint32 *slot = denseSlot(correlation);
        return slot ? slot : &m_sparseSites.at(quint64(correlation));
    }
    quint32 findSite(qint64 correlation)  // its site + 1, 0: none
    {
        const quint32 *slot = denseSlot(correlation);
        if (!slot)
            slot = m_sparseSites.find(quint64(correlation));
        return slot ? *slot : 0;
    }

    // Per thread: ranges and calls in the join's order (joinBefore), a stack of the open ranges:
    // the stream as it lies, the late records merged in, the thread's allocations between them.
    void walkCpu()
    {
        const std::vector<std::vector<AC::AllocRecord>> allocsOf = allocationsByCpuThread();
        m_in.allocs = {};
        for (size_t t = 0; t < m_in.cpu.size(); ++t)
            walkThread(m_in.cpu[t], allocsOf[t]);
        m_in.cpu = std::vector<AC::ThreadLog>();
    }

    /// The allocations of each CPU thread in time order, for the memory view's allocating ops.
    std::vector<std::vector<AC::AllocRecord>> allocationsByCpuThread() const
    {
        std::vector<std::vector<AC::AllocRecord>> allocsOf(m_in.cpu.size());
        if (m_in.allocs.empty())
            return allocsOf;
        // Threads compared without quotes: 2021 traces write an op's tid as "25738" and an
        // allocation's as 25738. Of two threads that differ only so, the one with more records.
        std::unordered_map<std::string, quint32> cpuThreadOf;
        for (quint32 t = 0; t < m_in.cpu.size(); ++t) {
            const std::string_view raw = m_in.threads.text(t);
            const size_t sep = raw.find(kKeySeparator);
            std::string key(unquoted(raw.substr(0, sep)));
            key.push_back(kKeySeparator);
            key.append(unquoted(sep == std::string_view::npos ? std::string_view() : raw.substr(sep + 1)));
            const auto [it, inserted] = cpuThreadOf.try_emplace(std::move(key), t);
            if (!inserted && m_in.cpu[t].records > m_in.cpu[it->second].records)
                it->second = t;
        }
        std::vector<qint64> cpuOfAllocThread(m_in.allocThreads.size(), -1);
        for (quint32 t = 0; t < m_in.allocThreads.size(); ++t)
            if (const auto it = cpuThreadOf.find(m_in.allocThreads.text(t)); it != cpuThreadOf.end())
                cpuOfAllocThread[t] = it->second;
        for (const AC::AllocRecord &a : m_in.allocs)
            if (cpuOfAllocThread[a.thread] >= 0)
                allocsOf[size_t(cpuOfAllocThread[a.thread])].push_back(a);
        for (std::vector<AC::AllocRecord> &allocs : allocsOf)
            std::stable_sort(allocs.begin(), allocs.end(),
                             [](const AC::AllocRecord &a, const AC::AllocRecord &b) { return a.tsNs < b.tsNs; });
        return allocsOf;
    }

    void walkThread(AC::ThreadLog &log, const std::vector<AC::AllocRecord> &allocs)
    {
        m_stack.clear();
        m_endedAt.clear();
        m_endedAtNs = std::numeric_limits<qint64>::min();
        m_pushes = 0;
        m_idleCursor = 0;
        m_trackEnded = !allocs.empty();
        size_t nextAlloc = 0;
        auto next = [&](const AC::CpuRecord &r) {  // an allocation before the ranges that begin with it
            while (nextAlloc < allocs.size() && allocs[nextAlloc].tsNs < r.begin)
                visitAllocation(allocs[nextAlloc++]);
            visit(r);
        };
        std::stable_sort(log.late.begin(), log.late.end(), joinBefore);
        size_t nextLate = 0;
        forEachCpu(log, [&](const AC::CpuRecord &r) {
            while (nextLate < log.late.size() && joinBefore(log.late[nextLate], r))
                next(log.late[nextLate++]);
            next(r);
        });
        while (nextLate < log.late.size())
            next(log.late[nextLate++]);
        while (nextAlloc < allocs.size())
            visitAllocation(allocs[nextAlloc++]);
        log = {};
    }

    /// One range or call of the thread's walk, in the join's order.
    void visit(const AC::CpuRecord &r)
    {
        popEnded(r.begin);
        int top = -1, topOp = -1;
        if (findParents(r, top, topOp))
            ++m_result.rangesPlacedBeside;
        const int step = stepOf(r.begin);
        if (r.kind == AC::KindCall)
            addCall(r, top, topOp, step);
        else
            addRange(r, top, topOp, step);
    }

    /// Pops the ranges that ended by `beginNs`. Allocations need the ops that ended right at their
    /// timestamp too (an op's span includes its end, as docs/memory.md has it): kept aside.
    void popEnded(qint64 beginNs)
    {
        while (!m_stack.empty() && m_stack.back().end <= beginNs) {
            if (m_trackEnded && m_stack.back().end == beginNs && m_stack.back().kind == AC::KindOp) {
                if (m_endedAtNs != beginNs) {
                    m_endedAt.clear();
                    m_endedAtNs = beginNs;
                }
                m_endedAt.push_back(m_stack.back());
            }
            m_stack.pop_back();
        }
    }

    /// The parent is the innermost open range that holds the new one whole (`top`), and the
    /// innermost op among those (`topOp`); -1 for none. A range that began inside another and ends
    /// after it (beyond the rounding of µs timestamps) is its sibling: it is skipped here, and it
    /// may stay on the stack under the new one after it ended. A call is a point (its record holds
    /// the correlation, not an end). True when a range was placed beside such a partial overlap.
    bool findParents(const AC::CpuRecord &r, int &top, int &topOp) const
    {
        const bool isCall = r.kind == AC::KindCall;
        bool partial = false;
        for (int i = int(m_stack.size()) - 1; i >= 0; --i) {
            const Open &o = m_stack[size_t(i)];
            if (o.end <= r.begin)
                continue;
            if (!isCall && o.end < r.end - kNestingSlackNs) {
                partial = partial || top < 0;
                continue;
            }
            if (top < 0)
                top = i;
            if (o.kind == AC::KindOp) {
                topOp = i;
                break;
            }
        }
        return partial;
    }

    /// A runtime call: its correlation id gets the site (top frame, innermost op, step).
    void addCall(const AC::CpuRecord &r, int top, int topOp, int step)
    {
        quint32 *slot = siteSlot(r.end);
        if (!slot || *slot)
            return;  // a correlation met twice: the first call keeps it
        quint32 node = top >= 0 ? m_stack[size_t(top)].node : 0u;
        quint32 opNode = topOp >= 0 ? m_stack[size_t(topOp)].node : kNone;
        if (opNode == kNone) {
            // A launch outside every op (a graph replay, a kernel launched from plain python):
            // the runtime call is the row and the frame its GPU events hang under.
            node = child(node, AC::KindCall, r.key);
            opNode = node;
            forScopes(step, [&](ScopeData &s) { ++s.at(node).calls; });
        }
        bool inserted = false;
        quint32 &site = m_siteIds[size_t(step + 1)].at(pair64(node, opNode), &inserted);
        if (inserted) {
            m_sites.push_back({node, opNode, step});
            site = quint32(m_sites.size());
        }
        *slot = site;
    }

    /// A range: its node under the parent, its host time (self time less the op directly inside,
    /// GPU-idle self time) in its scopes, and onto the stack.
    void addRange(const AC::CpuRecord &r, int top, int topOp, int step)
    {
        const quint32 node = child(top >= 0 ? m_stack[size_t(top)].node : 0u, r.kind, r.key);
        const qint64 durNs = r.end - r.begin;
        bool recursive = false;
        if (r.kind == AC::KindOp)
            for (quint32 n = m_nodes[node].parent; n != kNone && n != 0; n = m_nodes[n].parent)
                if (m_nodes[n].kind == AC::KindOp && m_nodes[n].key == r.key) {
                    recursive = true;
                    break;
                }
        const qint64 idleNs =
            r.kind == AC::KindOp && !m_gpuBusy.empty() ? m_gpuBusy.idleIn(r.begin, r.end, m_idleCursor) : 0;
        forScopes(step, [&](ScopeData &s) {
            NodeAggregate &a = s.at(node);
            ++a.calls;
            a.hostNs += durNs;
            if (r.kind == AC::KindOp) {
                a.hostSelfNs += durNs;
                a.idleSelfNs += idleNs;
                if (!recursive)
                    a.hostTotalNs += durNs;
            }
        });
        if (r.kind == AC::KindOp && topOp >= 0) {
            const Open &parent = m_stack[size_t(topOp)];
            const qint64 insideEnd = std::min(r.end, parent.end);
            const qint64 insideNs = insideEnd - r.begin;
            const qint64 idleInsideNs = insideEnd == r.end ? idleNs
                                        : m_gpuBusy.empty() ? 0
                                                            : m_gpuBusy.idleIn(r.begin, insideEnd, m_idleCursor);
            forScopes(parent.step, [&](ScopeData &s) {
                NodeAggregate &p = s.at(parent.node);
                p.hostSelfNs -= insideNs;
                p.idleSelfNs -= idleInsideNs;
            });
        }
        m_stack.push_back({r.end, node, r.key, r.kind, step, m_pushes++});
    }

    /// An allocation goes to the innermost op around it on its thread (begin <= ts <= end, the
    /// latest begun).
    void visitAllocation(const AC::AllocRecord &a)
    {
        const Open *around = nullptr;
        for (size_t i = m_stack.size(); i-- > 0;)
            if (m_stack[i].kind == AC::KindOp && m_stack[i].end >= a.tsNs) {
                around = &m_stack[i];
                break;
            }
        if (m_endedAtNs == a.tsNs)
            for (const Open &o : m_endedAt)
                if (!around || o.seq > around->seq)
                    around = &o;
        if (!around)
            return;
        AllocStats &stats = m_allocStats[pair64(a.device, around->key)];
        if (a.bytes > 0) {
            ++stats.allocations;
            stats.allocatedBytes += a.bytes;
        } else {
            stats.freedBytes -= a.bytes;
        }
    }

    // The allocating ops per device, merged by op name (shapes apart), handed to the memory view.
    void handAllocatingOps()
    {
        if (m_allocStats.empty())
            return;
        std::map<std::pair<int, int>, std::map<std::string_view, MemoryOp>> perDevice;
        for (const auto &[k, stats] : m_allocStats) {
            const std::string &device = m_in.names.text(quint32(k >> 32));  // "\x1e<id>,<type>"
            int id = -1, type = -1;
            const char *const end = device.data() + device.size();
            const auto parsed = std::from_chars(device.data() + 1, end, id);
            if (parsed.ptr < end && *parsed.ptr == ',')
                std::from_chars(parsed.ptr + 1, end, type);
            MemoryOp &op = perDevice[{id, type}][opName(quint32(k))];
            op.allocations += stats.allocations;
            op.allocatedBytes += stats.allocatedBytes;
            op.freedBytes += stats.freedBytes;
        }
        for (DeviceMemory &d : m_out.memory.devices) {
            const auto it = perDevice.find({d.deviceId, d.deviceType});
            if (it == perDevice.end())
                continue;
            std::vector<MemoryOp> ops;
            for (auto &[name, op] : it->second) {
                op.name = qtext(name);
                ops.push_back(std::move(op));
            }
            setAllocatingOps(d, std::move(ops));
        }
    }

    // GPU events → calls: each event follows its correlation id to its call's site.
    void attributeGpuEvents()
    {
        std::vector<AttributionScope> &stepScopes = m_result.steps;
        stepScopes.resize(m_in.steps.size());
        for (size_t i = 0; i < m_in.steps.size(); ++i)
            stepScopes[i].label = qtext(m_in.names.text(m_in.steps[i].name));
        AttributionScope &whole = m_result.wholeTrace;
        whole.label = QStringLiteral("whole trace");
        forEachGpu(m_in.gpu, [&](const AC::GpuRecord &g) {
            whole.gpuTimeNs += g.durationNs;
            const quint32 site = g.correlation >= 0 ? findSite(g.correlation) : 0;
            if (!site) {
                const UnattributedReason why =
                    g.inGraph ? UnattributedReason::GraphReplayWithoutCorrelation : UnattributedReason::NoRuntimeEvent;
                whole.unattributedNs[int(why)] += g.durationNs;
                return;
            }
            const CallInfo &call = m_sites[site - 1];
            if (call.step >= 0)
                scopeOut(size_t(call.step) + 1).gpuTimeNs += g.durationNs;
            if (m_nodes[call.opNode].kind == AC::KindCall) {
                whole.outsideOpsNs += g.durationNs;
                if (call.step >= 0)
                    scopeOut(size_t(call.step) + 1).outsideOpsNs += g.durationNs;
            }
            const quint32 opKey = m_nodes[call.opNode].key;
            forScopes(call.step, [&](ScopeData &s) {
                NodeAggregate &op = s.at(call.opNode);
                op.opDeviceNs += g.durationNs;
                ++op.opEvents;
                s.at(call.node).launchedNs += g.durationNs;
                s.leafNs.at(pair64(call.node, g.name)) += g.durationNs;
                ScopeData::KernelOp &link = s.kernelOps.at(pair64(g.name, opKey));
                ++link.events;
                link.ns += g.durationNs;
            });
            whole.attributedNs += g.durationNs;
            if (call.step >= 0)
                scopeOut(size_t(call.step) + 1).attributedNs += g.durationNs;
        });
        m_in.gpu = {};
        m_denseSites = {};
        m_sparseSites = {};
    }

    /// An op key holds name, dtypes and shapes; a row is one name and shapes. Each key's row key:
    /// the first key of its name and shapes (once per distinct key, not per event).
    void planRowKeys()
    {
        m_rowKeyOf.assign(m_in.names.size(), kNone);
        std::unordered_map<std::string, quint32> firstKeyOf;  // name SEP shapes -> key
        std::string nameAndShapes;
        for (quint32 n = 1; n < m_nodes.size(); ++n) {
            const quint32 key = m_nodes[n].key;
            if (m_nodes[n].kind != AC::KindOp || m_rowKeyOf[key] != kNone)
                continue;
            const std::string &k = m_in.names.text(key);
            const size_t first = k.find(kKeySeparator);
            const size_t second = first == std::string::npos ? first : k.find(kKeySeparator, first + 1);
            if (second == std::string::npos) {
                m_rowKeyOf[key] = key;
                continue;
            }
            nameAndShapes.assign(k, 0, first + 1);
            nameAndShapes.append(k, second + 1);
            m_rowKeyOf[key] = firstKeyOf.try_emplace(nameAndShapes, key).first->second;
        }
    }
    quint32 rowKey(quint32 key) const
    {
        return key < m_rowKeyOf.size() && m_rowKeyOf[key] != kNone ? m_rowKeyOf[key] : key;
    }


    // Each scope's rows, launch tree, module tree and kernel links from its node aggregates.
    void buildScope(size_t si)
    {
        ScopeData &s = m_scopes[si];
        AttributionScope &outScope = scopeOut(si);
        s.nodes.resize(m_nodes.size());
        opRows(s, outScope.ops);
        const std::vector<char> used = usedNodes(s);
        launchTree(s, used, outScope.launches);
        outScope.modules = moduleTree(s, used);
        kernelLinks(s, outScope.kernelOps);
        if (si == 0)
            kernelRowLinks(s, outScope.kernelOpRows);
        s = {};
    }

    /// Operator rows: each op key (and each runtime call outside ops that launched something).
    void opRows(const ScopeData &s, std::vector<OpStats> &ops)
    {
        std::unordered_map<quint64, size_t> rowOf;  // (is a runtime call, key) -> row
        std::vector<std::vector<quint32>> keysOfRow;  // the keys (dtype variants) a row holds
        auto row = [&](quint32 key, bool runtimeCall = false) -> OpStats & {
            const quint32 canonical = runtimeCall ? key : rowKey(key);
            const auto [it, inserted] = rowOf.try_emplace(pair64(runtimeCall, canonical), ops.size());
            if (inserted) {
                OpStats r;
                const std::string &k = m_in.names.text(key);
                const size_t sep = runtimeCall ? std::string::npos : k.find(kKeySeparator);
                r.name = qtext(std::string_view(k).substr(0, sep));
                if (sep != std::string::npos) {
                    const size_t second = k.find(kKeySeparator, sep + 1);
                    r.inputShapes = qtext(std::string_view(k).substr(second + 1));
                }
                r.runtimeCall = runtimeCall;
                ops.push_back(std::move(r));
                keysOfRow.emplace_back();
            }
            // Each dtype variant of the row once, in the order met ("Input type" as written).
            std::vector<quint32> &keys = keysOfRow[it->second];
            if (!runtimeCall && std::find(keys.begin(), keys.end(), key) == keys.end()) {
                keys.push_back(key);
                const std::string &k = m_in.names.text(key);
                const size_t sep = k.find(kKeySeparator);
                const size_t second = sep == std::string::npos ? sep : k.find(kKeySeparator, sep + 1);
                if (second != std::string::npos && second > sep + 1) {
                    // The dtypes part: "Input type", then for a few ops kConcreteSeparator and
                    // "Concrete Inputs".
                    const std::string_view part = std::string_view(k).substr(sep + 1, second - sep - 1);
                    const size_t concrete = part.find(kConcreteSeparator);
                    if (concrete != 0) {
                        const QString types = qtext(part.substr(0, concrete));
                        QStringList &list = ops[it->second].inputTypes;
                        if (!list.contains(types))
                            list.append(types);
                    }
                    if (concrete != std::string_view::npos) {
                        const QString values = qtext(part.substr(concrete + 1));
                        QStringList &list = ops[it->second].concreteInputs;
                        if (!list.contains(values))
                            list.append(values);
                    }
                }
            }
            return ops[it->second];
        };
        std::vector<quint32> seenKeys;
        for (quint32 n = 1; n < m_nodes.size(); ++n) {
            const NodeAggregate &a = s.nodes[n];
            const bool runtimeCall = m_nodes[n].kind == AC::KindCall;
            if ((m_nodes[n].kind != AC::KindOp && !runtimeCall) || (a.calls == 0 && a.opEvents == 0) ||
                (runtimeCall && a.opEvents == 0))  // a call outside ops that launched nothing: no row
                continue;
            OpStats &r = row(m_nodes[n].key, runtimeCall);
            if (runtimeCall) {  // outside every op: no op above it, host time not recorded
                r.calls += a.calls;
                r.deviceSelfNs += a.opDeviceNs;
                r.deviceTotalNs += a.opDeviceNs;
                r.kernels += a.opEvents;
                continue;
            }
            r.calls += a.calls;
            r.hostSelfNs += a.hostSelfNs;
            r.hostTotalNs += a.hostTotalNs;
            r.hostSelfGpuIdleNs += a.idleSelfNs;
            r.deviceSelfNs += a.opDeviceNs;
            r.kernels += a.opEvents;
            if (a.opDeviceNs == 0)
                continue;
            // Device total: this op's GPU time counts once for each distinct op key on its stack.
            seenKeys.clear();
            for (quint32 m = n; m != kNone && m != 0; m = m_nodes[m].parent) {
                if (m_nodes[m].kind != AC::KindOp ||
                    std::find(seenKeys.begin(), seenKeys.end(), rowKey(m_nodes[m].key)) != seenKeys.end())
                    continue;
                seenKeys.push_back(rowKey(m_nodes[m].key));
                row(m_nodes[m].key).deviceTotalNs += a.opDeviceNs;
            }
        }
        std::sort(ops.begin(), ops.end(), [](const OpStats &a, const OpStats &b) {
            if (a.deviceSelfNs != b.deviceSelfNs)
                return a.deviceSelfNs > b.deviceSelfNs;
            if (a.hostTotalNs != b.hostTotalNs)
                return a.hostTotalNs > b.hostTotalNs;
            if (a.name != b.name)
                return a.name < b.name;
            return a.inputShapes.value_or(QString()) < b.inputShapes.value_or(QString());
        });
    }

    /// Which nodes the scope touched (and their ancestors).
    std::vector<char> usedNodes(const ScopeData &s) const
    {
        std::vector<char> used(m_nodes.size(), 0);
        for (quint32 n = 1; n < m_nodes.size(); ++n) {
            const NodeAggregate &a = s.nodes[n];
            if ((a.calls == 0 && a.launchedNs == 0 && a.opEvents == 0) ||
                (m_nodes[n].kind == AC::KindCall && a.opEvents == 0))
                continue;
            for (quint32 m = n; m != kNone && !used[m]; m = m_nodes[m].parent)
                used[m] = 1;
        }
        used[0] = 1;
        return used;
    }

    /// A node's name as a frame shows it: an op without its shapes, a module without "nn.Module: ".
    QString frameName(quint32 n) const
    {
        const std::string &k = m_in.names.text(m_nodes[n].key);
        if (m_nodes[n].kind == AC::KindOp)
            return qtext(opName(m_nodes[n].key));
        if (m_nodes[n].kind == AC::KindModule)
            return qtext(std::string_view(k).substr(11));  // after "nn.Module: "
        return qtext(k);
    }

    /// Launch tree: stack nodes merged by displayed name (ops without their shapes).
    void launchTree(const ScopeData &s, const std::vector<char> &used, LaunchTree &tree) const
    {
        tree.nodes.push_back({QString(), FrameKind::Root, -1, {}, 0, 0});
        std::vector<int> shown(m_nodes.size(), -1);
        shown[0] = 0;
        std::unordered_map<QString, int> displayChild;  // "parent|kind|name" -> node
        auto displayNode = [&](int parent, FrameKind kind, const QString &name) {
            const QString k = QString::number(parent) + QLatin1Char('|') + QString::number(int(kind)) +
                              QLatin1Char('|') + name;
            const auto [it, inserted] = displayChild.try_emplace(k, int(tree.nodes.size()));
            if (inserted) {
                tree.nodes.push_back({name, kind, parent, {}, 0, 0});
                tree.nodes[size_t(parent)].children.push_back(it->second);
            }
            return it->second;
        };
        for (quint32 n = 1; n < m_nodes.size(); ++n) {
            if (!used[n])
                continue;
            const int d = displayNode(shown[m_nodes[n].parent], frameKind(m_nodes[n].kind), frameName(n));
            shown[n] = d;
            tree.nodes[size_t(d)].hostNs += s.nodes[n].hostNs;  // its GPU time comes from its GPU-event leaves
        }
        s.leafNs.forEach([&](quint64 k, qint64 ns) {
            const int d =
                displayNode(shown[quint32(k >> 32)], FrameKind::GpuEvent, qtext(m_in.names.text(quint32(k))));
            tree.nodes[size_t(d)].gpuNs += ns;
        });
        for (int d = int(tree.nodes.size()) - 1; d > 0; --d)  // children come after their parent
            tree.nodes[size_t(tree.nodes[size_t(d)].parent)].gpuNs += tree.nodes[size_t(d)].gpuNs;
        for (LaunchNode &node : tree.nodes)
            std::sort(node.children.begin(), node.children.end(),
                      [&](int a, int b) { return tree.nodes[size_t(a)].gpuNs > tree.nodes[size_t(b)].gpuNs; });
        tree.nodes[0].hostNs = 0;
        for (const int c : tree.nodes[0].children)
            tree.nodes[0].hostNs += tree.nodes[size_t(c)].hostNs;
    }

    /// Module / annotation tree: the stack nodes reduced to their module and annotation frames.
    ModuleNode moduleTree(const ScopeData &s, const std::vector<char> &used) const
    {
        struct Flat {
            QString name;
            FrameKind kind;
            int parent;
            qint64 hostNs = 0, deviceNs = 0, calls = 0;
            std::vector<int> children;
        };
        std::vector<Flat> flat{{QString(), FrameKind::Root, -1, 0, 0, 0, {}}};
        std::unordered_map<QString, int> flatChild;
        std::vector<int> moduleOf(m_nodes.size(), 0);
        for (quint32 n = 1; n < m_nodes.size(); ++n) {
            if (!used[n])
                continue;
            const int parent = moduleOf[m_nodes[n].parent];
            if (m_nodes[n].kind != AC::KindModule && m_nodes[n].kind != AC::KindAnnotation) {
                moduleOf[n] = parent;
                flat[size_t(parent)].deviceNs += s.nodes[n].launchedNs;
                continue;
            }
            const QString name = frameName(n);
            const QString k = QString::number(parent) + QLatin1Char('|') + QString::number(int(m_nodes[n].kind)) +
                              QLatin1Char('|') + name;
            const auto [it, inserted] = flatChild.try_emplace(k, int(flat.size()));
            if (inserted) {
                flat.push_back({name, frameKind(m_nodes[n].kind), parent, 0, 0, 0, {}});
                flat[size_t(parent)].children.push_back(it->second);
            }
            moduleOf[n] = it->second;
            Flat &f = flat[size_t(it->second)];
            f.hostNs += s.nodes[n].hostNs;
            f.calls += s.nodes[n].calls;
            f.deviceNs += s.nodes[n].launchedNs;
        }
        for (int d = int(flat.size()) - 1; d > 0; --d)
            flat[size_t(flat[size_t(d)].parent)].deviceNs += flat[size_t(d)].deviceNs;
        auto build = [&](auto &&self, int i) -> ModuleNode {
            ModuleNode m;
            m.name = flat[size_t(i)].name;
            m.kind = flat[size_t(i)].kind;
            m.hostNs = flat[size_t(i)].hostNs;
            m.deviceNs = flat[size_t(i)].deviceNs;
            m.calls = flat[size_t(i)].calls;
            for (const int c : flat[size_t(i)].children)
                m.children.push_back(self(self, c));
            std::sort(m.children.begin(), m.children.end(), [](const ModuleNode &a, const ModuleNode &b) {
                return a.deviceNs != b.deviceNs ? a.deviceNs > b.deviceNs : a.hostNs > b.hostNs;
            });
            return m;
        };
        return build(build, 0);
    }

    /// Kernel ↔ op links, by op name (the rows of one name with several shapes merged).
    void kernelLinks(const ScopeData &s, std::vector<KernelOpLink> &out) const
    {
        std::map<std::pair<quint32, std::string_view>, ScopeData::KernelOp> links;
        s.kernelOps.forEach([&](quint64 k, const ScopeData::KernelOp &link) {
            ScopeData::KernelOp &l = links[{quint32(k >> 32), opName(quint32(k))}];
            l.events += link.events;
            l.ns += link.ns;
        });
        for (const auto &[k, link] : links)
            out.push_back({qtext(m_in.names.text(k.first)), qtext(k.second), link.events, link.ns});
        std::sort(out.begin(), out.end(), [](const KernelOpLink &a, const KernelOpLink &b) {
            if (a.deviceNs != b.deviceNs)
                return a.deviceNs > b.deviceNs;
            return a.kernelName != b.kernelName ? a.kernelName < b.kernelName : a.opName < b.opName;
        });
    }

    /// Kernel ↔ op row links (name and shapes, the dtype variants of a row merged): a kernel's
    /// FLOPs from the shapes of the ops that launched it.
    void kernelRowLinks(const ScopeData &s, std::vector<KernelOpRowLink> &out) const
    {
        std::map<std::pair<quint32, quint32>, ScopeData::KernelOp> links;  // (kernel, row key) -> …
        s.kernelOps.forEach([&](quint64 k, const ScopeData::KernelOp &link) {
            ScopeData::KernelOp &l = links[{quint32(k >> 32), rowKey(quint32(k))}];
            l.events += link.events;
            l.ns += link.ns;
        });
        for (const auto &[k, link] : links) {
            KernelOpRowLink row;
            row.kernelName = qtext(m_in.names.text(k.first));
            const std::string &key = m_in.names.text(k.second);
            const size_t sep = key.find(kKeySeparator);
            row.opName = qtext(std::string_view(key).substr(0, sep));
            const size_t second = sep == std::string::npos ? sep : key.find(kKeySeparator, sep + 1);
            if (second != std::string::npos)
                row.inputShapes = qtext(std::string_view(key).substr(second + 1));
            row.events = link.events;
            row.deviceNs = link.ns;
            out.push_back(std::move(row));
        }
    }

    Records m_in;
    const size_t m_page;
    TorchTrace &m_out;
    TraceAttribution &m_result;
    const GpuBusyUnion m_gpuBusy;
    std::vector<ScopeData> m_scopes;  // 0: the whole trace, then one per step
    std::vector<quint32> m_rowKeyOf;  // planRowKeys(): each op key's row key
    std::vector<PathNode> m_nodes{{kNone, kNone, AC::KindCall}};  // the root
    IdMap<quint32> m_childOf;
    std::vector<CallInfo> m_sites;
    std::vector<IdMap<quint32>> m_siteIds;  // per scope: (node, op node) -> site + 1
    IdMap<quint32> m_densePage;             // page -> its place in m_denseSites + 1
    std::vector<quint32> m_denseSites;
    IdMap<quint32> m_sparseSites;
    std::unordered_map<quint64, AllocStats> m_allocStats;  // (device, op key) -> …
    // The walk of one thread.
    std::vector<Open> m_stack;
    quint32 m_pushes = 0;
    bool m_trackEnded = false;
    std::vector<Open> m_endedAt;
    qint64 m_endedAtNs = std::numeric_limits<qint64>::min();
    size_t m_idleCursor = 0;
};

} // namespace

void AttributionConsumer::finish(const kineto::KinetoDocument &document, TorchTrace &out)
{
    TraceAttribution &result = out.attribution;
    result = {};
    if (m_gpuEvents == 0 && m_ops == 0)
        return;
    // Runtime calls alone are enough: a launch outside every op is a row of its own.
    result.available = m_calls > 0;
    result.linkMethod = QStringLiteral("time containment of the runtime call on its thread");
    result.shapesRecorded = m_shapes;
    AttributionJoin({m_names, m_threads, m_allocThreads, m_cpu, m_gpu, m_correlationPages, kCorrelationPageBits,
                     m_steps, m_allocs},
                    out)
        .run();
    if (result.rangesPlacedBeside > 0)
        out.diagnostics.push_back(
            {Severity::Info, document.name, 0,
             QStringLiteral("%1 CPU range(s) overlapped their parent partly (began inside it, ended after it) and "
                            "were placed beside it, not inside, in the operators, modules and flame graph")
                 .arg(result.rangesPlacedBeside)});
}

} // namespace goblin::workbench
