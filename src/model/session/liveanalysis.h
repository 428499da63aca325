#pragma once
/// \file The run, profile and thresholds the views show, and the coalesced live recompute.

#include "derived.h"
#include "runanalysis.h"

#include <QObject>
#include <QTimer>
#include <memory>

namespace goblin {

/// Holds the current run, heuristics profile and thresholds and the RunMetrics computed from
/// them. Threshold changes are coalesced: setThresholds() stores them, announces them at once
/// (thresholdsChanged, so controls and threshold lines follow the mouse) and a single-shot
/// timer recomputes once per frame (metricsChanged). The recompute is deriveResults() (derived.h),
/// arithmetic on aggregates, so it stays on the GUI thread; every view reads its result.
class LiveAnalysis : public QObject
{
    Q_OBJECT
public:
    static constexpr int kCoalesceMs = 16;

    explicit LiveAnalysis(QObject *parent = nullptr);

    /// nullptr shows nothing. Recomputes immediately.
    void setRun(std::shared_ptr<const RunAnalysis> run);
    const std::shared_ptr<const RunAnalysis> &run() const { return m_run; }
    /// The analysis of the current profile, or nullptr without a run.
    const ProfileAnalysis *analysis() const;

    HeuristicsProfile profile() const { return m_profile; }
    /// Recomputes immediately.
    void setProfile(HeuristicsProfile profile);

    const Thresholds &thresholds() const { return m_thresholds; }
    /// The thresholds as the budget applies them to the current run (derived.h, appliedThresholds:
    /// the trace's HBM capacity while the knob is at its default): what controls and threshold
    /// lines show. Follows setThresholds() at once, before the coalesced recompute.
    Thresholds appliedThresholds() const;
    /// Coalesced: metrics follow within kCoalesceMs.
    void setThresholds(const Thresholds &thresholds);

    /// Profiled steps of the current run (workbench profile; nullptr in the reference profile,
    /// which has no per-step budget, or without a run).
    const StepSeries *steps() const;
    /// -1: the run mean. A step index: shownBudget() is that step's budget (docs/steps.md), the
    /// thresholds still apply live. Out of range or without steps: -1. Recomputes immediately.
    void setSelectedStep(int index);
    int selectedStep() const { return m_selectedStep; }
    /// The selected step's inputs, or nullptr when the run mean is shown.
    const StepInputs *selectedStepInputs() const;

    /// The threshold the sweep curve runs along (Derived::sweep), or none: no curve is computed.
    /// Recomputes immediately when it changes.
    void setSweepThreshold(std::optional<SweepThreshold> which);
    std::optional<SweepThreshold> sweepThreshold() const { return m_sweepThreshold; }
    /// Everything the thresholds give for the run as of the last recompute (derived.h).
    const Derived &derived() const { return m_derived; }
    /// The run's metrics as of the last recompute (all zero without a run), whichever step is
    /// shown: exports and `command` always describe the run.
    const RunMetrics &metrics() const { return m_derived.metrics; }
    /// What the dashboard shows: the selected step's budget, else the run's (metrics().wasteBudget).
    const WasteBudget &shownBudget() const;
    /// Step time of the current profile, or of the selected step (0 without a run).
    double stepTimeS() const;
    bool recomputePending() const { return m_timer.isActive(); }
    /// Runs a pending recompute now (export, tests).
    void flush();
    /// Number of recomputes so far; tests check coalescing with it.
    quint64 recomputeCount() const { return m_recomputes; }

signals:
    void runChanged();
    void profileChanged(goblin::HeuristicsProfile profile);
    void thresholdsChanged(const goblin::Thresholds &thresholds);
    void metricsChanged();
    /// The shown step changed (-1: the run mean), before the metricsChanged that follows.
    void selectedStepChanged(int index);

private:
    void recompute();

    std::shared_ptr<const RunAnalysis> m_run;
    HeuristicsProfile m_profile = HeuristicsProfile::Workbench;
    Thresholds m_thresholds;
    Derived m_derived;
    std::optional<SweepThreshold> m_sweepThreshold;
    QTimer m_timer;
    quint64 m_recomputes = 0;
    int m_selectedStep = -1;
};

} // namespace goblin
