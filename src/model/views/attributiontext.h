#pragma once
/// \file What the attribution views share: the scopes a trace offers (whole trace, each step),
/// durations in the fixed unit the columns name, and the words for frame kinds and for GPU time
/// that could not be attributed. docs/views.md says what each figure is.

#include "run.h"
#include "results/traceattribution.h"

#include <QString>
#include <memory>

namespace goblin
{

/// Scope 0 is the whole trace ("All steps"); scope i >= 1 is steps[i - 1].
int attributionScopeCount(const TraceAttribution &attribution);
/// Null when `index` names no scope.
const AttributionScope *attributionScope(const TraceAttribution &attribution, int index);
/// "All steps (whole trace)" for 0, the step's own label ("ProfilerStep#6") otherwise.
QString attributionScopeLabel(const TraceAttribution &attribution, int index);

/// The attribution of a run, sharing the run's lifetime (null when there is no run).
std::shared_ptr<const TraceAttribution> attributionOf(const std::shared_ptr<const RunAnalysis> &run);
/// Why a run has nothing to show in the attribution views ("this trace has no CPU ops to
/// attribute GPU time to"); empty when it has. One line, for an empty state.
QString attributionEmptyNote(const RunAnalysis *run);
/// The same for the chrome trace `rankIndex` of traceRankChoices() (0: the primary).
QString attributionEmptyNote(const RunAnalysis *run, int rankIndex);

/// Milliseconds with three decimals (µs resolution), for columns whose header says "(ms)".
QString formatMs(qint64 ns);
/// "module", "annotation", "Python function", "op", "GPU event", "root".
QString frameKindName(FrameKind kind);
/// The JSON key of a reason ("no_runtime_event") and a short phrase for people.
QString unattributedReasonKey(UnattributedReason reason);
QString unattributedReasonText(UnattributedReason reason);
/// One line: GPU time, how much of it went to ops, the unattributed rest by reason and how op and
/// launch were linked. Empty when the scope holds no GPU time.
QString attributionSummary(const TraceAttribution &attribution, const AttributionScope &scope);

} // namespace goblin
