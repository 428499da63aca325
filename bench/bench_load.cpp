// Phase timings of loading a run folder: each parser alone, the analysis, and the concurrent
// loadRun() the app uses, with wall time, CPU time, throughput and peak RSS. For finding which
// part of a load is slow or memory-hungry (bench/bench.py measures the whole `report` command).
//
//   goblin-bench-load RUN_DIR [--phase all|kernels|torch|smi|load] [--repeat N]
//
// --phase kernels|torch|smi runs one parser alone, so the process's peak RSS (printed, VmHWM)
// is that parser's; `all` runs the three one after the other, then analyzeRun(), then loadRun();
// `load` only loadRun(). Nothing is asserted.

#include "amdsmiparser.h"
#include "kerneltraceparser.h"
#include "runanalysis.h"
#include "torchtraceparser.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTextStream>
#include <sys/resource.h>

namespace
{

QTextStream &out()
{
    static QTextStream s(stdout);
    return s;
}

double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto secs = [](const timeval &tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; };
    return secs(usage.ru_utime) + secs(usage.ru_stime);
}

/// Peak and current resident set size (MB) from /proc/self/status.
std::pair<double, double> rssMb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    double hwm = -1, rss = -1;
    if (status.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> lines = status.readAll().split('\n');
        for (const QByteArray &line : lines) {
            const QList<QByteArray> parts = line.simplified().split(' ');
            if (parts.size() >= 2 && parts[0] == "VmHWM:")
                hwm = parts[1].toDouble() / 1024.0;
            if (parts.size() >= 2 && parts[0] == "VmRSS:")
                rss = parts[1].toDouble() / 1024.0;
        }
    }
    return {hwm, rss};
}

qint64 bytesOf(const QString &path)
{
    return QFileInfo(path).isFile() ? QFileInfo(path).size() : 0;
}

template <typename F> void phase(const QString &name, qint64 bytes, F &&body)
{
    QElapsedTimer timer;
    const double cpu0 = cpuSeconds();
    timer.start();
    const QString detail = body();
    const double wall = double(timer.nsecsElapsed()) / 1e9;
    const double cpu = cpuSeconds() - cpu0;
    const auto [hwm, rss] = rssMb();
    out() << QStringLiteral("%1  wall %2 s  cpu %3 s (%4 cores)  %5  peak RSS so far %6 MB, now %7 MB  %8\n")
                 .arg(name, -14)
                 .arg(wall, 7, 'f', 3)
                 .arg(cpu, 7, 'f', 3)
                 .arg(wall > 0 ? cpu / wall : 0.0, 4, 'f', 2)
                 .arg(bytes > 0 ? QStringLiteral("%1 MB/s").arg(double(bytes) / 1e6 / wall, 7, 'f', 1)
                                : QStringLiteral("          "))
                 .arg(hwm, 0, 'f', 0)
                 .arg(rss, 0, 'f', 0)
                 .arg(detail);
    out().flush();
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments().mid(1);
    QString runDir, which = QStringLiteral("all");
    int repeat = 1;
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--phase") && i + 1 < args.size())
            which = args[++i];
        else if (args[i] == QLatin1String("--repeat") && i + 1 < args.size())
            repeat = std::max(1, args[++i].toInt());
        else if (!args[i].startsWith(QLatin1Char('-')) && runDir.isEmpty())
            runDir = args[i];
        else
            runDir.clear(), i = int(args.size());
    }
    static const QStringList phases = {QStringLiteral("all"), QStringLiteral("kernels"), QStringLiteral("torch"),
                                       QStringLiteral("smi"), QStringLiteral("load")};
    if (runDir.isEmpty() || !phases.contains(which)) {
        QTextStream(stderr) << "usage: goblin-bench-load RUN_DIR [--phase all|kernels|torch|smi|load] [--repeat N]\n";
        return 2;
    }
    const QDir dir(runDir);
    const qint64 traceBytes = bytesOf(dir.filePath(QStringLiteral("trace.csv")));
    const qint64 torchBytes = bytesOf(dir.filePath(QStringLiteral("torch_profile.json")));
    const qint64 smiBytes = bytesOf(dir.filePath(QStringLiteral("amd_smi.csv")));
    out() << "run: " << QDir(runDir).absolutePath() << "  trace.csv " << traceBytes / 1000000
          << " MB, torch_profile.json " << torchBytes / 1000000 << " MB, amd_smi.csv " << smiBytes / 1000 << " kB\n";

    for (int r = 0; r < repeat; ++r) {
        if (which == QLatin1String("all") || which == QLatin1String("kernels") || which == QLatin1String("torch") ||
            which == QLatin1String("smi")) {
            goblin::RunAnalysis run;
            run.runDir = run.runDirAsGiven = QDir(runDir).absolutePath();
            if (which == QLatin1String("all") || which == QLatin1String("kernels"))
                phase(QStringLiteral("kernel trace"), traceBytes, [&] {
                    run.kernels = goblin::parseKernelTraces(runDir);
                    return QStringLiteral("%1 rows, %2 names")
                        .arg(run.kernels.workbench.rowsUsed)
                        .arg(run.kernels.names.size());
                });
            if (which == QLatin1String("all") || which == QLatin1String("torch"))
                phase(QStringLiteral("torch trace"), torchBytes, [&] {
                    run.torch = goblin::parseTorchTrace(runDir);
                    return QStringLiteral("%1 events").arg(run.torch.eventCount);
                });
            if (which == QLatin1String("all") || which == QLatin1String("smi"))
                phase(QStringLiteral("amd-smi"), smiBytes, [&] {
                    run.smi = goblin::parseAmdSmi(runDir);
                    return QStringLiteral("%1 samples").arg(run.smi.samples.size());
                });
            if (which == QLatin1String("all"))
                phase(QStringLiteral("analyzeRun"), 0, [&] {
                    goblin::analyzeRun(run);
                    return QStringLiteral("%1 diagnostics").arg(run.diagnostics.size());
                });
        }
        if (which == QLatin1String("all") || which == QLatin1String("load"))
            phase(QStringLiteral("loadRun"), traceBytes + torchBytes + smiBytes, [&] {
                const goblin::LoadResult result = goblin::loadRun(runDir);
                return result.outcome == goblin::LoadOutcome::Finished
                           ? QStringLiteral("(concurrent, as the app loads)")
                           : QStringLiteral("FAILED: %1").arg(result.error);
            });
    }
    return 0;
}
