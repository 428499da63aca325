#pragma once
// `goblin-workbench compare A B [C…]`: runs side by side under one set of thresholds, with bucket
// and top-kernel deltas against a baseline. Needs no display. Also the output helpers the
// sweep and table commands share.

#include <QByteArray>
#include <QStringList>

namespace goblin {

/// Exit codes of compare, sweep and table (as report's): 0 ok, 1 a run folder or output could not
/// be read or written, 2 usage.
enum CommandExit { CommandOk = 0, CommandUnreadable = 1, CommandUsageError = 2, CommandRegression = 3 };

int runCompareCommand(const QStringList &arguments);

/// Writes `bytes` to `path` atomically, or to standard output for "-".
bool writeCommandOutput(const QByteArray &bytes, const QString &path, QString *error);

/// The first of `runDirs` that contains `outputPath` (never write into a run folder; a file opened
/// alone counts as its folder), or empty.
QString runDirContaining(const QString &outputPath, const QStringList &runDirs);

/// The usage error for an output inside one of `runDirs` ("'out' is inside the run folder …"), or
/// empty when the output is elsewhere: every command that writes a file checks it the same way.
QString outputInsideRunFolderProblem(const QString &outputPath, const QStringList &runDirs);
/// The usage error unless `dirs` holds exactly one RUN_DIR ("missing RUN_DIR", "one RUN_DIR only, got 2").
QString oneRunDirProblem(const QStringList &dirs);

/// Prints "goblin-workbench COMMAND: message" and the --help hint to stderr; returns CommandUsageError.
int commandUsageError(const QString &command, const QString &message);

/// Absolute, clean path of a folder as given (for `command` and the reports).
QString absoluteRunDir(const QString &dir);

} // namespace goblin
