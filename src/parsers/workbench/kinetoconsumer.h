#pragma once
/// \file The workbench's reading of a Kineto document, as an event consumer (kineto/eventconsumer.h):
/// ProfilerStep windows, CPU-operator and wait intervals (exact ns), runtime launches, optimizer
/// steps and the trace's GPU timeline while events stream past (kinetoconsumer.cpp); dialect,
/// metadata, step time and host busy once the document ends (kinetoreading.cpp).

#include "kineto/eventconsumer.h"
#include "kineto/gpuevents.h"
#include "workbench/intervals.h"

#include <limits>
#include <vector>

namespace goblin::workbench {

class KinetoConsumer final : public kineto::EventConsumer
{
public:
    explicit KinetoConsumer(const kineto::ConsumerContext &context) : m_eventIssues(context.eventIssues) {}

    static std::unique_ptr<kineto::EventConsumer> make(const kineto::ConsumerContext &context)
    {
        return std::make_unique<KinetoConsumer>(context);
    }

    void onEvent(const kineto::KinetoEvent &event) override;
    void finishRange() override;
    bool rangeSafe() const override { return m_gpu.unplacedEvents() == 0; }
    void absorb(kineto::EventConsumer &laterRange, int generation) override;
    void finish(const kineto::KinetoDocument &document, TorchTrace &out) override;

private:
    // The GPU timeline's share of a complete event with a string name and category.
    void collectTimeline(const kineto::KinetoEvent &event, qint64 begin, qint64 end);
    void finishReading(const kineto::KinetoDocument &document, TorchTrace &out);

    DiagnosticLimiter &m_eventIssues;
    bool m_sawOperatorCategory = false;
    Intervals m_steps;
    qint64 m_stepDurationSumNs = 0;
    Intervals m_busy;
    Intervals m_wait;
    qint64 m_spanBeginNs = std::numeric_limits<qint64>::max();
    qint64 m_spanEndNs = std::numeric_limits<qint64>::min();
    qint64 m_gpuLaneSteps = 0;
    qint64 m_badTimeEvents = 0;
    qint64 m_cpuOps = 0;
    qint64 m_optimizerSteps = 0;
    /// CPU-lane Optimizer.step#… annotations: without ProfilerStep and GPU-lane step annotations
    /// their ends cut the trace into steps (kinetoreading.cpp). Few per trace.
    Intervals m_optimizerStepWindows;
    std::string m_optimizerStepName;  ///< the first one's name ("Optimizer.step#SGD.step")
    std::string m_optimizerStepPid;   ///< its process: the training process
    std::vector<qint64> m_runtimeStarts;
    std::vector<std::vector<qint64>> m_rangeRuntimeStarts;  // those of the ranges, moved, not copied
    qint64 m_nonFiniteTimeEvents = 0;
    kineto::GpuEventCollector m_gpu;  // the GPU timeline (src/parsers/kineto/gpuevents.h)
};

} // namespace goblin::workbench
