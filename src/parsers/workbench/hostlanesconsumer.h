#pragma once
/// \file The host lanes of a Kineto trace (results/hostlanes.h), as an event consumer
/// (kineto/eventconsumer.h): every host range of interest (steps, data loading, annotations,
/// `nn.Module` ranges, CPU operators, runtime calls) is kept as one 24-byte record while the
/// document streams past, with the correlation ids of the runtime calls and of the GPU events;
/// once it ends, the records are laid out lane by lane (thread, depth) for the Timeline
/// (kernels/hostlanesbuilder.h, as for the other formats' host sides). It
/// finishes after KinetoConsumer and hangs its result on the GpuTimelineFile that one wrote.

#include "kernels/hostlanesbuilder.h"
#include "kineto/eventconsumer.h"
#include "results/hostlanes.h"

#include <QtGlobal>

#include <string>
#include <string_view>
#include <vector>

namespace goblin::workbench {

class HostLanesConsumer final : public kineto::EventConsumer
{
public:
    explicit HostLanesConsumer(const kineto::ConsumerContext &) {}

    static std::unique_ptr<kineto::EventConsumer> make(const kineto::ConsumerContext &context)
    {
        return std::make_unique<HostLanesConsumer>(context);
    }

    void onEvent(const kineto::KinetoEvent &event) override;
    void finishRange() override;
    void absorb(kineto::EventConsumer &laterRange, int generation) override;
    void finish(const kineto::KinetoDocument &document, TorchTrace &out) override;

    /// The lanes of what was read so far (finish() hands the same to the timeline file).
    HostLanes build();

private:
    struct Thread {
        std::string pid, tid;  ///< the tokens as written (a key, and the label's numbers)
    };
    void onHost(const kineto::KinetoEvent &event, HostSliceKind kind, qint64 beginNs, qint64 endNs);
    void onGpu(const kineto::KinetoEvent &event, qint64 beginNs);
    std::uint16_t threadOf(std::string_view pid, std::string_view tid);

    kernels::HostLanesBuilder m_lanes;
    std::vector<Thread> m_threads;  ///< by the builder's thread index
    std::uint16_t m_lastThread = 0;
};

} // namespace goblin::workbench
