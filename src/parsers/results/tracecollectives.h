#pragma once
/// \file The collective calls of one Kineto trace (one rank): what each call was (collective,
/// elements, dtype, group, process group, sequence) as the trace writes it, and the NCCL/RCCL
/// kernel it launched. Facts only: bytes, bandwidths and the matching across ranks are the
/// model's (analysis/collectives.h); docs/collectives.md defines every figure.

#include <QString>
#include <QtGlobal>

#include <optional>
#include <vector>

namespace goblin {

/// Where a call's description came from.
enum class CollectiveSource : quint8 {
    ParamComms,   ///< a `record_param_comms` op with its "Collective name" args (PyTorch >= 2.1)
    Annotation,   ///< an `nccl:<collective>` range with its "Input Dims"/"Input type" (record_shapes)
    KernelArgs,   ///< the kernel event itself carries "Collective name" (Kineto links it)
    KernelName,   ///< only the NCCL/RCCL kernel: its name and duration, size unknown
};

/// One collective call of one rank.
struct CollectiveCall {
    QString collective;              ///< as the trace names it: "allreduce", "all_to_all", "AllReduce" (kernel)
    QString kernelName;              ///< the first NCCL/RCCL kernel it launched; empty: none found
    QString dtype;                   ///< as written: "BFloat16", "float", "int8_t" (kernel name); empty: unknown
    QString processGroup;            ///< "Process Group Name"; empty: not written
    QString processGroupDescription; ///< "Process Group Description" ("default_pg")
    std::optional<qint64> sequence;  ///< "Seq"
    std::optional<qint64> inElements;
    std::optional<qint64> outElements;
    std::optional<qint64> groupSize; ///< "Group size"
    CollectiveSource source = CollectiveSource::KernelName;
    bool haveCpu = false;            ///< the CPU range (record_param_comms / nccl:) was found
    qint64 cpuBeginNs = 0;
    qint64 cpuEndNs = 0;
    int kernels = 0;                 ///< kernels it launched (coalesced calls and send/recv pairs launch several)
    qint64 kernelBeginNs = 0;        ///< the first kernel's start (kernels > 0)
    qint64 kernelEndNs = 0;          ///< the last kernel's end
    qint64 kernelTimeNs = 0;         ///< summed kernel durations
    int device = -1;                 ///< the kernel's device (args.device); -1: unknown
};

struct TraceCollectives {
    std::vector<CollectiveCall> calls;  ///< in order of arrival (CPU begin, else kernel start)
    std::optional<qint64> worldSize;    ///< distributedInfo.world_size
    std::optional<qint64> rank;         ///< distributedInfo.rank
    qint64 commKernels = 0;             ///< NCCL/RCCL kernels in the trace
    qint64 kernelsLinked = 0;           ///< of them, linked to a CPU call (runtime correlation)
    qint64 waitRecords = 0;             ///< record_param_comms "wait" records (no transfer), left out
};

} // namespace goblin
