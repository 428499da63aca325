#pragma once
/// \file The measured budget (workbench profile): where a GPU timeline covers a step, the seven
/// buckets partition that step's measured time on each device, so they never contradict the
/// timeline — useful GPU is at most the busy compute time, and every idle nanosecond lands in a
/// waste bucket or in `unattributed`. The thresholds stay the user's judgement lines: they move
/// time between waste buckets, never into useful GPU. Definitions: docs/budget.md.

#include "heuristics.h"

#include <optional>
#include <vector>

namespace goblin {

struct TimelineStepValues;

/// One device in one step window: the measured facts the budget partitions (exact ns, fixed at
/// load). windowNs = compute + exposedComm + h2dCopyOnly + otherCopyOnly + idleDataLoading +
/// idleHostOther + idleNothing.
struct MeasuredSlice {
    int file = 0;          ///< the trace file (a rank) in the step-marked timeline
    qint64 pid = -1;       ///< the process of a kernel-trace device (-1 for chrome traces)
    qint64 device = 0;     ///< as the trace numbers it
    qint64 windowNs = 0;
    qint64 busyNs = 0;
    qint64 computeNs = 0;          ///< union of the non-collective kernels
    qint64 exposedCommNs = 0;      ///< collectives no compute kernel overlaps
    qint64 h2dCopyOnlyNs = 0;      ///< host-to-device copies no kernel overlaps (inputs arriving)
    qint64 otherCopyOnlyNs = 0;    ///< other copies and memsets no kernel overlaps
    qint64 idleDataLoadingNs = 0;  ///< GPU idle inside a data-loading range
    qint64 idleHostOtherNs = 0;    ///< GPU idle while other host work runs
    qint64 idleNothingNs = 0;      ///< GPU idle, nothing traced on the host
    qint64 genericGemmNs = 0, gemmNs = 0, fp16Ns = 0, bf16Ns = 0;  ///< kernel time in the window by class
    double hostBusyFraction = 0.0; ///< the process's CPU operators over the window (the data-wait gate)
    bool hostKnown = false;        ///< the trace shows the host's activity (else idle is not split)

    double utilPct() const { return windowNs > 0 ? 100.0 * double(busyNs) / double(windowNs) : 0.0; }
    /// From the timeline's values of one device in one window.
    static MeasuredSlice fromTimeline(const TimelineStepValues &values, bool hostKnown, double hostBusyFraction);
};

/// The budget of one slice under `thresholds` (seconds; states and terms filled):
/// - useful GPU = compute − kernel shape − precision path (≤ the measured busy compute);
/// - data wait = idle in data-loading ranges + host-to-device copies alone on the GPU, and the
///   idle while other host work runs when the slice's utilisation is below the GPU-util threshold
///   and its host busier than the host-busy threshold;
/// - host gap = idle with nothing traced on the host, and idle during other host work otherwise;
/// - collective comm = exposed communication;
/// - memory headroom = slack × step × headroom weight (as the seed), taken out of the host gap
///   (or the unattributed idle when the host is not traced) and capped at it;
/// - precision path = fp16-tagged kernel time × precision weight, kernel shape = untuned GEMM
///   time, both carved out of busy compute;
/// - unattributed = other copies and memsets alone on the GPU, and the idle time when the trace
///   does not show the host (nothing tells data wait from host gap).
/// Buckets + unattributed = the window exactly (up to rounding of the seconds).
WasteBudget computeMeasuredBudget(const MeasuredSlice &slice, std::optional<double> hbmPeakGb,
                                  const Thresholds &thresholds);

/// The mean of several budgets, bucket by bucket (equal weights); terms are the mean of each
/// operand, a gate shared by all is kept (else Counted), a state is the weakest of them all.
/// Empty input gives a default (all unknown) budget.
WasteBudget meanBudget(const std::vector<WasteBudget> &budgets);

} // namespace goblin
