#include "tablecommand.h"

#include "comparecommand.h"
#include "compare.h"
#include "report.h"
#include "reportcommand.h"

#include <QCommandLineParser>
#include <QTextStream>
#include <atomic>
#include <thread>
#include <vector>

namespace goblin {

namespace {

/// At most this many runs are loaded at once (one per worker thread).
constexpr int kTableWorkers = 2;

struct TableResult {
    QStringList row;
    QString error;  ///< set when the folder could not be read
};

} // namespace

int runTableCommand(const QStringList &arguments)
{
    const QString name = QStringLiteral("table");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes one CSV row per run folder: the seven waste buckets and the unattributed rest (s/step), GPU "
        "utilisation, step time, top kernel and the number of diagnostics; a value nothing measured is written '—', "
        "never 0. Loads two runs at a time."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("RUN_DIR"), QStringLiteral("Run folders (or files, each read alone)."),
                                 QStringLiteral("DIR..."));
    parser.addOption({QStringLiteral("csv"), QStringLiteral("Write the table to FILE ('-' for standard output, the "
                                                            "default)."),
                      QStringLiteral("FILE"), QStringLiteral("-")});
    addThresholdOptions(parser);
    if (!parser.parse(QStringList{QStringLiteral("goblin-workbench table")} + arguments))
        return commandUsageError(name, parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << helpTextNamed(parser, QStringLiteral("goblin-workbench table"));
        return CommandOk;
    }
    const QStringList dirs = parser.positionalArguments();
    if (dirs.isEmpty())
        return commandUsageError(name, QStringLiteral("missing RUN_DIR"));
    HeuristicsProfile profile = HeuristicsProfile::Workbench;
    Thresholds thresholds;
    QString problem;
    if (!thresholdsFromOptions(parser, &profile, &thresholds, &problem))
        return commandUsageError(name, problem);
    const QString csvPath = parser.value(QStringLiteral("csv"));
    if (const QString problem = outputInsideRunFolderProblem(csvPath, dirs); !problem.isEmpty())
        return commandUsageError(name, problem);

    std::vector<TableResult> results(std::size_t(dirs.size()));
    std::atomic<qsizetype> next{0};
    const auto work = [&] {
        for (qsizetype i = next++; i < dirs.size(); i = next++) {
            const LoadResult loaded = loadRun(dirs.at(i));
            if (loaded.outcome != LoadOutcome::Finished || !loaded.run)
                results[std::size_t(i)].error = loaded.error;
            else
                results[std::size_t(i)].row = tableRow(buildReport(*loaded.run, profile, thresholds));
        }  // the run is released here, before the next one is loaded
    };
    std::vector<std::thread> workers;
    for (int w = 0; w < kTableWorkers && w < dirs.size(); ++w)
        workers.emplace_back(work);
    for (std::thread &t : workers)
        t.join();

    QByteArray csv = csvLine(tableHeader()).toUtf8() + '\n';
    bool anyFailed = false;
    for (const TableResult &r : results) {
        if (!r.error.isEmpty()) {
            QTextStream(stderr) << "goblin-workbench table: cannot read " << r.error << "\n";
            anyFailed = true;
            continue;
        }
        csv += csvLine(r.row).toUtf8() + '\n';
    }
    QString error;
    if (!writeCommandOutput(csv, csvPath, &error)) {
        QTextStream(stderr) << "goblin-workbench table: cannot write the CSV: " << error << "\n";
        return CommandUnreadable;
    }
    return anyFailed ? CommandUnreadable : CommandOk;
}

} // namespace goblin
