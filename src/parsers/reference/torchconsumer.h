#pragma once
/// \file The reference's reading of a Kineto document (`_read_torch_profile` of profile_parser.py) as
/// an event consumer (kineto/eventconsumer.h): its two passes over the last "traceEvents", fused and
/// in Python's float-sum order (reference/torchpasses.h), then where Python would crash and the
/// metadata through `_coerce_float` (torchreading.cpp).

#include "kineto/eventconsumer.h"
#include "reference/torchpasses.h"

namespace goblin::reference {

class TorchConsumer final : public kineto::EventConsumer
{
public:
    static std::unique_ptr<kineto::EventConsumer> make(const kineto::ConsumerContext &)
    {
        return std::make_unique<TorchConsumer>();
    }

    void onEvent(const kineto::KinetoEvent &event) override
    {
        // The events of the last "traceEvents" only (a later key replaces the dict entry).
        if (event.span.generation != m_ref.generation) {
            m_ref = ReferenceEvents{};
            m_ref.generation = event.span.generation;
        }
        m_ref.add(event.name, event.cat, event.ts, event.dur, event.nameText, event.catText);
    }
    /// A range whose sums depend on their order (a negative or non-finite addend) is read by the
    /// main reader itself.
    bool rangeSafe() const override { return !m_ref.orderSensitive; }
    void absorb(kineto::EventConsumer &laterRange, int generation) override
    {
        const ReferenceEvents &r = static_cast<TorchConsumer &>(laterRange).m_ref;
        if (r.generation < 0)
            return;
        if (m_ref.generation != generation) {
            m_ref = ReferenceEvents{};
            m_ref.generation = generation;
        }
        m_ref.merge(r);
    }
    void finish(const kineto::KinetoDocument &document, TorchTrace &out) override;

private:
    ReferenceEvents m_ref;
};

} // namespace goblin::reference
