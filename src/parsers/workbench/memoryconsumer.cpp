// The allocator's [memory] events of a Kineto trace (tracememory.h). This runs on every event of
// multi-GB traces: an event is rejected on the first byte of its "ph" (and of its category or
// name), nothing is allocated for it, and only `[memory]` events, ProfilerStep#N ranges and CPU
// ops (the first kMaxOps of them) are kept.
#include "workbench/memoryconsumer.h"

#include "syntax/jsonskip.h"
#include "syntax/shallowmembers.h"
#include "syntax/jsontoken.h"
#include "torchtraceparser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

namespace goblin::workbench {

using kineto::KinetoEvent;
using syntax::PyValue;
using syntax::skipJsonNested;
using syntax::skipJsonString;
using syntax::startsWith;

namespace {

constexpr size_t kMaxCurvePoints = 4096;  // a curve longer than this is decimated (extremes kept)
constexpr size_t kTopOps = 20;

/// An integer of a number token ("245366784", "2.45e8"); nullopt for anything else.
std::optional<qint64> integerOf(std::string_view t)
{
    qint64 value = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), value);
    if (!t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size())
        return value;
    double d = 0.0;
    const auto rd = std::from_chars(t.data(), t.data() + t.size(), d);
    if (!t.empty() && rd.ec == std::errc() && rd.ptr == t.data() + t.size() && std::isfinite(d) && std::fabs(d) < 9e18)
        return qint64(std::llround(d));
    return std::nullopt;
}

qint64 bytesOf(const MemoryOp &op) { return op.allocatedBytes; }

} // namespace

MemoryArgs readMemoryArgs(std::string_view args)
{
    MemoryArgs out;
    // Kineto writes each key once; a later duplicate wins, as in a Python dict.
    syntax::forEachShallowMember(args, [&out](std::string_view key, std::string_view token) {
        if (token.empty() || token[0] == '"' || token[0] == '{' || token[0] == '[')
            return;  // every key read here is a number
        const std::optional<qint64> value = integerOf(token);
        if (!value)
            return;
        if (key == "Total Allocated") {
            out.totalAllocated = *value;
            out.haveAllocated = true;
        } else if (key == "Total Reserved") {
            out.totalReserved = *value;
            out.haveReserved = true;
        } else if (key == "Bytes") {
            out.bytes = *value;
            out.haveBytes = true;
        } else if (key == "Device Id") {
            out.deviceId = *value;
            out.haveDeviceId = true;
        } else if (key == "Device Type") {
            out.deviceType = *value;
            out.haveDeviceType = true;
        }
    });
    return out;
}

// ------------------------------------------------------------------------------------------------

void MemoryConsumer::onEvent(const KinetoEvent &event)
{
    const std::string_view ph = event.phText;
    if (ph.size() != 1)
        return;
    if (ph[0] == 'X') {
        const std::string_view cat = event.catText;
        if (cat.empty())
            return;
        // The CPU lane's step: a user_annotation (an operator in Kineto 2021).
        if ((cat == "user_annotation" || cat == "cpu_op" || cat == "Operator") && event.nameText.size() >= 13 &&
            event.nameText[0] == 'P' && startsWith(event.nameText, "ProfilerStep#"))
            onStep(event);
        return;
    }
    if ((ph[0] == 'i' || ph[0] == 'I') && !event.nameText.empty() && event.nameText[0] == '[') {
        if (event.nameText == "[memory]")
            onMemory(event);
        else if (event.nameText == "[OutOfMemory]")
            ++m_outOfMemory;
    }
}

void MemoryConsumer::onStep(const KinetoEvent &event)
{
    const std::optional<qint64> begin = event.timesNs().tsNs;
    const std::optional<qint64> duration = event.timesNs().durNs;
    if (!begin || !duration || *duration < 0 || !event.name.isString())
        return;  // the workbench's consumer diagnoses these
    m_steps.push_back({std::string(event.nameText), *begin, *begin + *duration});
}

void MemoryConsumer::onMemory(const KinetoEvent &event)
{
    ++m_memoryEvents;
    const std::optional<qint64> ts = syntax::microsToNs(event.ts);
    const MemoryArgs args = (event.fields.have & (1u << kineto::kArgsKey))
                                ? readMemoryArgs(syntax::trimJson(event.fields.token[kineto::kArgsKey]))
                                : MemoryArgs{};
    if (!ts || !args.haveDeviceType) {
        if (m_unusable++ == 0)
            m_firstUnusableLine = event.span.line;
        return;
    }
    Event e{};
    e.tsNs = *ts;
    e.allocated = args.totalAllocated;
    e.reserved = args.totalReserved;
    e.bytes = args.bytes;
    e.deviceType = qint32(std::clamp<qint64>(args.deviceType, -1, 1 << 20));
    e.deviceId = qint32(std::clamp<qint64>(args.haveDeviceId ? args.deviceId : -1, -1, 1 << 20));
    e.have = quint8((args.haveAllocated ? 1 : 0) | (args.haveReserved ? 2 : 0) | (args.haveBytes ? 4 : 0));
    m_events.push_back(e);
}

