#pragma once
/// \file The GPU timeline of one torch (Kineto) trace, collected as its events stream past: device
/// events (kernels, memcpy, memset) per device and stream, step windows and the CPU operators of
/// each process. Every reader of the trace (one pass, each byte range, the pipeline's second
/// thread) has its own collector; later ranges are absorbed in document order.

#include "results/gputimeline.h"

#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace goblin::kineto {

/// The device-event kind of a trace event category: `kernel`, `gpu_memcpy`, `gpu_memset`
/// (Kineto 2021: `Kernel`, `Memcpy`, `Memset`); nullopt for every other category.
std::optional<GpuEventKind> gpuEventKind(std::string_view category);

/// args.device and args.stream of an event, read from the bytes of its (already validated) "args"
/// object: `args` starts at its '{' and may run on past its '}' (to the end of the event).
/// Integers, or strings holding one; anything else leaves the member unset. The walk stops once
/// both are read: a repeated "device" or "stream" after them is not seen (Kineto writes each
/// once; Python's dict would keep the last).
struct DeviceStream {
    std::optional<qint64> device;
    std::optional<qint64> stream;
};
DeviceStream readDeviceStream(std::string_view args);

struct EventFields;  // batch.h
/// The same of a batched event: from the args members the scanner located, else read from its
/// "args" bytes; unset without args.
DeviceStream deviceStreamOf(const EventFields &fields);

/// Which of the located args members (kArgKeys in batch.h: bit i for kArgKeys[i]) occur more than
/// once at the top level of `args` (as for readDeviceStream()). Run only for events whose args the
/// scanner did not locate, or where it met a repeated member.
quint8 repeatedArgKeys(std::string_view args);

/// The integer an args member's raw token holds: a number without fraction or exponent, or a
/// string holding one (escapes resolved); nullopt for anything else.
std::optional<qint64> argInteger(std::string_view token);

/// The rank in a trace's top-level "distributedInfo" object (its JSON text), if it has one.
std::optional<int> rankFromDistributedInfo(std::string_view json);

class GpuEventCollector
{
public:
    void addDeviceEvent(GpuEventKind kind, std::string_view name, qint64 device, qint64 stream, qint64 beginNs,
                        qint64 endNs);
    void addStep(std::string_view name, qint64 beginNs, qint64 endNs, bool gpuLane);
    /// A CPU operator of process `pid` (the pid's JSON token as written; empty when missing).
    void addCpuOp(std::string_view pid, qint64 beginNs, qint64 endNs);
    /// A data-loading range (`enumerate(DataLoader)#…`) of process `pid`.
    void addDataLoading(std::string_view pid, qint64 beginNs, qint64 endNs);
    /// Process `pid` holds a CPU-lane ProfilerStep: it is the training process.
    void markStepProcess(std::string_view pid);
    /// A device event left out (no usable args.device / args.stream) at `line` of the document.
    void countUnplaced(qint64 line)
    {
        if (m_unplaced++ == 0)
            m_firstUnplacedLine = line;
    }

    /// Appends what a reader of the bytes after this one's collected (document order).
    void absorb(GpuEventCollector &&later);
    /// Merges the host intervals collected so far (a byte range does it before handing over).
    void compact();

    qint64 unplacedEvents() const { return m_unplaced; }
    qint64 firstUnplacedLine() const { return m_firstUnplacedLine; }
    qint64 deviceEvents() const;

    /// The file's timeline (the collector is empty afterwards). hostBusy and dataLoading are of one
    /// process: the one with the CPU-lane ProfilerStep marks, else the one with the most operator time.
    GpuTimelineFile finish(const QString &source, const QString &file, std::optional<int> rank);

private:
    struct Device {
        qint64 device = 0;
        std::vector<qint64> streams;
        GpuEventList events;
        size_t lastStream = 0;
    };
    struct Process {
        std::string pid;
        std::vector<TimeInterval> ops;  ///< becomes GpuTimelineFile::hostBusy (merged)
        std::vector<TimeInterval> dataLoading;  ///< becomes GpuTimelineFile::dataLoading (merged)
        qint64 opCount = 0;
        bool hasCpuStep = false;
    };
    struct NameHash {
        using is_transparent = void;
        /// Kernel names run to hundreds of bytes and share long prefixes (Cijk_Ailk_Bljk_…): the
        /// length and the last 48 bytes tell them apart well enough, at a fraction of the cost.
        size_t operator()(std::string_view s) const
        {
            const size_t tail = s.size() > 48 ? 48 : s.size();
            return std::hash<std::string_view>{}(s.substr(s.size() - tail)) ^ (s.size() * 0x9E3779B97F4A7C15ull);
        }
    };

    std::uint32_t intern(std::string_view name);
    Device &device(qint64 number);
    Process &process(std::string_view pid);
    static std::uint16_t streamIndex(Device &d, qint64 stream);
    static void mergeIntervals(std::vector<TimeInterval> &v);

    std::vector<std::string> m_names;
    std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> m_nameIds;
    std::vector<Device> m_devices;
    size_t m_lastDevice = 0;
    std::vector<Process> m_processes;
    size_t m_lastProcess = 0;
    std::vector<StepWindow> m_steps;
    qint64 m_unplaced = 0;
    qint64 m_firstUnplacedLine = 0;
};

} // namespace goblin::kineto
