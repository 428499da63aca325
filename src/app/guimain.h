#pragma once
// Entry point of the window, called by main.cpp for everything that is not a headless command.

#include <QStringList>

namespace goblin {

/// Constructs the QApplication (so no Q*Application may exist yet), the main window, opens
/// `runDirs` (as given on the command line) and runs the event loop; `compare` shows the compare
/// view with them. Returns the exit code.
int runGui(int &argc, char **argv, const QStringList &runDirs, bool compare = false);

} // namespace goblin
