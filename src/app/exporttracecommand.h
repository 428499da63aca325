#pragma once
// `goblin-workbench export-trace RUN_DIR [--step N] -o FILE`: one step of a run (or the whole
// run) as a Chrome trace that Perfetto and chrome://tracing open; the same
// writer as the window's File > Export Step as Chrome Trace (chrometraceexport.h). Needs no display.

#include <QStringList>

namespace goblin {

int runExportTraceCommand(const QStringList &arguments);

} // namespace goblin
