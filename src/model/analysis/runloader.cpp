// Loads a run folder (or a file alone): one run inventory names the inputs, the three parsers
// run concurrently on its files (the CSVs and the JSON on different cores), the chrome traces
// that are not ranks of one job are set apart, then the analysis is derived once.

#include "amdsmiparser.h"
#include "torchtraceparser.h"
#include "kerneltraceparser.h"
#include "runanalysis.h"

#include "apitraceparser.h"
#include "timelineanalysis.h"

#include "io/regularfile.h"
#include "io/runinventory.h"
#include "kernels/hostlanesbuilder.h"
#include "rankgroups.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

namespace goblin {

namespace {

/// Thread-safe, throttled aggregation of the three parsers' progress (>= 1 % or 100 ms).
class ProgressAggregator
{
public:
    ProgressAggregator(const LoadProgressCallback &callback, qint64 totalBytes)
        : m_callback(callback), m_totalBytes(totalBytes)
    {
        m_timer.start();
    }

    ProgressCallback forPart(int part, const QString &stage)
    {
        return [this, part, stage](qint64 bytesDone) {
            m_done[part].store(bytesDone, std::memory_order_relaxed);
            if (m_cancelled.load())
                return false;
            report(stage);
            return !m_cancelled.load();
        };
    }

    void report(const QString &stage)
    {
        if (!m_callback)
            return;
        std::lock_guard<std::mutex> lock(m_mutex);
        const qint64 done = m_done[0].load() + m_done[1].load() + m_done[2].load() + m_done[3].load();
        const double fraction = std::min(1.0, double(done) / double(m_totalBytes));
        if (fraction - m_lastFraction < 0.01 && m_timer.elapsed() - m_lastReportMs < 100)
            return;
        m_lastFraction = fraction;
        m_lastReportMs = m_timer.elapsed();
        if (!m_callback(fraction, stage))
            m_cancelled.store(true);
    }

