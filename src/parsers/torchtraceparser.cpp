#include "torchtraceparser.h"

#include "io/regularfile.h"
#include "io/runinventory.h"
#include "kineto/tracereader.h"
#include "reference/openfailures.h"
#include "reference/torchconsumer.h"
#include "workbench/attributionconsumer.h"
#include "workbench/collectivesconsumer.h"
#include "workbench/hostlanesconsumer.h"
#include "workbench/kinetoconsumer.h"
#include "workbench/memoryconsumer.h"
#include "workbench/tracetraitsconsumer.h"

#include <QFileInfo>

#include <algorithm>
#include <atomic>
#include <span>

// The entries: a file, bytes in memory, or a run folder (which file each reading reads). The
// reader itself is kineto/tracereader.h.

namespace goblin {

using kineto::ReferenceMode;
using kineto::TraceReader;
using kineto::kDefaultChunkBytes;
using kineto::kDefaultRangeBytes;

namespace {

/// Both readings of every event, the reference's first (its diagnostics come first), then the
/// trace's traits, which go into the timeline file the workbench's consumer wrote.
constexpr kineto::ConsumerMaker kBothReadings[] = {&reference::TorchConsumer::make,
                                                    &workbench::KinetoConsumer::make,
                                                    &workbench::TraceTraitsConsumer::make,  // after KinetoConsumer
                                                    &workbench::MemoryConsumer::make,  // after TraceTraitsConsumer
                                                    &workbench::AttributionConsumer::make,  // after MemoryConsumer
                                                    &workbench::CollectivesConsumer::make,  // after AttributionConsumer (its correlation memo)
                                                    &workbench::HostLanesConsumer::make};  // after KinetoConsumer
/// The same without the host lanes (keepHostLanes() off): the last maker left out.
constexpr std::span<const kineto::ConsumerMaker> kReadingsWithoutHostLanes(kBothReadings, std::size(kBothReadings) - 1);
static_assert(kBothReadings[std::size(kBothReadings) - 1] == &workbench::HostLanesConsumer::make);

std::atomic<bool> g_keepHostLanes{false};

TorchTrace readOrigin(const io::ByteOrigin &origin, const QString &displayName, ReferenceMode mode,
                      const ProgressCallback &progress, size_t chunkBytes, qint64 rangeBytes)
{
    TorchTrace out;
    out.referenceFileFound = true;
    const std::span<const kineto::ConsumerMaker> makers =
        g_keepHostLanes.load(std::memory_order_relaxed) ? std::span<const kineto::ConsumerMaker>(kBothReadings)
                                                        : kReadingsWithoutHostLanes;
    TraceReader reader(origin, displayName, mode, progress, chunkBytes, rangeBytes, makers, out);
    reader.run();
    // A traceEvents whose entries are all scalars (numbers, strings, true, false, null) holds no
    // event: the file holds nothing the workbench reads, and says so in one line, the first about
    // the file. An event object with a bad value (NaN, a huge duration) or a list (nested too deep
    // for the reference) is still an entry: counted, and diagnosed where it is read.
    if (!out.cancelled && out.eventCount > 0 && out.scalarEvents >= out.eventCount) {
        out.diagnostics.insert(out.diagnostics.begin(),
                               {Severity::Error, displayName, 0,
                                QStringLiteral("none of the %1 entries of traceEvents is an event the workbench reads "
                                               "(only numbers, strings, true, false or null, no JSON object): nothing read from it")
                                    .arg(out.eventCount)});
        out.eventCount = 0;
    }
    return out;
}

TorchTrace readFile(const QString &path, const QString &displayName, ReferenceMode mode,
                    const ProgressCallback &progress, size_t chunkBytes = kDefaultChunkBytes,
                    qint64 rangeBytes = kDefaultRangeBytes)
{
    return readOrigin(io::ByteOrigin::file(path), displayName, mode, progress, chunkBytes, rangeBytes);
}

} // namespace

TorchTrace parseTorchTraceFile(const QString &path, const QString &displayName, const ProgressCallback &progress)
{
    return readFile(path, displayName, ReferenceMode::AsJson, progress);
}

TorchTrace parseTorchTraceFile(const QString &path, const QString &displayName, const ProgressCallback &progress,
                               size_t chunkBytes)
{
    return readFile(path, displayName, ReferenceMode::AsJson, progress, chunkBytes, 0);
}

TorchTrace parseTorchTraceFile(const QString &path, const QString &displayName, const ProgressCallback &progress,
                               size_t chunkBytes, qint64 rangeBytes)
{
    return readFile(path, displayName, ReferenceMode::AsJson, progress, chunkBytes, rangeBytes);
}

TorchTrace parseTorchTraceBytes(QByteArrayView bytes, const QString &displayName, const ProgressCallback &progress,
                                const TorchReadPlan &plan)
{
    return readOrigin(io::ByteOrigin::bytes(bytes), displayName, ReferenceMode::AsJson, progress, plan.chunkBytes,
                      plan.rangeBytes);
}

namespace {

/// Do two files hold the same timeline: the same GPU events (names, devices, streams, times), step
/// windows and CPU activity? Two processes never share nanosecond timestamps, so such a file is a
/// copy of the other under another name (`prof.export_chrome_trace("torch_profile.json")` beside
/// the worker file tensorboard_trace_handler wrote for the same session), not a second rank. An
/// empty timeline is like no other.
bool sameTimeline(const GpuTimelineFile &a, const GpuTimelineFile &b)
{
    if (a.devices.empty() && a.steps.empty() && a.hostBusy.empty())
        return false;
    if (a.devices.size() != b.devices.size() || a.steps.size() != b.steps.size() || a.hostBusy.size() != b.hostBusy.size())
        return false;
    for (size_t i = 0; i < a.steps.size(); ++i)
        if (a.steps[i].startNs != b.steps[i].startNs || a.steps[i].endNs != b.steps[i].endNs || a.steps[i].name != b.steps[i].name)
            return false;
    for (size_t i = 0; i < a.hostBusy.size(); ++i)
        if (a.hostBusy[i].startNs != b.hostBusy[i].startNs || a.hostBusy[i].endNs != b.hostBusy[i].endNs)
            return false;
    for (size_t d = 0; d < a.devices.size(); ++d) {
        const GpuDeviceTimeline &x = a.devices[d], &y = b.devices[d];
        if (x.device != y.device || x.streams != y.streams || x.events.size() != y.events.size())
            return false;
        for (size_t i = 0; i < x.events.size(); ++i) {
            const GpuEvent e = x.events[i], f = y.events[i];
            if (e.startNs != f.startNs || e.endNs != f.endNs || e.stream != f.stream || e.kind != f.kind
                || a.names[e.nameId] != b.names[f.nameId])
                return false;
        }
    }
    return true;
}

/// The GPU timelines of the inventory's other chrome traces (one per rank), after the primary's.
/// Progress goes on counting from the primary's bytes; a cancel stops here too. A trace whose
/// timeline is one already read is a copy: named in a warning, not read as a rank.
void addOtherTimelines(const RunInventory &inventory, const InputRow *primary, const ProgressCallback &progress,
                       TorchTrace &out)
{
    if (out.cancelled)
        return;
    qint64 before = out.file.sizeBytes;
    for (const InputRow *trace : inventory.chromeTraces()) {
        if (trace == primary)
            continue;
        ProgressCallback onward;
        if (progress)
            onward = [&progress, before](qint64 done) { return progress(before + done); };
        TorchTrace other =
            readFile(inventory.filePath(*trace), trace->relativePath, ReferenceMode::AsJson, onward);
        before += other.file.sizeBytes;
        if (other.cancelled) {
            out.cancelled = true;
            return;
        }
        const auto copyOf = std::find_if(out.timeline.files.begin(), out.timeline.files.end(), [&](const GpuTimelineFile &seen) {
            return other.timeline.files.size() == 1 && sameTimeline(other.timeline.files.front(), seen);
        });
        if (copyOf != out.timeline.files.end()) {
            // Its own diagnostics would repeat the original's under another name.
            out.diagnostics.push_back({Severity::Warning, trace->relativePath, 0,
                                       QStringLiteral("holds the same GPU events, steps and CPU activity as %1 (the "
                                                      "same nanosecond timestamps): taken for a copy of it, not read "
                                                      "as another rank")
                                           .arg(copyOf->file)});
            continue;
        }
        for (Diagnostic &d : other.diagnostics)
            out.diagnostics.push_back(std::move(d));
        RankTraceReading rank{trace->relativePath, std::nullopt, std::move(other.attribution), std::move(other.memory),
                              std::move(other.collectives)};
        if (!other.timeline.files.empty()) {
            rank.file = other.timeline.files.front().file;
            rank.rank = other.timeline.files.front().rank;
        }
        out.otherRanks.push_back(std::move(rank));
        for (GpuTimelineFile &file : other.timeline.files)
            out.timeline.files.push_back(std::move(file));
    }
}

} // namespace

TorchTrace parseTorchTrace(const QString &runDir, const ProgressCallback &progress)
{
    return parseTorchTrace(RunInventory::scanFolder(runDir), progress);
}

TorchTrace parseTorchTrace(const RunInventory &inventory, const ProgressCallback &progress)
{
    const QString torchFile = kTorchTraceFileName;
    const InputRow *reference = inventory.torchReference();
    const InputRow *primary = inventory.torchPrimary();
    Diagnostics notes;
    TorchReading referenceFailure;
    for (const InputRow *s : inventory.skippedChromeTraces()) {
        if (s->skippedAs == SkippedAs::CompressedCopy)
            notes.push_back({Severity::Info, s->relativePath, 0,
                             QStringLiteral("the compressed copy of %1 (same name + .gz): the trace is read once, from %1")
                                 .arg(s->keptPath)});
        else
            notes.push_back({Severity::Warning, s->relativePath, 0,
                             QStringLiteral("an older profiling session of the same worker (process) as %1, whose "
                                            "timestamp is later: not read, one trace per worker (move %1 out of the "
                                            "folder to read this one)")
                                 .arg(s->keptPath)});
    }
    if (reference && primary == reference) {
        TorchTrace out = readFile(inventory.filePath(*reference), torchFile, ReferenceMode::CrashesOnGzip, progress);
        out.referenceFileFound = true;
        out.diagnostics.insert(out.diagnostics.begin(), notes.begin(), notes.end());
        addOtherTimelines(inventory, primary, progress, out);
        return out;
    }
    const QString referencePath = reference ? inventory.filePath(*reference) : QString();
    if (reference) {
        // Path.read_text() raises OSError, which the reference catches: a warning, nothing read.
        const QFileInfo referenceInfo(referencePath);
        referenceFailure.readFailed = true;
        referenceFailure.readFailure =
            reference::torchOpenFailure(referencePath, referenceInfo.isDir(), specialFileProblem(referencePath));
    }

    // The workbench also takes what tensorboard_trace_handler writes: the inventory's primary.
    const QString chosen = primary ? primary->relativePath : QString();
    if (reference) {
        const QFileInfo referenceInfo(referencePath);
        const QString special = specialFileProblem(referencePath);
        const QString problem = referenceInfo.isDir() ? QStringLiteral("torch_profile.json is a folder, not a file")
                                : !special.isEmpty()  ? QStringLiteral("torch_profile.json %1").arg(special)
                                                      : QStringLiteral("torch_profile.json cannot be read");
        notes.push_back({Severity::Error, torchFile, 0,
                         chosen.isEmpty() ? problem
                                          : QStringLiteral("%1; the workbench reads %2 instead").arg(problem, chosen)});
    }
    TorchTrace out;
    if (primary) {
        out = readFile(inventory.filePath(*primary), chosen, ReferenceMode::AsJson, progress);
    } else {
        notes.push_back({Severity::Warning, torchFile, 0,
                         inventory.wholeFolder()
                             ? QStringLiteral("no torch_profile.json, torch_profile.json.gz or *.pt.trace.json[.gz] in "
                                              "the run folder")
                             : QStringLiteral("no torch trace among the files opened")});
    }
    out.reference = referenceFailure;
    out.referenceFileFound = reference != nullptr;
    out.diagnostics.insert(out.diagnostics.begin(), notes.begin(), notes.end());
    addOtherTimelines(inventory, primary, progress, out);
    return out;
}

void setKeepHostLanes(bool keep)
{
    g_keepHostLanes.store(keep, std::memory_order_relaxed);
}

bool keepHostLanes()
{
    return g_keepHostLanes.load(std::memory_order_relaxed);
}

} // namespace goblin
