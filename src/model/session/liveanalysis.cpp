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
    m_derived = Derived{};  // nothing of another run's plan is reused
    if (m_selectedStep != -1) {
        m_selectedStep = -1;
        emit selectedStepChanged(-1);
    }
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
    if (m_selectedStep != -1 && !steps()) {
        m_selectedStep = -1;
        emit selectedStepChanged(-1);
    }
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

Thresholds LiveAnalysis::appliedThresholds() const
{
    return m_run ? goblin::appliedThresholds(*m_run, m_profile, m_thresholds) : m_thresholds;
}

const StepSeries *LiveAnalysis::steps() const
{
    return m_run ? m_derived.steps() : nullptr;
}

const WasteBudget &LiveAnalysis::shownBudget() const
{
    if (m_selectedStep >= 0 && std::size_t(m_selectedStep) < m_derived.stepBudgets.size())
        return m_derived.stepBudgets[std::size_t(m_selectedStep)];
    return m_derived.metrics.wasteBudget;
}

void LiveAnalysis::setSelectedStep(int index)
{
    const StepSeries *series = steps();
    if (!series || index < 0 || index >= series->size())
        index = -1;
    if (index == m_selectedStep)
        return;
    m_selectedStep = index;
    m_timer.stop();
    emit selectedStepChanged(index);
    recompute();
}

const StepInputs *LiveAnalysis::selectedStepInputs() const
{
    const StepSeries *series = steps();
    return series && m_selectedStep >= 0 && m_selectedStep < series->size()
               ? &series->steps[std::size_t(m_selectedStep)]
               : nullptr;
}

double LiveAnalysis::stepTimeS() const
{
    if (const StepInputs *step = selectedStepInputs())
        return step->durationS;
    return m_run ? m_derived.stepTimeS() : 0.0;
}

void LiveAnalysis::setSweepThreshold(std::optional<SweepThreshold> which)
{
    if (which == m_sweepThreshold)
        return;
    m_sweepThreshold = which;
    m_timer.stop();
    recompute();
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
    m_derived = m_run ? deriveResults(*m_run, m_profile, m_thresholds, &m_derived, m_sweepThreshold) : Derived{};
    if (m_selectedStep >= 0 && !selectedStepInputs()) {  // --steps N changed the steps
        m_selectedStep = -1;
        emit selectedStepChanged(-1);
    }
    ++m_recomputes;
    emit metricsChanged();
}

} // namespace goblin
