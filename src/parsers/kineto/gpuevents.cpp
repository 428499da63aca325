#include "gpuevents.h"

#include "batch.h"

#include "kernels/namepool.h"
#include "syntax/jsonscanner.h"
#include "syntax/jsontoken.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace goblin::kineto {

std::optional<GpuEventKind> gpuEventKind(std::string_view category)
{
    // Called for every event: most categories (cpu_op, cuda_runtime…) fail on the first byte.
    if (category.empty())
        return std::nullopt;
    const char first = category[0];
    if (first != 'k' && first != 'K' && first != 'M' && first != 'g')
        return std::nullopt;
    switch (category.size()) {
    case 6:
        if (category == "kernel" || category == "Kernel")
            return GpuEventKind::Kernel;
        if (category == "Memcpy")
            return GpuEventKind::Memcpy;
        if (category == "Memset")
            return GpuEventKind::Memset;
        break;
    case 10:
        if (category == "gpu_memcpy")
            return GpuEventKind::Memcpy;
        if (category == "gpu_memset")
            return GpuEventKind::Memset;
        break;
    default:
        break;
    }
    return std::nullopt;
}

namespace {

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/// Skips a string whose opening quote is at p[-1]; returns the position after its closing quote
/// (or `end`). `sawEscape` is set when the body holds a backslash.
const char *skipString(const char *p, const char *end, bool *sawEscape)
{
    while (p < end) {
        if (*p == '\\') {
            if (sawEscape)
                *sawEscape = true;
            p += 2;
            continue;
        }
        if (*p == '"')
            return p + 1;
        ++p;
    }
    return end;
}

/// An integer token: "-?[0-9]+" exactly (a fraction or exponent is not a device number).
std::optional<qint64> integerToken(std::string_view t)
{
    qint64 value = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), value);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size() || t.empty())
        return std::nullopt;
    return value;
}

} // namespace

std::optional<qint64> argInteger(std::string_view token)
{
    if (token.size() >= 2 && token.front() == '"' && token.back() == '"') {
        const std::string_view body = token.substr(1, token.size() - 2);
        if (body.find('\\') != std::string_view::npos)
            return integerToken(JsonScanner::unescape(body));
        return integerToken(body);
    }
    return integerToken(token);
}

DeviceStream deviceStreamOf(const EventFields &fields)
{
    DeviceStream where;
    if (fields.argsScanned) {  // located by the scanner: no search of the args
        if (fields.argHave & (1u << kArgDevice))
            where.device = argInteger(fields.argToken[kArgDevice]);
        if (fields.argHave & (1u << kArgStream))
            where.stream = argInteger(fields.argToken[kArgStream]);
    } else if (fields.have & (1u << kArgsKey)) {
        where = readDeviceStream(syntax::trimJson(fields.token[kArgsKey]));
    }
    return where;
}

DeviceStream readDeviceStream(std::string_view args)
{
    DeviceStream out;
    const char *p = args.data();
    const char *const end = p + args.size();
    if (p == end || *p != '{')
        return out;
    ++p;
    int depth = 1;  // of the position p is at
    int want = -1;  // 0 device, 1 stream: the value that follows is that member's
    bool seen[2] = {false, false};  // the first occurrence of each counts (see the header)
    bool expectKey = true;
    while (p < end && depth > 0) {
        const char c = *p;
        if (isSpace(c) || c == ':') {
            ++p;
            continue;
        }
        if (c == ',') {
            expectKey = depth == 1;
            ++p;
            continue;
        }
        if (c == '"') {
            const char *body = p + 1;
            bool escaped = false;
            p = skipString(body, end, &escaped);
            const std::string_view text(body, size_t(std::max<std::ptrdiff_t>(0, p - 1 - body)));
            if (depth == 1 && expectKey) {
                if (escaped) {
                    const std::string key = JsonScanner::unescape(text);
                    want = key == "device" ? 0 : key == "stream" ? 1 : -1;
                } else {
                    want = text == "device" ? 0 : text == "stream" ? 1 : -1;
                }
                if (want >= 0 && seen[want])
                    want = -1;  // a repeated member: its later value is not read
                else if (want >= 0)
                    seen[want] = true;
                expectKey = false;
            } else if (depth == 1 && want >= 0) {
                // Some writers quote the number ("device": "0").
                const std::string value = escaped ? JsonScanner::unescape(text) : std::string(text);
                (want == 0 ? out.device : out.stream) = integerToken(value);
                want = -1;
                if (out.device && out.stream)
                    break;  // see the header: the first occurrences count
            }
            continue;
        }
        if (c == '{' || c == '[') {
            ++depth;
            want = -1;
            expectKey = c == '{';
            ++p;
            continue;
        }
        if (c == '}' || c == ']') {
            --depth;
            ++p;
            continue;
        }
        // A number or a literal.
        const char *start = p;
        while (p < end && !isSpace(*p) && *p != ',' && *p != '}' && *p != ']')
            ++p;
        if (depth == 1 && want >= 0) {
            (want == 0 ? out.device : out.stream) = integerToken(std::string_view(start, size_t(p - start)));
            if (out.device && out.stream)
                break;
        }
        want = -1;
    }
    return out;
}

