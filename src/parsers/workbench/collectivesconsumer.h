#pragma once
/// \file The collective calls of a Kineto trace (results/tracecollectives.h), as an event consumer
/// (kineto/eventconsumer.h). While the events stream past it keeps the few collective records —
/// `record_param_comms` ops, `nccl:<collective>` ranges, NCCL/RCCL kernels — whole, and of every
/// runtime call only its correlation id and start (16 bytes). Once the document ends: kernel →
/// runtime call (correlation) → the collective range around the call's start. docs/collectives.md
/// defines every figure; scripts/collectives_count.py counts the same calls independently.

#include "kineto/eventconsumer.h"

#include <QtGlobal>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace goblin::workbench {

/// The members of a collective record's args this reading uses, read from the bytes of the
/// (already validated) args object: `args` starts at its '{' and may run on past its '}'.
struct CollectiveArgs {
    std::string collective;     ///< "Collective name"
    std::string dtype;          ///< "dtype"
    std::string processGroup;   ///< "Process Group Name" (else "pg_name")
    std::string processGroupDescription;
    std::optional<qint64> inElements, outElements, groupSize, sequence;
    /// "Input Dims": the elements of every tensor summed (an `nccl:` range's input); nullopt: none
    /// or not a list of integer lists.
    std::optional<qint64> inputDimsElements;
    std::string firstInputType;  ///< "Input type"[0]
};
CollectiveArgs readCollectiveArgs(std::string_view args);

/// Is this kernel name an NCCL or RCCL kernel ("ncclKernel_…", "ncclDevKernel_…", "rccl…")?
bool isCollectiveKernelName(std::string_view name);

class CollectivesConsumer final : public kineto::EventConsumer
{
public:
    explicit CollectivesConsumer(const kineto::ConsumerContext &) {}

    static std::unique_ptr<kineto::EventConsumer> make(const kineto::ConsumerContext &context)
    {
        return std::make_unique<CollectivesConsumer>(context);
    }

    void onEvent(const kineto::KinetoEvent &event) override;
    void absorb(kineto::EventConsumer &laterRange, int generation) override;
    void finish(const kineto::KinetoDocument &document, TorchTrace &out) override;

private:
    struct CpuRecord {
        std::string thread;  ///< "pid\x1ftid" as written
        qint64 beginNs;
        qint64 endNs;
        bool paramComms;     ///< record_param_comms, else an nccl: range
        std::string name;
        CollectiveArgs args;
    };
    struct KernelRecord {
        std::string name;
        qint64 beginNs;
        qint64 durationNs;
        qint64 correlation;  ///< -1: none
        qint64 device;
        CollectiveArgs args;  ///< filled where Kineto copied the collective's args onto the kernel
    };
    struct RuntimeCall {
        qint64 correlation;
        qint64 beginNs;
    };
    void onCpu(const kineto::KinetoEvent &event, bool paramComms);
    void onKernel(const kineto::KinetoEvent &event);
    void onRuntime(const kineto::KinetoEvent &event);

    std::vector<CpuRecord> m_cpu;
    std::vector<KernelRecord> m_kernels;
    std::vector<RuntimeCall> m_runtime;
};

} // namespace goblin::workbench
