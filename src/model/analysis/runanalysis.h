#pragma once
/// \file Loading a run and deriving, once, everything that does not depend on the thresholds:
/// both profiles' analyses, the timelines, the steps, the ranks and the traces' traits.

#include "io/runinventory.h"
#include "run.h"

namespace goblin {

/// Derives both profiles' analyses from parsed inputs (called once by the loader; also by
/// tests that build inputs by hand).
void analyzeRun(RunAnalysis &run);

/// Loads a run: a folder, a file alone (as if it were the only file of its folder), or some
/// files of a folder (RunSource). The inputs come from one run inventory (io/runinventory.h) and
/// are parsed concurrently (one thread per file kind), then analysed; chrome traces that are not
/// ranks of one job are left out as separate runs (RunAnalysis::facts.job.separate). Fails when the
/// path is missing or unreadable, and when nothing in it is readable (no kernel row, no trace
/// event, no telemetry sample: an empty folder, random bytes, a file that is no input), with a
/// message naming the path and why. Broken files beside readable ones are diagnostics.
LoadResult loadRun(const RunSource &source, const LoadProgressCallback &progress = {});
/// The same for a folder or a file.
LoadResult loadRun(const QString &path, const LoadProgressCallback &progress = {});

} // namespace goblin
