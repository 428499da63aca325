#include "sweepcommand.h"

#include "commandline.h"
#include "comparecommand.h"
#include "reportcommand.h"
#include "sweepjson.h"
#include "thresholds.h"

#ifdef GOBLIN_HAVE_GUI
#include "sweepchart.h"
#endif

#include <QCommandLineParser>
#include <QJsonDocument>
#include <QTextStream>
#include <cmath>

namespace goblin {

int runSweepCommand(const QStringList &arguments)
{
    const QString name = QStringLiteral("sweep");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Sweeps one threshold over a range and writes each waste bucket at every value (exactly what 'report' gives "
        "at that value), and where each bucket switches on or off, as JSON, CSV and/or a PNG chart. Needs no display."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("RUN_DIR"),
                                 QStringLiteral("The run folder (or a file, read alone) to analyse."));
    parser.addOptions({
        {QStringLiteral("threshold"), QStringLiteral("The threshold to sweep: gpu-util-below, host-busy-above or hbm-target."),
         QStringLiteral("NAME")},
        {QStringLiteral("from"), QStringLiteral("First value."), QStringLiteral("A")},
        {QStringLiteral("to"), QStringLiteral("Last value (included when the steps reach it)."), QStringLiteral("B")},
        {QStringLiteral("by"), QStringLiteral("Step between values (> 0)."), QStringLiteral("S")},
        {QStringLiteral("json"), QStringLiteral("Write the sweep as JSON to FILE ('-' for standard output; the default "
                                                "when neither --csv nor --png is given)."),
         QStringLiteral("FILE")},
        {QStringLiteral("csv"), QStringLiteral("Write the sweep as CSV to FILE ('-' for standard output)."),
         QStringLiteral("FILE")},
        {QStringLiteral("png"), QStringLiteral("Render the sweep chart (the threshold's current value and the switch "
                                               "points marked, the command in small print) to FILE."),
         QStringLiteral("FILE")},
    });
    addThresholdOptions(parser);
    if (!parser.parse(QStringList{QStringLiteral("goblin-workbench sweep")} + arguments))
        return commandUsageError(name, parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << helpTextNamed(parser, QStringLiteral("goblin-workbench sweep"));
        return CommandOk;
    }
    const QStringList dirs = parser.positionalArguments();
    if (dirs.size() != 1)
        return commandUsageError(name, QStringLiteral("needs exactly one RUN_DIR, got %1").arg(dirs.size()));
    const auto which = sweepThresholdFromName(parser.value(QStringLiteral("threshold")));
    if (!which)
        return commandUsageError(name, QStringLiteral("--threshold must be gpu-util-below, host-busy-above or "
                                                      "hbm-target, not '%1'")
                                           .arg(parser.value(QStringLiteral("threshold"))));
    double minimum = 0, maximum = 0;
    sweepThresholdRange(*which, &minimum, &maximum);
    double range[3] = {0, 0, 0};
    const char *rangeNames[3] = {"from", "to", "by"};
    for (int i = 0; i < 3; ++i) {
        const QString option = QString::fromLatin1(rangeNames[i]);
        bool ok = false;
        range[i] = parser.value(option).toDouble(&ok);
        const bool inRange = i == 2 ? range[i] > 0.0 : (range[i] >= minimum && range[i] <= maximum);
        if (!parser.isSet(option) || !ok || !std::isfinite(range[i]) || !inRange)
            return commandUsageError(name, i == 2 ? QStringLiteral("--by needs a number above 0, not '%1'")
                                                        .arg(parser.value(option))
                                                  : QStringLiteral("--%1 needs a number from %2 to %3, not '%4'")
                                                        .arg(option)
                                                        .arg(minimum)
                                                        .arg(maximum)
                                                        .arg(parser.value(option)));
    }
    if (range[1] < range[0])
        return commandUsageError(name, QStringLiteral("--to (%1) is below --from (%2)").arg(range[1]).arg(range[0]));
    const std::vector<double> values = sweepValues(range[0], range[1], range[2]);
    if (values.empty())
        return commandUsageError(name, QStringLiteral("--by %1 gives more than 100000 points").arg(range[2]));

    HeuristicsProfile profile = HeuristicsProfile::Workbench;
    Thresholds thresholds;
    QString problem;
    if (!thresholdsFromOptions(parser, &profile, &thresholds, &problem))
        return commandUsageError(name, problem);
    QString jsonPath = parser.value(QStringLiteral("json"));
    const QString csvPath = parser.value(QStringLiteral("csv"));
    const QString pngPath = parser.value(QStringLiteral("png"));
    if (jsonPath.isEmpty() && csvPath.isEmpty() && pngPath.isEmpty())
        jsonPath = QStringLiteral("-");
#ifndef GOBLIN_HAVE_GUI
    if (!pngPath.isEmpty())
        return commandUsageError(name, QStringLiteral("--png is not available: this build has no GUI libraries"));
#endif
    if (pngPath == QLatin1String("-"))
        return commandUsageError(name, QStringLiteral("--png needs a file name, not '-'"));
    for (const QString &out : {jsonPath, csvPath, pngPath})
        if (const QString problem = outputInsideRunFolderProblem(out, dirs); !problem.isEmpty())
            return commandUsageError(name, problem);

    const LoadResult loaded = loadRun(dirs.front());
    if (loaded.outcome != LoadOutcome::Finished || !loaded.run) {
        QTextStream(stderr) << "goblin-workbench sweep: cannot read " << loaded.error << "\n";
        return CommandUnreadable;
    }
    // The curve: the asked points and both sides of every exact switch (the window's chart reads
    // the same function, so both name the same switch value).
    const std::vector<SweepPoint> points = sweepCurve(*loaded.run, profile, thresholds, *which, values);
    const QStringList command = reproducingCommand(
        name, {absoluteRunDir(dirs.front())}, profile, thresholds,
        {QStringLiteral("--threshold"), sweepThresholdName(*which), QStringLiteral("--from"), exactNumberText(range[0]),
         QStringLiteral("--to"), exactNumberText(range[1]), QStringLiteral("--by"), exactNumberText(range[2])});
    QString error;
    if (!jsonPath.isEmpty() &&
        !writeCommandOutput(QJsonDocument(sweepJson(*which, points, command)).toJson(QJsonDocument::Indented), jsonPath,
                            &error)) {
        QTextStream(stderr) << "goblin-workbench sweep: cannot write the JSON: " << error << "\n";
        return CommandUnreadable;
    }
    if (!csvPath.isEmpty() && !writeCommandOutput(sweepCsv(points), csvPath, &error)) {
        QTextStream(stderr) << "goblin-workbench sweep: cannot write the CSV: " << error << "\n";
        return CommandUnreadable;
    }
#ifdef GOBLIN_HAVE_GUI
    // The value marked as current: the swept threshold as the other options set it (its default
    // when not given), as the window marks the live one.
    std::optional<double> currentValue;
    for (const ThresholdDescriptor &d : thresholdDescriptors())
        if (d.cliNameText() == sweepThresholdName(*which))
            currentValue = thresholds.*(d.member);
    if (!pngPath.isEmpty() && !renderSweepPng(loaded.run->runName, *which, points, currentValue, command, pngPath, &error)) {
        QTextStream(stderr) << "goblin-workbench sweep: cannot write the PNG: " << error << "\n";
        return CommandUnreadable;
    }
#endif
    return CommandOk;
}

} // namespace goblin
