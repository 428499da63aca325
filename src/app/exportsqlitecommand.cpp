#include "exportsqlitecommand.h"

#include "comparecommand.h"
#include "derived.h"
#include "report.h"
#include "reportcommand.h"
#include "runanalysis.h"
#include "sqliteexport.h"

#include <QCommandLineParser>
#include <QTextStream>

namespace goblin {

int runExportSqliteCommand(const QStringList &arguments)
{
    const QString name = QStringLiteral("export-sqlite");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes a run as one SQLite database: runs, facts, devices, quantities, steps, the budget per step and "
        "bucket, kernels, ops, modules, the timeline per device and step, telemetry samples, collectives and "
        "diagnostics, with its schema version in schema_version (docs/sqlite-export.md). Written atomically; the "
        "numbers are the report's under the thresholds given. Needs no display."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("RUN_DIR"), QStringLiteral("The run folder (or a file, read alone)."));
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                      QStringLiteral("The database to write (replaced when it exists); never inside the run folder."),
                      QStringLiteral("FILE")});
    addThresholdOptions(parser);
    if (!parser.parse(QStringList{QStringLiteral("goblin-workbench export-sqlite")} + arguments))
        return commandUsageError(name, parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << helpTextNamed(parser, QStringLiteral("goblin-workbench export-sqlite"));
        return CommandOk;
    }
    const QStringList dirs = parser.positionalArguments();
    if (const QString problem = oneRunDirProblem(dirs); !problem.isEmpty())
        return commandUsageError(name, problem);
    const QString output = parser.value(QStringLiteral("output"));
    if (output.isEmpty() || output == QLatin1String("-"))
        return commandUsageError(name, QStringLiteral("needs -o FILE (a database file; not standard output)"));
    HeuristicsProfile profile = HeuristicsProfile::Workbench;
    Thresholds thresholds;
    QString problem;
    if (!thresholdsFromOptions(parser, &profile, &thresholds, &problem))
        return commandUsageError(name, problem);
    if (const QString problem = outputInsideRunFolderProblem(output, dirs); !problem.isEmpty())
        return commandUsageError(name, problem);

    const LoadResult loaded = loadRun(dirs.front());
    if (loaded.outcome != LoadOutcome::Finished || !loaded.run) {
        QTextStream(stderr) << "goblin-workbench export-sqlite: cannot read " << loaded.error << "\n";
        return CommandUnreadable;
    }
    const QJsonObject report = buildReport(*loaded.run, deriveResults(*loaded.run, profile, thresholds));
    QString error;
    SqliteExportCounts n;
    if (!writeSqliteExport(*loaded.run, report, output, &error, &n)) {
        QTextStream(stderr) << "goblin-workbench export-sqlite: cannot write the database: " << error << "\n";
        return CommandUnreadable;
    }
    QTextStream(stderr) << "goblin-workbench export-sqlite: wrote " << output << ": " << n.steps << " steps, " << n.kernels
                        << " kernels, " << n.ops << " ops, " << n.modules << " modules, " << n.timelineRows
                        << " timeline rows, " << n.telemetrySamples << " telemetry samples, " << n.collectives
                        << " collectives, " << n.diagnostics << " diagnostics\n";
    return CommandOk;
}

} // namespace goblin
