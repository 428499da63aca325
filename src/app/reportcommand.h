#pragma once
// `goblin-workbench report RUN_DIR …`: the headless report, for CI. Needs no display.

#include "heuristics.h"

#include <QStringList>

class QCommandLineParser;

namespace goblin {

/// Exit codes of the report command.
enum ReportExit { ReportOk = 0, ReportRunDirUnreadable = 1, ReportUsageError = 2 };

/// Runs the command on `arguments` (argv without the program name and without "report").
/// Writes one clear line to stderr on failure. A Q(Gui)Application must exist.
int runReportCommand(const QStringList &arguments);

/// True when the arguments ask for a PNG (the caller then needs a QApplication on the
/// offscreen platform instead of a QCoreApplication).
bool reportNeedsGui(const QStringList &arguments);

/// `parser.helpText()` with the program named `usageName` ("goblin-workbench report") rather
/// than by the path it was started with, as GNU tools print their usage.
QString helpTextNamed(const QCommandLineParser &parser, const QString &usageName);

/// Adds --profile, --precision, --steps and the threshold options (shared by report, compare,
/// sweep and table, so every command reads them the same way).
void addThresholdOptions(QCommandLineParser &parser);

/// Reads the options addThresholdOptions() added; on a bad value returns false with `problem`
/// naming the option and the value.
bool thresholdsFromOptions(const QCommandLineParser &parser, HeuristicsProfile *profile, Thresholds *thresholds,
                           QString *problem);

} // namespace goblin