    bool cancelled() const { return m_cancelled.load(); }
    void cancel() { m_cancelled.store(true); }

private:
    const LoadProgressCallback &m_callback;
    qint64 m_totalBytes;
    std::atomic<qint64> m_done[4] = {0, 0, 0, 0};  // kernel trace, torch trace, telemetry, API traces
    std::atomic<bool> m_cancelled{false};
    std::mutex m_mutex;
    QElapsedTimer m_timer;
    double m_lastFraction = -1.0;
    qint64 m_lastReportMs = -1000;
};

/// The name of what was loaded: the folder's, or "folder/file" for a file opened alone.
QString runNameOf(const RunInventory &inventory, const RunSource &source)
{
    const QString folderName = QDir(inventory.folder()).dirName();
    if (inventory.wholeFolder())
        return folderName;
    QStringList files;
    for (const InputRow &row : inventory.rows())
        files << row.relativePath;
    if (files.isEmpty())
        files = source.files;
    return files.size() == 1 ? folderName + QLatin1Char('/') + files.front()
                             : QStringLiteral("%1: %2").arg(folderName, files.join(QStringLiteral(", ")));
}

/// The diagnostic that names a separate run.
Diagnostic separateRunNote(const SeparateRun &s)
{
    return {Severity::Info, s.file, 0,
            QStringLiteral("not a rank of this run: %1. Left out of its timeline, ranks and budget; it opens as a "
                           "run of its own")
                .arg(s.reason)};
}

/// Leaves out the chrome traces that are not ranks of the run (rankgroups.h): each becomes a
/// separate run, named in a diagnostic. Runs on the torch thread, before its timeline is measured;
/// writes only run.torch and `job`.
void separateUnrelatedTraces(RunAnalysis &run, JobFacts &job, const RunInventory &inventory,
                             const ProgressCallback &progress)
{
    const std::vector<RankCandidate> candidates = rankCandidates(run.torch.timeline.files);
    if (candidates.size() < 2)
        return;
    const RankGrouping grouping = groupRanks(candidates);
    if (grouping.separate.empty())
        return;
    QStringList runFiles, separateFiles;
    for (std::size_t i : grouping.runTraces)
        runFiles << candidates[i].file;
    for (const SeparateRun &s : grouping.separate)
        separateFiles << s.file;

    if (separateFiles.contains(run.torch.file.relativePath)) {
        // The readings (step time, host busy, metadata) came from a trace that is not the run's:
        // read the run's traces again, alone, so that they come from the run's first trace.
        // Rare: torch_profile.json anchors the run, and otherwise the first trace in rank order
        // usually belongs to the largest group.
        TorchTrace again = parseTorchTrace(RunInventory::scan(RunSource{inventory.folder(), runFiles, {}}), progress);
        if (again.cancelled) {
            run.torch.cancelled = true;
            return;
        }
        // What the first reading said of the other files (torch_profile.json that cannot be read,
        // copies left out) and the reference's reading (of torch_profile.json only) still hold.
        Diagnostics kept;
        for (const Diagnostic &d : run.torch.diagnostics)
            if (!runFiles.contains(d.file) && !separateFiles.contains(d.file))
                kept.push_back(d);
        again.diagnostics.insert(again.diagnostics.begin(), kept.begin(), kept.end());
        again.reference = run.torch.reference;
        again.referenceFileFound = run.torch.referenceFileFound;
        run.torch = std::move(again);
    } else {
        auto &files = run.torch.timeline.files;
        files.erase(std::remove_if(files.begin(), files.end(),
                                   [&](const GpuTimelineFile &f) { return separateFiles.contains(f.file); }),
                    files.end());
        // A separate run's own diagnostics are shown when it is opened.
        auto &diags = run.torch.diagnostics;
        diags.erase(std::remove_if(diags.begin(), diags.end(),
                                   [&](const Diagnostic &d) { return separateFiles.contains(d.file); }),
                    diags.end());
    }
    for (const SeparateRun &s : grouping.separate)
        run.torch.diagnostics.push_back(separateRunNote(s));
    job.separate = grouping.separate;
    job.source = QStringLiteral("%1 of %2 chrome traces agree on what they state (ranks, world size, process group, "
                                "device model, phase); the others are separate runs")
                     .arg(runFiles.size())
                     .arg(candidates.size());
}

/// The files a restricted reading keeps: every file of `inventory` but the separate kernel-trace
/// files and, for rocprofv3's per-process files (`<dir>/<pid>_kernel_trace.csv`), the API traces of
/// the same process (`<dir>/<pid>_…`).
QStringList filesWithout(const RunInventory &inventory, const std::vector<SeparateRun> &separate)
{
    QStringList prefixes;
    for (const SeparateRun &s : separate) {
        const qsizetype slash = s.file.lastIndexOf(QLatin1Char('/'));
        const QString name = s.file.mid(slash + 1);
        const qsizetype underscore = name.indexOf(QLatin1Char('_'));
        bool pid = false;
        if (underscore > 0)
            name.left(underscore).toLongLong(&pid);
        if (pid)
            prefixes << s.file.left(slash + 1) + name.left(underscore + 1);
    }
    QStringList kept;
    for (const InputRow &row : inventory.rows()) {
        const bool isSeparate = std::any_of(separate.begin(), separate.end(),
                                            [&](const SeparateRun &s) { return s.file == row.relativePath; });
        const bool sameProcess = std::any_of(prefixes.begin(), prefixes.end(),
                                             [&](const QString &p) { return row.relativePath.startsWith(p); });
        if (!isSeparate && !sameProcess)
            kept << row.relativePath;
    }
    return kept;
}

/// Leaves out the kernel-trace files that are not ranks of the run's job (groupKernelFiles): the
/// kernel traces are read again without them (the reference's reading kept: it reads its own
/// file), and they become separate runs. Returns the inventory without them, when any was left out:
/// the API traces are read from it.
std::optional<RunInventory> separateUnrelatedKernelFiles(RunAnalysis &run, JobFacts &job, const RunInventory &inventory,
                                          const QString &stepPattern, const ProgressCallback &progress)
{
    const std::vector<KernelFileCandidate> candidates = kernelFileCandidates(run.kernels.timeline);
    if (candidates.size() < 2)
        return std::nullopt;
    const RankGrouping grouping = groupKernelFiles(candidates);
    job.source = QStringLiteral("%1 of %2 kernel-trace files ran the same program (kernel names) at the same time")
                     .arg(grouping.runTraces.size())
                     .arg(candidates.size());
    if (grouping.separate.empty())
        return std::nullopt;
    RunInventory restricted =
        RunInventory::scan(RunSource{inventory.folder(), filesWithout(inventory, grouping.separate), stepPattern});
    KernelTrace again = parseKernelTraces(restricted, progress);
    if (again.cancelled) {
        run.kernels.cancelled = true;
        return restricted;
    }
    again.reference = std::move(run.kernels.reference);
    again.referenceFileFound = run.kernels.referenceFileFound;
    again.referenceFileEmpty = run.kernels.referenceFileEmpty;
    run.kernels = std::move(again);
    for (const SeparateRun &s : grouping.separate)
        run.kernels.diagnostics.push_back(separateRunNote(s));
    job.separate = grouping.separate;
    return restricted;
}

/// Did the workbench read anything at all: a kernel row, a trace event or a metadata value, a
/// telemetry sample?
bool readSomething(const RunAnalysis &run)
{
    if (run.kernels.workbench.rowsUsed > 0)
        return true;
    const TorchReading &tw = run.torch.workbench;
    if (run.torch.eventCount > 0 || tw.stepTimeSeconds || tw.tokensPerSec || tw.mfuPct || tw.hostBusyFraction)
        return true;
    for (const GpuTimelineFile &f : run.torch.timeline.files)
        if (!f.devices.empty() || !f.steps.empty() || !f.hostBusy.empty())
            return true;
    return !run.smi.samples.empty() || run.smi.workbench.gpuUtilPct || run.smi.workbench.hbmPeakGb;
}

/// Why nothing of `inventory` was readable, file by file, in plain words.
QString whyNothingReadable(const RunInventory &inventory, const RunAnalysis &run)
{
    QStringList parts;
    // The loader's words for a format (formats/inputformat.h): its noun, and what it held not.
    const auto noun = [](const InputRow &row) {
        return row.format ? QString::fromLatin1(row.format->noun) : QStringLiteral("an input");
    };
    const auto empty = [](const InputRow &row) {
        return row.format ? QString::fromLatin1(row.format->holdsNothing) : QStringLiteral("holds nothing readable");
    };
    for (const InputRow &row : inventory.rows()) {
        if (!(row.read || row.referenceReads) || row.role == InputRole::NotRead)
            continue;
        const QString &f = row.relativePath;
        switch (row.content) {
        case HeadContent::NotAFile:
        case HeadContent::Unreadable:
        case HeadContent::Empty:
            parts << QStringLiteral("%1 is %2").arg(f, row.contentText);
            continue;
        case HeadContent::Binary:
            if (row.format && row.format->binaryContent)
                break;  // protobuf is binary: the reader says what the file held
            parts << QStringLiteral("%1 is not %2 (binary data: random bytes, not text)").arg(f, noun(row));
            continue;
        default:
            break;
        }
        // The reader's own words: the first warning or error naming the file.
        QString said;
        for (const Diagnostic &d : run.diagnostics)
            if (d.file == f && d.severity != Severity::Info) {
                said = d.message;
                break;
            }
        if (said.size() > 160)
            said = said.left(157) + QStringLiteral("...");
        parts << (said.isEmpty() ? QStringLiteral("%1 %2").arg(f, empty(row))
                                 : QStringLiteral("%1: %2").arg(f, said));
    }
    if (!parts.isEmpty())
        return parts.join(QStringLiteral("; "));

    // Nothing was even tried.
    QStringList others;
    for (const InputRow &row : inventory.rows())
        others << QStringLiteral("%1 (%2)").arg(row.relativePath, row.contentText);
    if (!inventory.wholeFolder())
        return others.isEmpty() ? QStringLiteral("the file is gone")
                                : QStringLiteral("%1 is no kernel-trace CSV, chrome trace, amd-smi CSV or rocpd "
                                                 "database")
                                      .arg(others.mid(0, 3).join(QStringLiteral(", ")));
    QString text = QStringLiteral("no trace.csv, torch_profile.json, amd_smi.csv, rocprofv3 kernel trace, rocpd "
                                  "database or chrome trace in the folder or its sub-folders");
    if (others.isEmpty())
        return text + QStringLiteral(" (the folder is empty)");
    if (others.size() > 3)
        others = others.mid(0, 3) << QStringLiteral("...");
    return text + QStringLiteral("; it holds %1").arg(others.join(QStringLiteral(", ")));
}

} // namespace

LoadResult loadRun(const QString &path, const LoadProgressCallback &progress)
{
    return loadRun(RunSource{path, {}, {}}, progress);
}

LoadResult loadRun(const RunSource &source, const LoadProgressCallback &progress)
{
    LoadResult result;
    const QString &given = source.path;
    const QFileInfo info(given);
    if (!info.exists()) {
        result.error = QStringLiteral("%1: no such folder or file").arg(given);
        return result;
    }
    const bool fileAlone = !info.isDir();
    if (!info.isReadable() || (!fileAlone && !info.isExecutable())) {
        result.error = QStringLiteral("%1: permission denied").arg(given);
        return result;
    }
    if (fileAlone && !info.isFile()) {
        result.error = QStringLiteral("%1: %2").arg(given, specialFileProblem(given));
        return result;
    }

    auto run = std::make_shared<RunAnalysis>();
    // A file alone reads as the only file of its folder: the reference's warnings quote the
    // folder as given; the run is known by the file's path.
    run->runDir = info.absoluteFilePath();
    run->runDirAsGiven = fileAlone ? info.path() : given;
    if (progress && !progress(-1.0, QStringLiteral("Reading %1").arg(info.fileName()))) {
        result.outcome = LoadOutcome::Cancelled;
        return result;
    }
    const RunInventory inventory = RunInventory::scan(source);
    if (inventory.wholeFolder())
        run->runDir = inventory.folder();
    else if (!fileAlone && source.files.size() != 1)
        run->runDir = inventory.folder();
    else if (!fileAlone)
        run->runDir = QDir(inventory.folder()).filePath(source.files.front());
    run->runName = runNameOf(inventory, source);
    ProgressAggregator aggregator(progress, std::max<qint64>(inventory.bytesToRead(), 1));

    // The torch JSON is usually the largest input; it gets its own thread, the two CSVs share
    // this one, so both cores are busy on a 2-core machine.
    // Each timeline is measured on the thread that parsed it, while the other still parses: a
    // million-kernel sweep then costs no wall time of its own.
    // The job is decided here, per side, before either timeline is measured: the chrome traces on
    // the torch thread, the kernel-trace files on this one; each writes only its own JobFacts.
    JobFacts torchJob, kernelJob;
    std::thread torchThread([&] {
        const ProgressCallback torchProgress = aggregator.forPart(1, QStringLiteral("Parsing the torch trace"));
        run->torch = parseTorchTrace(inventory, torchProgress);
        if (!aggregator.cancelled() && !run->torch.cancelled)
            separateUnrelatedTraces(*run, torchJob, inventory, torchProgress);
        if (!aggregator.cancelled() && !run->torch.cancelled) {
            run->torchTimeline = analyzeTimeline(run->torch.timeline);
            run->torchTimelineMeasured = true;
        }
    });
    const ProgressCallback kernelProgress = aggregator.forPart(0, QStringLiteral("Parsing the kernel trace"));
    run->kernels = parseKernelTraces(inventory, kernelProgress);
    std::optional<RunInventory> withoutSeparate;
    if (!aggregator.cancelled() && !run->kernels.cancelled)
        withoutSeparate = separateUnrelatedKernelFiles(*run, kernelJob, inventory, source.stepPattern, kernelProgress);
    const RunInventory &apiInventory = withoutSeparate ? *withoutSeparate : inventory;
    if (!aggregator.cancelled())
        run->smi = parseAmdSmi(inventory, aggregator.forPart(2, QStringLiteral("Parsing GPU telemetry")));
    // rocprofv3's roctx ranges and HIP calls give the kernel trace steps and host activity; before
    // its timeline is measured, so that the measurement uses them.
    if (!aggregator.cancelled() && !apiInventory.apiTraces().empty()) {
        // The window's reading also keeps the calls and ranges as the Timeline's host lanes.
        kernels::HostLanesBuilder lanes;
        const ApiTraces api = parseApiTraces(apiInventory, source.stepPattern,
                                             aggregator.forPart(3, QStringLiteral("Parsing API traces")),
                                             keepHostLanes() ? &lanes : nullptr);
        run->kernels.diagnostics.insert(run->kernels.diagnostics.end(), api.diagnostics.begin(),
                                        api.diagnostics.end());
        applyApiTraces(run->kernels.timeline, api, run->kernels.diagnostics);
        attachHostLanes(run->kernels.timeline, lanes, api.files, run->kernels.diagnostics);
    }
    // The same from the markers and runtime calls inside the kernel files (databases, JSON, pftrace).
    if (!aggregator.cancelled() && !run->kernels.host.empty()) {
        const ApiTraces api = apiTracesFrom(run->kernels.host, source.stepPattern);
        run->kernels.diagnostics.insert(run->kernels.diagnostics.end(), api.diagnostics.begin(),
                                        api.diagnostics.end());
        applyApiTraces(run->kernels.timeline, api, run->kernels.diagnostics);
    }
    if (!aggregator.cancelled())
        finishHostLanes(run->kernels.timeline, source.stepPattern);
    if (!aggregator.cancelled() && !run->kernels.cancelled) {
        run->kernelTimeline = analyzeTimeline(run->kernels.timeline);
        run->kernelTimelineMeasured = true;
    }
    torchThread.join();
    // One decision for the run: the side whose files were grouped; both sides' separate runs open.
    {
        JobFacts &job = run->facts.job;
        std::vector<SeparateRun> separate = torchJob.separate;
        separate.insert(separate.end(), kernelJob.separate.begin(), kernelJob.separate.end());
        QStringList sources;
        for (const JobFacts *side : {&torchJob, &kernelJob})
            if (!side->source.isEmpty())
                sources << side->source;
        job.source = sources.join(QStringLiteral("; "));
        job.separate = std::move(separate);
    }

    if (aggregator.cancelled() || run->kernels.cancelled || run->torch.cancelled || run->smi.cancelled) {
        result.outcome = LoadOutcome::Cancelled;
        return result;
    }
    if (!inventory.wholeFolder() && !inventory.rows().empty()) {
        QStringList opened;
        for (const InputRow &row : inventory.rows())
            opened << row.relativePath;
        run->kernels.diagnostics.insert(
            run->kernels.diagnostics.begin(),
            {Severity::Info, opened.front(), 0,
             QStringLiteral("%1 opened alone: the other files of %2 are not read (the reference reads a file only "
                            "under one of its three names: trace.csv, torch_profile.json, amd_smi.csv)")
                 .arg(opened.join(QStringLiteral(", ")), inventory.folder())});
    }
    // FIFOs, sockets and devices stay out of the walk of inputs (opened, they block or never end):
    // each is named, whatever its name, rather than silently passed over (the readers name those
    // they were meant to read).
    if (inventory.wholeFolder())
        for (const SpecialFile &special : specialFilesIn(QDir(inventory.folder())))
            if (const InputRow *row = inventory.find(special.relativePath); !row || !(row->read || row->referenceReads))
                run->kernels.diagnostics.push_back({Severity::Warning, special.relativePath, 0, special.problem});
    if (progress)
        progress(1.0, QStringLiteral("Computing the waste budget"));
    analyzeRun(*run);
    if (!readSomething(*run)) {
        result.error =
            QStringLiteral("%1: no input the workbench reads: %2").arg(given, whyNothingReadable(inventory, *run));
        result.unreadableRun = std::move(run);
        return result;
    }
    result.outcome = LoadOutcome::Finished;
    result.run = std::move(run);
    return result;
}

} // namespace goblin