quint8 repeatedArgKeys(std::string_view args)
{
    const char *p = args.data();
    const char *const end = p + args.size();
    if (p == end || *p != '{')
        return 0;
    ++p;
    int depth = 1;
    bool expectKey = true;
    quint8 seen = 0, repeated = 0;
    while (p < end && depth > 0) {
        const char c = *p;
        if (c == '"') {
            const char *body = p + 1;
            bool escaped = false;
            p = skipString(body, end, &escaped);
            if (depth == 1 && expectKey) {
                const std::string_view text(body, size_t(std::max<std::ptrdiff_t>(0, p - 1 - body)));
                const std::string unescaped = escaped ? JsonScanner::unescape(text) : std::string();
                const std::string_view key = escaped ? std::string_view(unescaped) : text;
                for (int k = 0; k < kArgKeyCount; ++k)
                    if (key == kArgKeys[k]) {
                        repeated |= quint8(seen & (1u << k));
                        seen |= quint8(1u << k);
                        break;
                    }
                expectKey = false;
            }
            continue;
        }
        if (c == ',')
            expectKey = depth == 1;
        else if (c == '{' || c == '[')
            ++depth;
        else if (c == '}' || c == ']')
            --depth;
        ++p;
    }
    return repeated;
}

std::optional<int> rankFromDistributedInfo(std::string_view json)
{
    // The object is small and flat where it matters: find "rank" at depth 1 the way
    // readDeviceStream() finds "device".
    const char *p = json.data();
    const char *const end = p + json.size();
    while (p < end && isSpace(*p))
        ++p;
    if (p == end || *p != '{')
        return std::nullopt;
    ++p;
    int depth = 1;
    bool expectKey = true, isRank = false;
    std::optional<int> rank;
    while (p < end && depth > 0) {
        const char c = *p;
        if (isSpace(c) || c == ':') {
            ++p;
        } else if (c == ',') {
            expectKey = depth == 1;
            ++p;
        } else if (c == '"') {
            const char *body = p + 1;
            bool escaped = false;
            p = skipString(body, end, &escaped);
            const std::string_view text(body, size_t(std::max<std::ptrdiff_t>(0, p - 1 - body)));
            if (depth == 1 && expectKey) {
                isRank = (escaped ? JsonScanner::unescape(text) : std::string(text)) == "rank";
                expectKey = false;
            } else {
                isRank = false;
            }
        } else if (c == '{' || c == '[') {
            ++depth;
            isRank = false;
            expectKey = c == '{';
            ++p;
        } else if (c == '}' || c == ']') {
            --depth;
            ++p;
        } else {
            const char *start = p;
            while (p < end && !isSpace(*p) && *p != ',' && *p != '}' && *p != ']')
                ++p;
            if (depth == 1 && isRank) {
                const auto v = integerToken(std::string_view(start, size_t(p - start)));
                if (v && *v >= 0 && *v <= std::numeric_limits<int>::max())
                    rank = int(*v);
            }
            isRank = false;
        }
    }
    return rank;
}

// ------------------------------------------------------------------------------------------------

std::uint32_t GpuEventCollector::intern(std::string_view name)
{
    // A name past kMaxNameBytes (a damaged or crafted trace) is kept as cutName() makes it, as the
    // database and CSV readers keep theirs: nothing after this (classification, display) runs over
    // megabytes of one name.
    std::string cut;
    if (name.size() > kernels::kMaxNameBytes) [[unlikely]] {
        cut = kernels::cutName(name);
        name = cut;
    }
    const auto it = m_nameIds.find(name);
    if (it != m_nameIds.end())
        return it->second;
    const auto id = std::uint32_t(m_names.size());
    m_names.emplace_back(name);
    m_nameIds.emplace(m_names.back(), id);
    return id;
}

