#include "reportcommand.h"

#include "comparecommand.h"
#include "markdownreport.h"
#include "report.h"
#include "runanalysis.h"
#include "thresholds.h"

#ifdef GOBLIN_HAVE_GUI
#include "dashboardexport.h"
#endif

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTextStream>
#include <cmath>

namespace goblin {

namespace {

QTextStream &err()
{
    static QTextStream stream(stderr);
    return stream;
}

int usageError(const QString &message)
{
    err() << "goblin-workbench report: " << message << "\n"
          << "Try 'goblin-workbench report --help' for more information.\n";
    err().flush();
    return ReportUsageError;
}

/// Parses a finite number in the knob's range; on failure explains which option was wrong.
std::optional<double> numberOption(const QCommandLineParser &parser, const ThresholdDescriptor &d, QString *problem)
{
    const QString name = d.cliNameText();
    if (!parser.isSet(name))
        return std::nullopt;
    bool ok = false;
    const double value = parser.value(name).toDouble(&ok);
    if (!ok || !std::isfinite(value) || !d.contains(value)) {
        const QString unit = d.unitText().isEmpty() ? QString() : QLatin1Char(' ') + d.unitText();
        *problem = QStringLiteral("--%1 needs a number from %2 to %3%4, not '%5'")
                       .arg(name)
                       .arg(d.minimum)
                       .arg(d.maximum)
                       .arg(unit, parser.value(name));
        return std::nullopt;
    }
    return value;
}

/// Is `path` inside the run `folder` (for a file opened alone: inside the folder that holds it)?
bool isInside(const QString &path, const QString &folder)
{
    const QString file = QFileInfo(path).absoluteFilePath();
    const QFileInfo run(folder);
    const QString dir = run.exists() && !run.isDir() ? QFileInfo(run.absolutePath()).canonicalFilePath()
                                                     : QDir(folder).canonicalPath();
    const QString fileDir = QFileInfo(QFileInfo(file).absolutePath()).canonicalFilePath();
    return !dir.isEmpty() && (fileDir == dir || fileDir.startsWith(dir + QLatin1Char('/')));
}

void setUpParser(QCommandLineParser &parser)
{
    parser.setApplicationDescription(
        QStringLiteral("Computes the waste budget of a run folder (trace.csv, torch_profile.json, amd_smi.csv), "
                       "or of one file alone, and writes the report as JSON and/or PNG. Needs no display. Exits 1 "
                       "when RUN_DIR cannot be read or holds nothing the workbench reads."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("RUN_DIR"),
                                 QStringLiteral("The run folder to analyse, or a file (a chrome trace, a kernel trace, "
                                                "...) to analyse alone."));
    parser.addOptions({
        {QStringLiteral("json"), QStringLiteral("Write the JSON report to FILE ('-' for standard output; the default "
                                                "when no --png is given)."),
         QStringLiteral("FILE")},
        {QStringLiteral("png"), QStringLiteral("Render the dashboard image to FILE."), QStringLiteral("FILE")},
        {QStringLiteral("markdown"),
         QStringLiteral("Write a one-page Markdown summary to FILE ('-' for standard output): the headline, the "
                        "budget with each number's state, the first advice, top kernels and ops, the diagnostics "
                        "that matter; under 8 KB for any run."),
         QStringLiteral("FILE")},
        {QStringLiteral("step-ranges"),
         QStringLiteral("Which marker ranges are steps (roctx/NVTX ranges of a rocprofv3 marker trace, or inside an "
                        "rpd, rocpd, Nsight, rocprofv3 JSON or pftrace file): a regular expression matched "
                        "against the whole range name, case-insensitive (default: ProfilerStep#N, step N, "
                        "iteration N, train_step)."),
         QStringLiteral("REGEX")},
    });
    addThresholdOptions(parser);
}

} // namespace

void addThresholdOptions(QCommandLineParser &parser)
{
    parser.addOptions({
        {QStringLiteral("profile"), QStringLiteral("Heuristics profile: workbench (default) or reference."),
         QStringLiteral("workbench|reference"), QStringLiteral("workbench")},
        {QStringLiteral("precision"), QStringLiteral("Precision of the workload: none (default), fp32, fp16, bf16, fp8."),
         QStringLiteral("none|fp32|fp16|bf16|fp8"), QStringLiteral("none")},
        {QStringLiteral("steps"), QStringLiteral("Steps label of the report (reference: 10; workbench: the profiler "
                                                 "steps found, 10 if none). Enters no bucket."),
         QStringLiteral("N")},
    });
    for (const ThresholdDescriptor &d : thresholdDescriptors()) {
        const QString unit = d.unitText().isEmpty() ? QString() : QLatin1Char(' ') + d.unitText();
        parser.addOption({d.cliNameText(),
                          QStringLiteral("%1. %2 from %3 to %4%5, default %6.")
                              .arg(d.toolTipText(), QString::fromLatin1(d.cliValueName))
                              .arg(d.minimum)
                              .arg(d.maximum)
                              .arg(unit)
                              .arg(d.defaultValue()),
                          QString::fromLatin1(d.cliValueName)});
    }
}

QString helpTextNamed(const QCommandLineParser &parser, const QString &usageName)
{
    QString text = parser.helpText();
    const QStringList arguments = QCoreApplication::arguments();
    const QString prefix = QStringLiteral("Usage: ");
    if (!arguments.isEmpty() && text.startsWith(prefix + arguments.constFirst()))
        text.replace(prefix.size(), arguments.constFirst().size(), usageName);
    return text;
}

bool thresholdsFromOptions(const QCommandLineParser &parser, HeuristicsProfile *profile, Thresholds *thresholds,
                           QString *problem)
{
    const auto fail = [](QString *out, const QString &message) {
        *out = message;
        return false;
    };
    problem->clear();
    const auto profileChoice = profileFromName(parser.value(QStringLiteral("profile")));
    if (!profileChoice)
        return fail(problem, QStringLiteral("--profile must be workbench or reference, not '%1'")
                              .arg(parser.value(QStringLiteral("profile"))));
    const auto precision = precisionFromName(parser.value(QStringLiteral("precision")));
    if (!precision)
        return fail(problem, QStringLiteral("--precision must be none, fp32, fp16, bf16 or fp8, not '%1'")
                              .arg(parser.value(QStringLiteral("precision"))));
    thresholds->precision = *precision;
    if (parser.isSet(QStringLiteral("steps"))) {
        bool ok = false;
        const int steps = parser.value(QStringLiteral("steps")).toInt(&ok);
        if (!ok || steps < 1)
            return fail(problem, QStringLiteral("--steps needs a whole number of at least 1, not '%1'")
                                  .arg(parser.value(QStringLiteral("steps"))));
        thresholds->steps = steps;
    }
    for (const ThresholdDescriptor &d : thresholdDescriptors()) {
        if (auto v = numberOption(parser, d, problem))
            thresholds->*(d.member) = *v;
        else if (!problem->isEmpty())
            return false;
    }

    *profile = *profileChoice;
    return true;
}

bool reportNeedsGui(const QStringList &arguments)
{
    for (const QString &a : arguments)
        if (a == QLatin1String("--png") || a.startsWith(QLatin1String("--png=")))
            return true;
    return false;
}

int runReportCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    setUpParser(parser);
    if (!parser.parse(QStringList{QStringLiteral("goblin-workbench report")} + arguments))
        return usageError(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << helpTextNamed(parser, QStringLiteral("goblin-workbench report"));
        return ReportOk;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return usageError(QStringLiteral("missing RUN_DIR"));
    if (positional.size() > 1)
        return usageError(QStringLiteral("one RUN_DIR only, got %1").arg(positional.size()));
    const QString runDir = positional.front();

    HeuristicsProfile profile = HeuristicsProfile::Workbench;
    Thresholds thresholds;
    QString problem;
    if (!thresholdsFromOptions(parser, &profile, &thresholds, &problem))
        return usageError(problem);

    QString jsonPath = parser.value(QStringLiteral("json"));
    const QString pngPath = parser.value(QStringLiteral("png"));
    const QString markdownPath = parser.value(QStringLiteral("markdown"));
    if (jsonPath.isEmpty() && pngPath.isEmpty() && markdownPath.isEmpty())
        jsonPath = QStringLiteral("-");
    if (jsonPath == QLatin1String("-") && markdownPath == QLatin1String("-"))
        return usageError(QStringLiteral("--json - and --markdown - both ask for standard output; give one a FILE"));
#ifndef GOBLIN_HAVE_GUI
    if (!pngPath.isEmpty())
        return usageError(QStringLiteral("--png is not available: this build has no GUI libraries"));
#endif
    for (const QString &out : {jsonPath, pngPath, markdownPath})
        if (!out.isEmpty() && out != QLatin1String("-") && isInside(out, runDir))
            return usageError(QStringLiteral("'%1' is inside the run folder; the workbench never writes into a run "
                                             "folder, choose another place")
                                  .arg(out));

    const LoadResult loaded = loadRun(RunSource{runDir, {}, parser.value(QStringLiteral("step-ranges"))});
    if (loaded.outcome != LoadOutcome::Finished || !loaded.run) {
        err() << "goblin-workbench report: cannot read " << loaded.error << "\n";
        err().flush();
        return ReportRunDirUnreadable;
    }

    const Derived derived = deriveResults(*loaded.run, profile, thresholds);  // once, for JSON and PNG
    const QJsonObject report = buildReport(*loaded.run, derived);
    QString error;
    if (!jsonPath.isEmpty() && !writeReportJson(report, jsonPath, &error)) {
        err() << "goblin-workbench report: cannot write the JSON report: " << error << "\n";
        err().flush();
        return ReportRunDirUnreadable;
    }
    if (!markdownPath.isEmpty() && !writeCommandOutput(markdownSummary(report), markdownPath, &error)) {
        err() << "goblin-workbench report: cannot write the Markdown summary: " << error << "\n";
        err().flush();
        return ReportRunDirUnreadable;
    }
#ifdef GOBLIN_HAVE_GUI
    if (!pngPath.isEmpty() && !renderDashboardPng(*loaded.run, derived, pngPath, &error)) {
        err() << "goblin-workbench report: cannot write the PNG report: " << error << "\n";
        err().flush();
        return ReportRunDirUnreadable;
    }
#endif
    return ReportOk;
}

} // namespace goblin
