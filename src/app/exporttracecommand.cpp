#include "exporttracecommand.h"

#include "chrometraceexport.h"
#include "comparecommand.h"
#include "reportcommand.h"
#include "runanalysis.h"

#include <QCommandLineParser>
#include <QTextStream>
#include <tuple>

namespace goblin {

int runExportTraceCommand(const QStringList &arguments)
{
    const QString name = QStringLiteral("export-trace");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes one step of a run (or the whole run) as a Chrome trace (JSON) that Perfetto (ui.perfetto.dev) and "
        "chrome://tracing open: the GPU events (kernels, copies, memsets) of every device of the kernel trace and "
        "the torch trace(s) inside the step, one process per device and one thread per stream, and each trace "
        "file's step marks, CPU-op union and data-loading ranges. Names, times, process and thread only: no "
        "arguments, no metadata. ts is in microseconds from the first exported event of each source. Needs no "
        "display."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("RUN_DIR"), QStringLiteral("The run folder (or a file, read alone)."));
    parser.addOptions({
        {{QStringLiteral("o"), QStringLiteral("output")},
         QStringLiteral("Write the trace to FILE ('-' for standard output); never inside the run folder."),
         QStringLiteral("FILE")},
        {QStringLiteral("step"),
         QStringLiteral("Export step N only (0-based, in each device's step order: the Timeline view's sN). Without "
                        "it, the whole run."),
         QStringLiteral("N")},
        {QStringLiteral("steps"),
         QStringLiteral("Cut devices without step marks into N equal steps of their kernel span (as report --steps)."),
         QStringLiteral("N")},
    });
    if (!parser.parse(QStringList{QStringLiteral("goblin-workbench export-trace")} + arguments))
        return commandUsageError(name, parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << helpTextNamed(parser, QStringLiteral("goblin-workbench export-trace"));
        return CommandOk;
    }
    const QStringList dirs = parser.positionalArguments();
    if (const QString problem = oneRunDirProblem(dirs); !problem.isEmpty())
        return commandUsageError(name, problem);
    const QString output = parser.value(QStringLiteral("output"));
    if (output.isEmpty())
        return commandUsageError(name, QStringLiteral("missing -o FILE (the trace to write; '-' for standard output)"));
    ChromeTraceOptions options;
    for (const auto &[option, target, minimum] :
         {std::tuple{QStringLiteral("step"), &options.step, 0}, std::tuple{QStringLiteral("steps"), &options.equalSteps, 1}}) {
        if (!parser.isSet(option))
            continue;
        bool ok = false;
        const int value = parser.value(option).toInt(&ok);
        if (!ok || value < minimum)
            return commandUsageError(name, QStringLiteral("--%1 needs a whole number from %2, not '%3'")
                                               .arg(option)
                                               .arg(minimum)
                                               .arg(parser.value(option)));
        *target = value;
    }
    if (const QString problem = outputInsideRunFolderProblem(output, dirs); !problem.isEmpty())
        return commandUsageError(name, problem);

    const LoadResult loaded = loadRun(dirs.front());
    if (loaded.outcome != LoadOutcome::Finished || !loaded.run) {
        QTextStream(stderr) << "goblin-workbench export-trace: cannot read " << loaded.error << "\n";
        return CommandUnreadable;
    }
    const ChromeTraceExport trace = buildChromeTrace(*loaded.run, options);
    if (!trace.ok()) {
        QTextStream(stderr) << "goblin-workbench export-trace: " << trace.error << "\n";
        return CommandUnreadable;
    }
    QString error;
    if (!writeCommandOutput(trace.json, output, &error)) {
        QTextStream(stderr) << "goblin-workbench export-trace: cannot write the trace: " << error << "\n";
        return CommandUnreadable;
    }
    if (output != QLatin1String("-"))
        QTextStream(stderr) << "goblin-workbench export-trace: " << trace.sliceCount << " events (" << trace.gpuEventCount
                            << " GPU events of " << trace.deviceCount << " devices) written to " << output << "\n";
    return CommandOk;
}

} // namespace goblin