GpuEventCollector::Device &GpuEventCollector::device(qint64 number)
{
    if (m_lastDevice < m_devices.size() && m_devices[m_lastDevice].device == number)
        return m_devices[m_lastDevice];
    for (size_t i = 0; i < m_devices.size(); ++i)
        if (m_devices[i].device == number) {
            m_lastDevice = i;
            return m_devices[i];
        }
    m_lastDevice = m_devices.size();
    Device &d = m_devices.emplace_back();
    d.device = number;
    return d;
}

/// a == b, inline: pids are a few bytes, shorter than a memcmp call (once per CPU operator).
inline bool samePid(const std::string &a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < b.size(); ++i)
        if (a[i] != b[i])
            return false;
    return true;
}

GpuEventCollector::Process &GpuEventCollector::process(std::string_view pid)
{
    if (m_lastProcess < m_processes.size() && samePid(m_processes[m_lastProcess].pid, pid))
        return m_processes[m_lastProcess];
    for (size_t i = 0; i < m_processes.size(); ++i)
        if (samePid(m_processes[i].pid, pid)) {
            m_lastProcess = i;
            return m_processes[i];
        }
    m_lastProcess = m_processes.size();
    Process &p = m_processes.emplace_back();
    p.pid.assign(pid);
    return p;
}

constexpr std::uint16_t kNoStream = 0xFFFF;  // more streams than GpuEvent::stream can index

std::uint16_t GpuEventCollector::streamIndex(Device &d, qint64 stream)
{
    if (d.lastStream < d.streams.size() && d.streams[d.lastStream] == stream)
        return std::uint16_t(d.lastStream);
    for (size_t i = 0; i < d.streams.size(); ++i)
        if (d.streams[i] == stream) {
            d.lastStream = i;
            return std::uint16_t(i);
        }
    if (d.streams.size() >= kNoStream)
        return kNoStream;
    d.lastStream = d.streams.size();
    d.streams.push_back(stream);
    return std::uint16_t(d.lastStream);
}

void GpuEventCollector::addDeviceEvent(GpuEventKind kind, std::string_view name, qint64 deviceNumber, qint64 stream,
                                       qint64 beginNs, qint64 endNs)
{
    Device &d = device(deviceNumber);
    const std::uint16_t s = streamIndex(d, stream);
    if (s == kNoStream) {
        countUnplaced(0);
        return;
    }
    d.events.push_back({beginNs, endNs, intern(name), s, kind});
}

void GpuEventCollector::addStep(std::string_view name, qint64 beginNs, qint64 endNs, bool gpuLane)
{
    m_steps.push_back({QString::fromUtf8(name.data(), qsizetype(name.size())), beginNs, endNs, gpuLane});
}

void GpuEventCollector::addCpuOp(std::string_view pid, qint64 beginNs, qint64 endNs)
{
    Process &p = process(pid);
    ++p.opCount;
    // Operators arrive mostly in start order with their children nested inside: fold those into
    // the last interval (as the workbench's host-busy union does), merge the rest at the end.
    if (!p.ops.empty()) {
        TimeInterval &last = p.ops.back();
        if (beginNs >= last.startNs && beginNs <= last.endNs) {
            last.endNs = std::max(last.endNs, endNs);
            return;
        }
    }
    p.ops.push_back({beginNs, endNs});
}

void GpuEventCollector::addDataLoading(std::string_view pid, qint64 beginNs, qint64 endNs)
{
    process(pid).dataLoading.push_back({beginNs, endNs});
}

void GpuEventCollector::markStepProcess(std::string_view pid)
{
    process(pid).hasCpuStep = true;
}

void GpuEventCollector::mergeIntervals(std::vector<TimeInterval> &v)
{
    std::sort(v.begin(), v.end(), [](const TimeInterval &a, const TimeInterval &b) { return a.startNs < b.startNs; });
    size_t out = 0;
    for (const TimeInterval &i : v) {
        if (i.endNs <= i.startNs)
            continue;
        if (out > 0 && i.startNs <= v[out - 1].endNs)
            v[out - 1].endNs = std::max(v[out - 1].endNs, i.endNs);
        else
            v[out++] = i;
    }
    v.resize(out);
}

