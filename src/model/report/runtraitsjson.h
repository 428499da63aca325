#pragma once
/// \file The report's keys on what the traces are: `run_kind`, `run_kind_reason`, `graphs`,
/// `timeline_checks` and `separate_runs`.

#include "run.h"

#include <QJsonObject>

namespace goblin {

/// Writes `run_kind`, `run_kind_reason`, `graphs` and `timeline_checks` into the report, the
/// run kind as the traits alone say it (training, inference, unknown).
void addRunTraitsToReport(QJsonObject &report, const RunTraitsAnalysis &traits);
/// The same for a loaded run: `run_kind` and its reason are the program the run's facts decided
/// (programKindName), and the report's `facts` object gains `devices`, `capacity` and `program`
/// (other keys of `facts` are kept).
void addRunTraitsToReport(QJsonObject &report, const RunAnalysis &run);

/// Writes the report's `separate_runs`: one object per separate run with `file` and `reason`
/// (and `rank`, `device` when known); an empty array when there is none.
void addSeparateRunsToReport(QJsonObject &report, const RunAnalysis &run);

} // namespace goblin
