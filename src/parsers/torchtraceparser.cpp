#include "torchtraceparser.h"

#include "io/regularfile.h"
#include "kineto/tracediscovery.h"
#include "kineto/tracereader.h"
#include "reference/openfailures.h"
#include "reference/torchconsumer.h"
#include "workbench/kinetoconsumer.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include <algorithm>

// The entries: a file, bytes in memory, or a run folder (which file each reading reads). The
// reader itself is kineto/tracereader.h.

namespace goblin {

using kineto::ReferenceMode;
using kineto::TraceReader;
using kineto::kDefaultChunkBytes;
using kineto::kDefaultRangeBytes;

namespace {

const QString kTorchFile = QStringLiteral("torch_profile.json");

/// Both readings of every event, the reference's first (its diagnostics come first).
constexpr kineto::ConsumerMaker kBothReadings[] = {&reference::TorchConsumer::make,
                                                    &workbench::KinetoConsumer::make};

TorchTrace readOrigin(const io::ByteOrigin &origin, const QString &displayName, ReferenceMode mode,
                      const ProgressCallback &progress, size_t chunkBytes, qint64 rangeBytes)
{
    TorchTrace out;
    out.referenceFileFound = true;
    TraceReader reader(origin, displayName, mode, progress, chunkBytes, rangeBytes, kBothReadings, out);
    reader.run();
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

/// The GPU timelines of the run folder's other chrome traces (one per rank), after the primary's.
/// Progress goes on counting from the primary's bytes; a cancel stops here too.
void addOtherTimelines(const QString &runDir, const QString &primary,
                       const std::vector<kineto::FoundTrace> &found, const ProgressCallback &progress,
                       TorchTrace &out)
{
    if (out.cancelled)
        return;
    const QDir dir(runDir);
    qint64 before = out.file.sizeBytes;
    for (const kineto::FoundTrace &trace : found) {
        if (trace.relativePath == primary)
            continue;
        ProgressCallback onward;
        if (progress)
            onward = [&progress, before](qint64 done) { return progress(before + done); };
        TorchTrace other =
            readFile(dir.filePath(trace.relativePath), trace.relativePath, ReferenceMode::AsJson, onward);
        before += other.file.sizeBytes;
        for (Diagnostic &d : other.diagnostics)
            out.diagnostics.push_back(std::move(d));
        if (other.cancelled) {
            out.cancelled = true;
            return;
        }
        for (GpuTimelineFile &file : other.timeline.files)
            out.timeline.files.push_back(std::move(file));
    }
}

} // namespace

TorchTrace parseTorchTrace(const QString &runDir, const ProgressCallback &progress)
{
    const QDir dir(runDir);
    const QString referencePath = dir.filePath(kTorchFile);
    const QFileInfo referenceInfo(referencePath);
    Diagnostics notes;
    TorchReading referenceFailure;
    const bool referenceExists = referenceInfo.exists();
    // Every chrome trace of the folder, by content (a rank each in multi-GPU jobs).
    const std::vector<kineto::FoundTrace> found = kineto::findChromeTraces(runDir);
    if (referenceExists && referenceInfo.isFile() && referenceInfo.isReadable()) {
        TorchTrace out = readFile(referencePath, kTorchFile, ReferenceMode::CrashesOnGzip, progress);
        out.referenceFileFound = true;
        addOtherTimelines(runDir, kTorchFile, found, progress, out);
        return out;
    }
    if (referenceExists) {
        // Path.read_text() raises OSError, which the reference catches: a warning, nothing read.
        referenceFailure.readFailed = true;
        referenceFailure.readFailure =
            reference::torchOpenFailure(referencePath, referenceInfo.isDir(), specialFileProblem(referencePath));
    }

    // The workbench also takes what tensorboard_trace_handler writes.
    QString chosen;
    const QFileInfo gz(dir.filePath(QStringLiteral("torch_profile.json.gz")));
    if (gz.isFile()) {
        chosen = gz.fileName();
    } else {
        QFileInfoList candidates =
            dir.entryInfoList({QStringLiteral("*.pt.trace.json"), QStringLiteral("*.pt.trace.json.gz")}, QDir::Files);
        std::sort(candidates.begin(), candidates.end(), [](const QFileInfo &a, const QFileInfo &b) {
            if (a.lastModified() != b.lastModified())
                return a.lastModified() > b.lastModified();
            if (a.size() != b.size())
                return a.size() > b.size();
            return a.fileName() < b.fileName();
        });
        if (!candidates.isEmpty()) {
            chosen = candidates.front().fileName();
            if (candidates.size() > 1) {
                QStringList others;
                for (qsizetype i = 1; i < candidates.size(); ++i)
                    others << candidates[i].fileName();
                notes.push_back({Severity::Warning, chosen, 0,
                                 QStringLiteral("%1 torch traces in the run folder; read the newest (%2), not %3")
                                     .arg(candidates.size())
                                     .arg(chosen, others.join(QStringLiteral(", ")))});
            }
        } else if (!found.empty()) {
            // Traces named otherwise (`sampled_rank-0.json.gz`, `rank-3.json.gz`, in a sub-folder…),
            // recognised by their content: the lowest rank's is read (found is in rank order).
            chosen = found.front().relativePath;
        }
    }
    if (referenceExists) {
        const QString special = specialFileProblem(referencePath);
        const QString problem = referenceInfo.isDir() ? QStringLiteral("torch_profile.json is a folder, not a file")
                                : !special.isEmpty()  ? QStringLiteral("torch_profile.json %1").arg(special)
                                                      : QStringLiteral("torch_profile.json cannot be read");
        notes.push_back({Severity::Error, kTorchFile, 0,
                         chosen.isEmpty() ? problem
                                          : QStringLiteral("%1; the workbench reads %2 instead").arg(problem, chosen)});
    }
    TorchTrace out;
    if (!chosen.isEmpty()) {
        out = readFile(dir.filePath(chosen), chosen, ReferenceMode::AsJson, progress);
    } else {
        notes.push_back({Severity::Warning, kTorchFile, 0,
                         QStringLiteral("no torch_profile.json, torch_profile.json.gz or *.pt.trace.json[.gz] in the "
                                        "run folder")});
    }
    out.reference = referenceFailure;
    out.referenceFileFound = referenceExists;
    out.diagnostics.insert(out.diagnostics.begin(), notes.begin(), notes.end());
    addOtherTimelines(runDir, chosen, found, progress, out);
    return out;
}

} // namespace goblin