void GpuEventCollector::compact()
{
    for (Process &p : m_processes) {
        mergeIntervals(p.ops);
        mergeIntervals(p.dataLoading);
    }
}

qint64 GpuEventCollector::deviceEvents() const
{
    qint64 n = 0;
    for (const Device &d : m_devices)
        n += qint64(d.events.size());
    return n;
}

void GpuEventCollector::absorb(GpuEventCollector &&later)
{
    std::vector<std::uint32_t> nameMap(later.m_names.size());
    for (size_t i = 0; i < later.m_names.size(); ++i)
        nameMap[i] = intern(later.m_names[i]);
    for (Device &from : later.m_devices) {
        Device &to = device(from.device);
        std::vector<std::uint16_t> streamMap(from.streams.size());
        for (size_t i = 0; i < from.streams.size(); ++i)
            streamMap[i] = streamIndex(to, from.streams[i]);
        const size_t needed = to.events.size() + from.events.size();
        if (to.events.capacity() < needed)  // geometric: an exact reserve would copy all events per range
            to.events.reserve(std::max(needed, 2 * to.events.capacity()));
        for (const GpuEvent &e : from.events) {
            const std::uint16_t s = streamMap[e.stream];
            if (s == kNoStream) {
                countUnplaced(0);
                continue;
            }
            to.events.push_back({e.startNs, e.endNs, nameMap[e.nameId], s, e.kind});
        }
        from.events = {};  // copied: freed now, not when the range's reader goes
    }
    for (Process &from : later.m_processes) {
        Process &to = process(from.pid);
        to.ops.insert(to.ops.end(), from.ops.begin(), from.ops.end());
        to.dataLoading.insert(to.dataLoading.end(), from.dataLoading.begin(), from.dataLoading.end());
        to.opCount += from.opCount;
        to.hasCpuStep = to.hasCpuStep || from.hasCpuStep;
    }
    m_steps.insert(m_steps.end(), std::make_move_iterator(later.m_steps.begin()),
                   std::make_move_iterator(later.m_steps.end()));
    if (m_unplaced == 0)
        m_firstUnplacedLine = later.m_firstUnplacedLine;  // (a byte range with any is read again by the main reader)
    m_unplaced += later.m_unplaced;
    later = GpuEventCollector{};
}

GpuTimelineFile GpuEventCollector::finish(const QString &source, const QString &file, std::optional<int> rank)
{
    GpuTimelineFile out;
    out.source = source;
    out.file = file;
    out.rank = rank;

    // hostBusy is of one process: the training process is the one whose CPU lane holds the
    // ProfilerStep marks (torch.profiler's schedule runs in it); without marks, the process with
    // the most operator time (dataloader workers and other tools' processes do little).
    compact();
    Process *main = nullptr;
    qint64 mainTime = -1;
    for (Process &p : m_processes) {
        if (p.opCount == 0)
            continue;
        qint64 time = 0;
        for (const TimeInterval &i : p.ops)
            time += i.endNs - i.startNs;
        const bool better = !main || (p.hasCpuStep && !main->hasCpuStep) ||
                            (p.hasCpuStep == main->hasCpuStep && time > mainTime);
        if (better) {
            main = &p;
            mainTime = time;
        }
    }
    qint64 pid = -1;
    if (!main)  // no CPU operator at all: data-loading ranges alone still say which process loads
        for (Process &p : m_processes)
            if (!p.dataLoading.empty() && (!main || p.hasCpuStep))
                main = &p;
    if (main) {
        out.hostBusy = std::move(main->ops);
        out.dataLoading = std::move(main->dataLoading);
        if (const auto n = integerToken(main->pid))
            pid = *n;
    }

    std::sort(m_devices.begin(), m_devices.end(), [](const Device &a, const Device &b) { return a.device < b.device; });
    out.devices.reserve(m_devices.size());
    for (Device &d : m_devices) {
        GpuDeviceTimeline t;
        t.source = source;
        t.file = file;
        t.rank = rank;
        t.device = d.device;
        t.pid = pid;
        t.streams = std::move(d.streams);
        t.events = std::move(d.events);
        out.devices.push_back(std::move(t));
    }
    std::stable_sort(m_steps.begin(), m_steps.end(),
                     [](const StepWindow &a, const StepWindow &b) { return a.startNs < b.startNs; });
    out.steps = std::move(m_steps);
    out.names = std::move(m_names);
    *this = GpuEventCollector{};
    return out;
}

} // namespace goblin::kineto