void MemoryConsumer::finishRange()
{
    m_events.shrink_to_fit();
}

void MemoryConsumer::absorb(kineto::EventConsumer &laterRange, int)
{
    MemoryConsumer &range = static_cast<MemoryConsumer &>(laterRange);
    m_events.insert(m_events.end(), range.m_events.begin(), range.m_events.end());
    for (Step &s : range.m_steps)
        m_steps.push_back(std::move(s));
    m_memoryEvents += range.m_memoryEvents;
    m_outOfMemory += range.m_outOfMemory;
    if (range.m_unusable > 0 && m_unusable == 0)
        m_firstUnusableLine = range.m_firstUnusableLine;
    m_unusable += range.m_unusable;
    range.m_events = {};
}

void MemoryConsumer::finish(const kineto::KinetoDocument &document, TorchTrace &out)
{
    TraceMemory &memory = out.memory;
    memory = TraceMemory{};
    memory.memoryEvents = m_memoryEvents;
    memory.outOfMemoryEvents = m_outOfMemory;
    memory.unusableEvents = m_unusable;
    memory.opsComplete = true;  // the attribution's sweep sees every op
    if (m_unusable > 0)
        out.diagnostics.push_back(
            {Severity::Warning, document.name, m_firstUnusableLine,
             QStringLiteral("%1 [memory] event(s) without a usable \"ts\" or args \"Device Type\" (first at this line); "
                            "left out of the memory curves")
                 .arg(m_unusable)});

    // Time order (stable: equal timestamps keep the document's order, which is the allocator's).
    std::stable_sort(m_events.begin(), m_events.end(), [](const Event &a, const Event &b) { return a.tsNs < b.tsNs; });
    std::sort(m_steps.begin(), m_steps.end(), [](const Step &a, const Step &b) { return a.beginNs < b.beginNs; });

    const TraceIdentity *identity = out.timeline.files.empty() ? nullptr : &out.timeline.files.back().traits.identity;

    // One device per (Device Type, Device Id) of a GPU: type 0 is the host.
    std::map<std::pair<int, int>, std::vector<const Event *>> byDevice;
    for (const Event &e : m_events) {
        if (e.deviceType == 0)
            ++memory.cpuEvents;
        else
            byDevice[{e.deviceId, e.deviceType}].push_back(&e);
    }
    for (const auto &entry : byDevice) {
        // Not a structured binding: the lambdas below capture `events` (clang 14 refuses bindings there).
        const auto &key = entry.first;
        const auto &events = entry.second;
        DeviceMemory d;
        d.deviceId = key.first;
        d.deviceType = key.second;
        d.events = qint64(events.size());
        if (identity && d.deviceId >= 0 && d.deviceId < identity->deviceNames.size()) {
            // deviceProperties' ids are the ordinals 0…N−1, as `Device Id` (the kernels' `device` may differ).
            const int i = d.deviceId;
            d.name = identity->deviceNames[i];
            if (size_t(i) < identity->deviceMemoryBytes.size() && identity->deviceMemoryBytes[size_t(i)] > 0)
                d.capacityBytes = identity->deviceMemoryBytes[size_t(i)];
            if (size_t(i) < identity->deviceComputeUnits.size() && identity->deviceComputeUnits[size_t(i)] > 0)
                d.computeUnits = identity->deviceComputeUnits[size_t(i)];
        }

        // Allocated memory: the allocator's Total Allocated; without it in any event (Kineto 2021),
        // the running sum of the signed Bytes since the trace began (docs/memory.md).
        bool anyTotalAllocated = false;
        for (const Event *e : events) {
            anyTotalAllocated = anyTotalAllocated || (e->have & 1);
            d.eventsWithBytes += (e->have & 4) ? 1 : 0;
        }
        const bool fromBytes = !anyTotalAllocated && d.eventsWithBytes > 0;
        d.allocatedFrom = anyTotalAllocated ? AllocatedFrom::Totals
                          : fromBytes       ? AllocatedFrom::BytesRunningSum
                                            : AllocatedFrom::None;
        // The allocated value after each event (the running sum, or the last total carried forward)
        // and whether the event gives one.
        const auto allocatedAfter = [fromBytes](const Event &e, qint64 &level) {
            if (fromBytes ? !(e.have & 4) : !(e.have & 1))
                return false;
            level = fromBytes ? level + e.bytes : e.allocated;
            return true;
        };

        // Curve and peaks: the allocated and reserved levels after each event, carried forward in
        // between. The running sum starts at 0: its peak is never below the trace's start.
        std::vector<MemoryPoint> points;
        qint64 allocated = 0, reserved = 0;
        for (const Event *e : events) {
            const bool gaveAllocated = allocatedAfter(*e, allocated);
            if (gaveAllocated) {
                if (fromBytes)
                    d.peakAllocatedBytes = std::max(d.peakAllocatedBytes, allocated);
                else
                    d.peakAllocatedBytes =
                        d.eventsWithAllocated++ == 0 ? allocated : std::max(d.peakAllocatedBytes, allocated);
            }
            if (e->have & 2) {
                reserved = e->reserved;
                d.peakReservedBytes = d.eventsWithReserved++ == 0 ? reserved : std::max(d.peakReservedBytes, reserved);
            }
            if (gaveAllocated || (e->have & 2))
                points.push_back({e->tsNs, allocated, reserved});
        }
        if (points.size() <= kMaxCurvePoints) {
            d.curve = std::move(points);
        } else {
            // Per bucket the points of most and least allocated and of most reserved, in time
            // order: the peaks and the troughs survive.
            const size_t buckets = kMaxCurvePoints / 3;
            const size_t per = (points.size() + buckets - 1) / buckets;
            for (size_t b = 0; b < points.size(); b += per) {
                const size_t e = std::min(points.size(), b + per);
                size_t hi = b, lo = b, res = b;
                for (size_t i = b; i < e; ++i) {
                    if (points[i].allocatedBytes > points[hi].allocatedBytes)
                        hi = i;
                    if (points[i].allocatedBytes < points[lo].allocatedBytes)
                        lo = i;
                    if (points[i].reservedBytes > points[res].reservedBytes)
                        res = i;
                }
                size_t keep[3] = {hi, lo, res};
                std::sort(keep, keep + 3);
                for (int k = 0; k < 3; ++k)
                    if (k == 0 || keep[k] != keep[k - 1])
                        d.curve.push_back(points[keep[k]]);
            }
        }

        // Per step: the level carried into the step and every event inside it. Steps without an
        // event at or before their end are left out (nothing says what the allocator held).
        if (d.allocatedFrom != AllocatedFrom::None || d.eventsWithReserved > 0) {
            std::vector<qint64> carriedAllocated(events.size()), carriedReserved(events.size());
            qint64 a = 0, r = 0;
            for (size_t i = 0; i < events.size(); ++i) {
                allocatedAfter(*events[i], a);
                if (events[i]->have & 2)
                    r = events[i]->reserved;
                carriedAllocated[i] = a;
                carriedReserved[i] = r;
            }
            auto firstAtOrAfter = [&](qint64 ts) {
                return size_t(std::lower_bound(events.begin(), events.end(), ts,
                                               [](const Event *e, qint64 t) { return e->tsNs < t; }) -
                              events.begin());
            };
            for (const Step &s : m_steps) {
                const size_t first = firstAtOrAfter(s.beginNs);
                const size_t last = size_t(std::upper_bound(events.begin(), events.end(), s.endNs,
                                                            [](qint64 t, const Event *e) { return t < e->tsNs; }) -
                                           events.begin());
                if (last == 0)
                    continue;
                StepMemoryPeak peak;
                peak.label = QString::fromUtf8(s.label.data(), qsizetype(s.label.size()));
                const size_t from = first > 0 ? first - 1 : 0;
                for (size_t i = from; i < last; ++i) {
                    peak.peakAllocatedBytes = std::max(peak.peakAllocatedBytes, carriedAllocated[i]);
                    peak.peakReservedBytes = std::max(peak.peakReservedBytes, carriedReserved[i]);
                }
                d.steps.push_back(peak);
            }
        }

        // Allocations; the ops around them come from the attribution's join (setAllocatingOps()).
        for (const Event *e : events)
            if ((e->have & 4) && e->bytes > 0)
                ++d.allocations;
        d.allocationsOutsideOps = d.allocations;
        memory.devices.push_back(std::move(d));
    }
    std::sort(memory.devices.begin(), memory.devices.end(), [](const DeviceMemory &a, const DeviceMemory &b) {
        return a.deviceId != b.deviceId ? a.deviceId < b.deviceId : a.deviceType < b.deviceType;
    });

    m_events = {};
    m_steps = {};
}

void setAllocatingOps(DeviceMemory &device, std::vector<MemoryOp> ops)
{
    qint64 inside = 0;
    device.topOps.clear();
    for (MemoryOp &op : ops) {
        inside += op.allocations;
        if (op.allocations > 0)
            device.topOps.push_back(std::move(op));
    }
    device.allocationsOutsideOps = device.allocations - inside;
    device.allocationsOpUnknown = 0;
    std::sort(device.topOps.begin(), device.topOps.end(), [](const MemoryOp &a, const MemoryOp &b) {
        return bytesOf(a) != bytesOf(b) ? bytesOf(a) > bytesOf(b) : a.name < b.name;
    });
    if (device.topOps.size() > kTopOps)
        device.topOps.resize(kTopOps);
}

} // namespace goblin::workbench
