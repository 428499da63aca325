// Loads a run folder: the three parsers run concurrently (the CSVs and the JSON on different
// cores), then the analysis is derived once.

#include "runanalysis.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFileInfo>
#include <atomic>
#include <mutex>
#include <thread>

namespace goblin {

namespace {

/// Bytes the parsers will probably read, for a progress fraction (an estimate: the parsers
/// decide themselves which alternative files they read).
qint64 estimateInputBytes(const QString &runDir)
{
    QDir dir(runDir);
    qint64 total = 0;
    auto add = [&](const QString &name) {
        QFileInfo fi(dir.filePath(name));
        if (fi.isFile())
            total += fi.size();
        return fi.isFile();
    };
    if (!add(QStringLiteral("trace.csv"))) {
        // Per-process CSVs, else rocpd databases (read when there is no CSV trace at all).
        for (const QString &pattern : {QStringLiteral("*_kernel_trace.csv"), QStringLiteral("*.db")}) {
            const qint64 before = total;
            QDirIterator it(runDir, {pattern}, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                it.next();
                total += it.fileInfo().size();
            }
            if (total > before)
                break;
        }
    }
    if (!add(QStringLiteral("torch_profile.json")) && !add(QStringLiteral("torch_profile.json.gz"))) {
        const QStringList traces = dir.entryList({QStringLiteral("*.pt.trace.json"), QStringLiteral("*.pt.trace.json.gz")},
                                                 QDir::Files, QDir::Size);
        if (!traces.isEmpty())
            add(traces.front());
    }
    add(QStringLiteral("amd_smi.csv"));
    return std::max<qint64>(total, 1);
}

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
        const qint64 done = m_done[0].load() + m_done[1].load() + m_done[2].load();
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
    std::atomic<qint64> m_done[3] = {0, 0, 0};
    std::atomic<bool> m_cancelled{false};
    std::mutex m_mutex;
    QElapsedTimer m_timer;
    double m_lastFraction = -1.0;
    qint64 m_lastReportMs = -1000;
};

} // namespace

LoadResult loadRun(const QString &runDirAsGiven, const LoadProgressCallback &progress)
{
    LoadResult result;
    const QFileInfo info(runDirAsGiven);
    if (!info.exists()) {
        result.error = QStringLiteral("%1: no such folder").arg(runDirAsGiven);
        return result;
    }
    if (!info.isDir()) {
        result.error = QStringLiteral("%1: not a folder (open the run folder that holds trace.csv, "
                                      "torch_profile.json and amd_smi.csv)")
                           .arg(runDirAsGiven);
        return result;
    }
    if (!info.isReadable() || !info.isExecutable()) {
        result.error = QStringLiteral("%1: permission denied").arg(runDirAsGiven);
        return result;
    }
    const QString runDir = info.absoluteFilePath();

    auto run = std::make_shared<RunAnalysis>();
    run->runDir = runDir;
    run->runDirAsGiven = runDirAsGiven;
    run->runName = QDir(runDir).dirName();

    if (progress && !progress(-1.0, QStringLiteral("Reading %1").arg(run->runName))) {
        result.outcome = LoadOutcome::Cancelled;
        return result;
    }
    ProgressAggregator aggregator(progress, estimateInputBytes(runDir));

    // The torch JSON is usually the largest input; it gets its own thread, the two CSVs share
    // this one, so both cores are busy on a 2-core machine.
    // Each timeline is measured on the thread that parsed it, while the other still parses: a
    // million-kernel sweep then costs no wall time of its own.
    std::thread torchThread([&] {
        run->torch = parseTorchTrace(runDir, aggregator.forPart(1, QStringLiteral("Parsing the torch trace")));
        if (!aggregator.cancelled() && !run->torch.cancelled) {
            run->torchTimeline = analyzeTimeline(run->torch.timeline);
            run->torchTimelineMeasured = true;
        }
    });
    run->kernels = parseKernelTraces(runDir, aggregator.forPart(0, QStringLiteral("Parsing the kernel trace")));
    if (!aggregator.cancelled())
        run->smi = parseAmdSmi(runDir, aggregator.forPart(2, QStringLiteral("Parsing amd-smi telemetry")));
    if (!aggregator.cancelled() && !run->kernels.cancelled) {
        run->kernelTimeline = analyzeTimeline(run->kernels.timeline);
        run->kernelTimelineMeasured = true;
    }
    torchThread.join();

    if (aggregator.cancelled() || run->kernels.cancelled || run->torch.cancelled || run->smi.cancelled) {
        result.outcome = LoadOutcome::Cancelled;
        return result;
    }
    if (progress)
        progress(1.0, QStringLiteral("Computing the waste budget"));
    analyzeRun(*run);
    result.outcome = LoadOutcome::Finished;
    result.run = std::move(run);
    return result;
}

} // namespace goblin
