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
    m_cut = StepSeries{};
    m_cutN = 0;
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

const StepSeries *LiveAnalysis::steps() const
{
    if (!m_run || m_profile != HeuristicsProfile::Workbench)
        return nullptr;
    if (!m_run->steps.empty())
        return &m_run->steps;
    return m_cutN > 0 && !m_cut.empty() ? &m_cut : nullptr;
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
    // --steps N on a run without step marks: cut the span again, only when N changed.
    const int n = a && m_profile == HeuristicsProfile::Workbench ? cutStepCount(*m_run, m_thresholds) : 0;
    if (n != m_cutN) {
        m_cutN = n;
        m_cut = n > 0 ? cutSteps(*m_run, n) : StepSeries{};
        if (m_selectedStep >= 0 && !selectedStepInputs()) {
            m_selectedStep = -1;
            emit selectedStepChanged(-1);
        }
    }
    // One step: the same formulas on that step's own inputs.
    m_stepBudget = a && selectedStepInputs() ? stepBudget(*steps(), m_selectedStep, m_thresholds) : WasteBudget{};
    ++m_recomputes;
    emit metricsChanged();
}

} // namespace goblin
