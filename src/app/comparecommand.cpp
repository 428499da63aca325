#include "comparecommand.h"

#include "commandline.h"
#include "compare.h"
#include "regressiongate.h"
#include "reportcommand.h"

#ifdef GOBLIN_HAVE_GUI
#include "compareplot.h"
#endif

#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QTextStream>
#include <atomic>
#include <thread>

namespace goblin {

namespace {

/// At most this many runs are loaded at once (one per worker thread).
constexpr int kCompareWorkers = 2;

} // namespace

int commandUsageError(const QString &command, const QString &message)
{
    QTextStream err(stderr);
    err << "goblin-workbench " << command << ": " << message << "\n"
        << "Try 'goblin-workbench " << command << " --help' for more information.\n";
    return CommandUsageError;
}

bool writeCommandOutput(const QByteArray &bytes, const QString &path, QString *error)
{
    if (path == QLatin1String("-")) {
        QFile out;
        if (!out.open(stdout, QIODevice::WriteOnly) || out.write(bytes) != bytes.size()) {
            *error = QStringLiteral("cannot write to standard output");
            return false;
        }
        out.flush();
        return true;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

QString runDirContaining(const QString &outputPath, const QStringList &runDirs)
{
    if (outputPath.isEmpty() || outputPath == QLatin1String("-"))
        return {};
    const QString fileDir = QFileInfo(QFileInfo(QFileInfo(outputPath).absoluteFilePath()).absolutePath())
                                .canonicalFilePath();
    for (const QString &runDir : runDirs) {
        // A file opened alone: its run folder is the one that holds it.
        const QFileInfo run(runDir);
        const QString dir = run.exists() && !run.isDir() ? QFileInfo(run.absolutePath()).canonicalFilePath()
                                                         : QDir(runDir).canonicalPath();
        if (!dir.isEmpty() && (fileDir == dir || fileDir.startsWith(dir + QLatin1Char('/'))))
            return runDir;
    }
    return {};
}

QString outputInsideRunFolderProblem(const QString &outputPath, const QStringList &runDirs)
{
    const QString inside = runDirContaining(outputPath, runDirs);
    if (inside.isEmpty())
        return {};
    return QStringLiteral("'%1' is inside the run folder '%2'; the workbench never writes into a run folder, choose "
                          "another place")
        .arg(outputPath, inside);
}

QString oneRunDirProblem(const QStringList &dirs)
{
    if (dirs.isEmpty())
        return QStringLiteral("missing RUN_DIR");
    if (dirs.size() > 1)
        return QStringLiteral("one RUN_DIR only, got %1").arg(dirs.size());
    return {};
}

QString absoluteRunDir(const QString &dir)
{
    return QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
}

int runCompareCommand(const QStringList &arguments)
{
    const QString name = QStringLiteral("compare");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Compares two or more run folders under one set of thresholds: waste-budget deltas (seconds per step and "
        "share of step) and top-kernel changes (new, gone, faster, slower) against a baseline run. Writes JSON "
        "and/or a PNG of the delta bars and tables. Needs no display."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("RUN_DIR"),
                                 QStringLiteral("Two or more run folders (or files, each read alone)."),
                                 QStringLiteral("A B [C...]"));
    parser.addOptions({
        {QStringLiteral("json"), QStringLiteral("Write the comparison to FILE ('-' for standard output; the default "
                                                "when no --png is given)."),
         QStringLiteral("FILE")},
        {QStringLiteral("png"), QStringLiteral("Render the comparison (delta bars, telemetry, kernel changes and the "
                                               "command) to FILE."),
         QStringLiteral("FILE")},
        {QStringLiteral("baseline"), QStringLiteral("Index of the baseline run among the RUN_DIRs (default 0, the first)."),
         QStringLiteral("N"), QStringLiteral("0")},
        {QStringLiteral("fail-if"),
         QStringLiteral("Regression gate (repeatable): METRIC>+X% fails when METRIC rose by more than X % of the "
                        "baseline's value, METRIC<-X% when it fell; METRIC is a budget bucket (useful_gpu, data_wait, "
                        "host_gap, collective_comm, memory_headroom, precision_path, kernel_shape, unattributed), "
                        "step_time or gpu_util. A change within the run-to-run noise of the steps is not a "
                        "regression; runs that are not comparable (GPU model, op set, step plan) are not judged. "
                        "Exit 3 on a regression; the verdict is under \"gate\" in the JSON and on stderr."),
         QStringLiteral("RULE")},
    });
    addThresholdOptions(parser);
    if (!parser.parse(QStringList{QStringLiteral("goblin-workbench compare")} + arguments))
        return commandUsageError(name, parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << helpTextNamed(parser, QStringLiteral("goblin-workbench compare"));
        return CommandOk;
    }
    const QStringList dirs = parser.positionalArguments();
    if (dirs.size() < 2)
        return commandUsageError(name, QStringLiteral("needs at least two RUN_DIRs, got %1").arg(dirs.size()));
    bool ok = false;
    const int baseline = parser.value(QStringLiteral("baseline")).toInt(&ok);
    if (!ok || baseline < 0 || baseline >= dirs.size())
        return commandUsageError(name, QStringLiteral("--baseline needs a run index from 0 to %1, not '%2'")
                                           .arg(dirs.size() - 1)
                                           .arg(parser.value(QStringLiteral("baseline"))));
    HeuristicsProfile profile = HeuristicsProfile::Workbench;
    Thresholds thresholds;
    QString problem;
    if (!thresholdsFromOptions(parser, &profile, &thresholds, &problem))
        return commandUsageError(name, problem);
    std::vector<FailIfRule> rules;
    for (const QString &text : parser.values(QStringLiteral("fail-if"))) {
        const std::optional<FailIfRule> rule = parseFailIfRule(text, &problem);
        if (!rule)
            return commandUsageError(name, problem);
        rules.push_back(*rule);
    }
    QString jsonPath = parser.value(QStringLiteral("json"));
    const QString pngPath = parser.value(QStringLiteral("png"));
    if (jsonPath.isEmpty() && pngPath.isEmpty())
        jsonPath = QStringLiteral("-");
#ifndef GOBLIN_HAVE_GUI
    if (!pngPath.isEmpty())
        return commandUsageError(name, QStringLiteral("--png is not available: this build has no GUI libraries"));
#endif
    if (pngPath == QLatin1String("-"))
        return commandUsageError(name, QStringLiteral("--png needs a file name, not '-'"));
    for (const QString &out : {jsonPath, pngPath})
        if (const QString problem = outputInsideRunFolderProblem(out, dirs); !problem.isEmpty())
            return commandUsageError(name, problem);

    // Two runs load at once, one per core, as `table` does: a load keeps one core busy for most
    // of its time, so two 1 GB runs take about the wall time of one (docs/performance.md).
    std::vector<LoadResult> results(std::size_t(dirs.size()));
    std::atomic<qsizetype> next{0};
    const auto work = [&] {
        for (qsizetype i = next++; i < dirs.size(); i = next++)
            results[std::size_t(i)] = loadRun(dirs.at(i));
    };
    std::vector<std::thread> workers;
    for (int w = 0; w < kCompareWorkers && w < dirs.size(); ++w)
        workers.emplace_back(work);
    for (std::thread &t : workers)
        t.join();
    std::vector<std::shared_ptr<const RunAnalysis>> loaded;
    bool anyFailed = false;
    for (const LoadResult &r : results) {
        if (r.outcome != LoadOutcome::Finished || !r.run) {
            QTextStream(stderr) << "goblin-workbench compare: cannot read " << r.error << "\n";
            anyFailed = true;
            continue;
        }
        loaded.push_back(r.run);
    }
    if (anyFailed)
        return CommandUnreadable;

    std::vector<const RunAnalysis *> runs;
    QStringList absolute;
    for (std::size_t i = 0; i < loaded.size(); ++i) {
        runs.push_back(loaded[i].get());
        absolute << absoluteRunDir(dirs.at(qsizetype(i)));
    }
    const QStringList command = reproducingCommand(name, absolute, profile, thresholds,
                                                   {QStringLiteral("--baseline"), QString::number(baseline)});
    QJsonObject out = compareRuns(runs, profile, thresholds, baseline, command);
    bool regression = false;
    if (!rules.empty()) {
        // Each run against the baseline, judged on the reports the comparison holds.
        const QJsonArray reports = out[QLatin1String("runs")].toArray();
        const QJsonObject base = reports.at(baseline).toObject();
        const auto runName = [](const QJsonObject &report) {
            return report[QLatin1String("run")][QLatin1String("name")].toString();
        };
        QJsonArray gates;
        bool judgedAll = true;
        for (qsizetype i = 0; i < reports.size(); ++i) {
            if (i == baseline)
                continue;
            const QJsonObject report = reports.at(i).toObject();
            QJsonObject gate = judgeRegression(base, report, rules);
            gate[QLatin1String("run")] = int(i);
            regression = regression || gate[QLatin1String("verdict")].toString() == QLatin1String("regression");
            judgedAll = judgedAll && gate[QLatin1String("verdict")].toString() != QLatin1String("not_comparable");
            for (const QString &line : regressionSummary(gate, runName(base), runName(report)).split(QLatin1Char('\n')))
                QTextStream(stderr) << "goblin-workbench compare: " << line << "\n";
            gates.append(gate);
        }
        out[QLatin1String("gate")] = QJsonObject{
            {QStringLiteral("verdict"), regression   ? QStringLiteral("regression")
                                        : judgedAll ? QStringLiteral("pass")
                                                    : QStringLiteral("not_comparable")},
            {QStringLiteral("runs"), gates}};
    }
    QString error;
    if (!jsonPath.isEmpty() && !writeCommandOutput(QJsonDocument(out).toJson(QJsonDocument::Indented), jsonPath, &error)) {
        QTextStream(stderr) << "goblin-workbench compare: cannot write the JSON: " << error << "\n";
        return CommandUnreadable;
    }
#ifdef GOBLIN_HAVE_GUI
    if (!pngPath.isEmpty() && !renderComparePng(out, pngPath, &error)) {
        QTextStream(stderr) << "goblin-workbench compare: cannot write the PNG: " << error << "\n";
        return CommandUnreadable;
    }
#endif
    return regression ? CommandRegression : CommandOk;
}

} // namespace goblin
