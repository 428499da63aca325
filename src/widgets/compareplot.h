#pragma once
/// \file Runs side by side, drawn: the bucket-delta bars, the kernel-change and telemetry tables
/// (as text rows) and the whole comparison as a PNG. Everything is read from compareRuns()'s
/// JSON, the object `goblin-workbench compare --json` writes, so window, PNG and CLI show the
/// same numbers.

#include "customplot.h"

#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <vector>

namespace goblin {

/// What the compare bars show: each other run's delta against the baseline (in s/step or in
/// share of the step), or every run's own buckets side by side (s/step).
enum class DeltaUnit { SecondsPerStep, ShareOfStep, EachRunSecondsPerStep };

/// The deltas of a compare object, one per other run: its "delta" as a one-element array, or
/// its "deltas".
QJsonArray compareDeltaList(const QJsonObject &compare);
/// The budget keys the deltas have (the seven buckets, then unattributed_s when present).
QStringList compareBucketKeys(const QJsonObject &compare);
/// Run name of report `index` in compare["runs"].
QString compareRunName(const QJsonObject &compare, int index);

/// Clears `plot` and draws one bar group per budget key, one bar per other run (other −
/// baseline, in s/step or in share of step as a percentage), or with EachRunSecondsPerStep one bar
/// per run (its own s/step); a null delta or an unknown bucket draws no bar.
void drawCompareDeltaPlot(QCustomPlot *plot, const QJsonObject &compare, DeltaUnit unit, const QPalette &palette);
/// Clears `plot` and draws one stacked bar per run in compare["runs"] order: its seven buckets
/// and the unattributed rest in s/step, bottom to top in the budget chart's order and colours
/// (bucketColor(); the rest hatched), the run's step time as a dashed line over its bar, the
/// baseline named under its bar. An unknown bucket draws no segment. Each QCPBars carries its
/// budget key as the property "bucketKey".
void drawCompareStackedBudgets(QCustomPlot *plot, const QJsonObject &compare, const QPalette &palette);
/// The seconds per step drawn for run `runIndex`'s segment `key` by drawCompareStackedBudgets
/// (0 for an unknown bucket: a segment of no height keeps the stack whole; NaN when the plot has
/// no such run or key).
double compareStackedValue(const QCustomPlot *plot, int runIndex, const QString &key);
/// Moves the legend of `plot` into a one-line row above its axis rect (once), coloured from `palette`.
void placeLegendAbove(QCustomPlot *plot, const QPalette &palette);
/// The value `drawCompareDeltaPlot` gives the bar of other run `deltaIndex` (in
/// compareDeltaList order; with EachRunSecondsPerStep the run's index in compare["runs"]) at
/// budget key `key`: NaN for a null delta or an unknown bucket.
double compareBarValue(const QJsonObject &compare, int deltaIndex, const QString &key, DeltaUnit unit);
/// A run's seconds per step in bucket `key` (a waste_budget key) as its report says, NaN when the
/// report's budget.buckets state is unknown.
double compareRunBucketSeconds(const QJsonObject &compare, int runIndex, const QString &key);

/// Kernel changes: run, kernel, baseline s/step, other s/step, Δ s/step, change.
QStringList compareKernelHeader();
std::vector<QStringList> compareKernelRows(const QJsonObject &compare);
/// Telemetry side by side, one row per run: run, step time, GPU util, host busy, HBM peak, HBM
/// mean, tokens/s, MFU (baseline marked), each from the report's `quantities` (HBM mean from
/// metrics when the peak is known); "—" where unknown, never 0.
QStringList compareTelemetryHeader();
std::vector<QStringList> compareTelemetryRows(const QJsonObject &compare);

/// The comparison as an image: runs and baseline, every run's stacked budget side by side, the delta
/// bars in s/step and in share of step, the telemetry and kernel tables and compare["command"]
/// in small print.
QImage renderCompareImage(const QJsonObject &compare, double devicePixelRatio = 2.0);
bool renderComparePng(const QJsonObject &compare, const QString &path, QString *error);

} // namespace goblin
