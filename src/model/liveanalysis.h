#pragma once
/// \file The run, profile and thresholds the views show, and the coalesced live recompute.

#include "runanalysis.h"

#include <QObject>
#include <QTimer>
#include <memory>

namespace goblin {

/// Holds the current run, heuristics profile and thresholds and the RunMetrics computed from
/// them. Threshold changes are coalesced: setThresholds() stores them, announces them at once
/// (thresholdsChanged, so controls and threshold lines follow the mouse) and a single-shot
/// timer recomputes once per frame (metricsChanged). The recompute is computeMetrics(), a few
/// floating-point operations on aggregates, so it stays on the GUI thread.
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
    /// Coalesced: metrics follow within kCoalesceMs.
    void setThresholds(const Thresholds &thresholds);

    /// As of the last recompute (all zero without a run).
    const RunMetrics &metrics() const { return m_metrics; }
    /// Step time of the current profile (0 without a run).
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

private:
    void recompute();

    std::shared_ptr<const RunAnalysis> m_run;
    HeuristicsProfile m_profile = HeuristicsProfile::Workbench;
    Thresholds m_thresholds;
    RunMetrics m_metrics;
    QTimer m_timer;
    quint64 m_recomputes = 0;
};

} // namespace goblin
