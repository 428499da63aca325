#pragma once
/// \file The notes, in plain words, wherever the reference profile and the workbench profile read
/// a run folder differently (file choices, step time, host busy, utilisation, collectives, HBM
/// units, crashes): the one place where they are written. Called once by analyzeRun().

#include "runanalysis.h"

namespace goblin {

/// Appends the notes to run.diagnostics; run.reference and run.workbench must be analysed.
void explainDifferences(RunAnalysis &run);

} // namespace goblin
