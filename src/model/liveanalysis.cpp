#include "liveanalysis.h"

namespace goblin {

LiveAnalysis::LiveAnalysis(QObject *parent)
    : QObject(parent)
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(kCoalesceMs);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &LiveAnalysis::recompute);
}

void LiveAnalysis::setRun(std::shared_ptr<const RunAnalysis> run)
{
    m_run = std::move(run);
    m_timer.stop();
    emit runChanged();
    recompute();
}

const ProfileAnalysis *LiveAnalysis::analysis() const
{
    return m_run ? &m_run->profile(m_profile) : nullptr;
}

void LiveAnalysis::setProfile(HeuristicsProfile profile)
{
    if (profile == m_profile)
        return;
    m_profile = profile;
    m_timer.stop();
    emit profileChanged(profile);
    recompute();
}

void LiveAnalysis::setThresholds(const Thresholds &thresholds)
{
    if (thresholds == m_thresholds)
        return;
    m_thresholds = thresholds;
    emit thresholdsChanged(m_thresholds);
    if (!m_timer.isActive())
        m_timer.start();
}

double LiveAnalysis::stepTimeS() const
{
    const ProfileAnalysis *a = analysis();
    return a ? a->budgetInputs.stepTimeS : 0.0;
}

void LiveAnalysis::flush()
{
    if (m_timer.isActive()) {
        m_timer.stop();
        recompute();
    }
}

void LiveAnalysis::recompute()
{
    const ProfileAnalysis *a = analysis();
    m_metrics = a ? computeMetrics(*a, m_thresholds) : RunMetrics{};
    ++m_recomputes;
    emit metricsChanged();
}

} // namespace goblin
