#pragma once
/// \file What each collective call moved and how fast (docs/collectives.md): bytes from the
/// trace's element counts and dtype, algorithm bandwidth = bytes / kernel time, bus bandwidth with
/// the nccl-tests factors; a table by collective and size; across the ranks of the job, calls
/// matched by (process group, sequence) — else by order within (process group, collective) —
/// with the arrival skew, the rank that arrives last and each rank's wait for it. Computed from
/// the few collective calls the traces hold (TorchTrace::collectives), on demand.

#include "heuristics.h"
#include "results/tracecollectives.h"

#include <QString>
#include <optional>
#include <vector>

namespace goblin {

struct RunAnalysis;

enum class CollectiveKind : quint8 { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, Reduce, SendRecv, Barrier, Other };
/// The kind a trace's collective name says ("allreduce", "_allgather_base", "all_to_all",
/// "AllReduce" from a kernel name, "SendRecv" …).
CollectiveKind collectiveKind(const QString &collective);
/// nccl-tests' bus bandwidth factor: all-reduce 2(n−1)/n; all-gather, reduce-scatter and
/// all-to-all (n−1)/n; broadcast, reduce, send/recv 1. nullopt: unknown (no n where one is needed,
/// or a kind without a factor).
std::optional<double> busBandwidthFactor(CollectiveKind kind, std::optional<qint64> groupSize);
/// Bytes per element of a dtype as the trace writes it ("BFloat16", "float", "c10::Half",
/// "unsigned char"); nullopt when unknown.
std::optional<int> collectiveDtypeBytes(const QString &dtype);

/// One call's figures.
struct CollectiveCallFigures {
    CollectiveKind kind = CollectiveKind::Other;
    std::optional<double> bytes;
    ValueState bytesState = ValueState::Unknown;
    QString bytesReason;  ///< unknown: why
    std::optional<qint64> groupSize;
    ValueState groupSizeState = ValueState::Unknown;
    std::optional<double> timeS;  ///< summed kernel time
    std::optional<double> factor;
};
/// `worldSize`: distributedInfo's, the group size of a call that writes none (estimated).
CollectiveCallFigures collectiveCallFigures(const CollectiveCall &call, std::optional<qint64> worldSize);

/// One rank's share of the calls matched across ranks.
struct CollectiveRankWait {
    int rank = 0;
    QString file;
    qint64 matchedCalls = 0;
    double lateSumS = 0.0;   ///< summed (own arrival − first arrival)
    double waitS = 0.0;      ///< summed (last arrival − own arrival): time waiting for the last rank
    qint64 lastCount = 0;    ///< calls at which this rank arrived last
    double meanLateS() const { return matchedCalls > 0 ? lateSumS / double(matchedCalls) : 0.0; }
};

/// One row of the table: calls of one collective with one size on the primary trace.
struct CollectiveRow {
    QString collective;
    CollectiveKind kind = CollectiveKind::Other;
    QString dtype;
    QString processGroup;  ///< name, else description; empty: not written
    std::optional<double> bytes;  ///< per call
    ValueState bytesState = ValueState::Unknown;
    QString bytesReason;
    std::optional<qint64> groupSize;
    ValueState groupSizeState = ValueState::Unknown;
    QString kernelName;
    qint64 calls = 0;
    qint64 callsTimed = 0;        ///< calls with a kernel (time known)
    double timeS = 0.0;           ///< summed kernel time of the timed calls
    std::optional<double> algbwGbps;  ///< bytes × timed calls / time, 10^9 bytes/s
    std::optional<double> busbwGbps;
    ValueState bandwidthState = ValueState::Unknown;
    QString bandwidthReason;
    // across ranks (matched calls of this row)
    qint64 matchedCalls = 0;
    double skewSumS = 0.0;
    double maxSkewS = 0.0;
    int lastRank = -1;            ///< the rank most often last (lowest on a tie); -1: none matched
    std::vector<CollectiveRankWait> ranks;
    double meanSkewS() const { return matchedCalls > 0 ? skewSumS / double(matchedCalls) : 0.0; }
};

struct CollectiveAnalysis {
    std::vector<CollectiveRow> rows;  ///< by summed kernel time, largest first
    QString primaryFile;
    std::optional<int> primaryRank;
    qint64 calls = 0;
    qint64 commKernels = 0;
    qint64 kernelsLinked = 0;
    std::optional<qint64> worldSize;
    // across ranks
    int ranks = 1;                    ///< traces of the job with collective calls
    QString matchedBy;                ///< "process group and sequence number", "order within process group and collective"; empty: not matched
    QString arrivalBasis;             ///< "NCCL/RCCL kernel start (GPU)" or "collective op start (CPU)"
    QString clockNote;                ///< how the ranks' clocks were taken, or why the skew is unknown
    bool skewKnown = false;
    bool clockShifted = false;        ///< some rank's arrivals were moved by its baseTimeNanoseconds
    qint64 matchedCalls = 0;
    qint64 unmatchedGroups = 0;       ///< (process group, collective) whose call counts differ across ranks
    std::vector<CollectiveRankWait> rankTotals;
    bool available() const { return calls > 0 || commKernels > 0; }
};

CollectiveAnalysis analyzeCollectives(const RunAnalysis &run);
/// The same over explicit ranks (tests, generated traces): traces[0] is the primary.
struct CollectiveRankTrace {
    QString file;
    std::optional<int> rank;
    const TraceCollectives *collectives = nullptr;
    /// The trace's baseTimeNanoseconds (Kineto 2024+: its timestamps count from it); where two
    /// ranks have one, their arrivals are compared on one clock by the difference.
    std::optional<qint64> baseTimeNs;
};
CollectiveAnalysis analyzeCollectives(const std::vector<CollectiveRankTrace> &traces);

QString collectiveKindName(CollectiveKind kind);  ///< "all-reduce", "all-gather" …

/// The GPU's peer link (NVLink, Infinity Fabric): its data sheet's aggregate bandwidth halved, the
/// bandwidth per direction that nccl-tests' bus bandwidth approaches inside one node.
struct GpuLinkSpeed {
    std::optional<double> perDirectionGbps;
    QString link;    ///< "NVLink 4", "Infinity Fabric"
    QString model;   ///< the GPU table's variant ("NVIDIA H100 SXM")
    QString source;  ///< the data sheet
    QString reason;  ///< unknown: why
};
/// The link of a GPU table variant (gpuroofs.h GpuRoof::model); unknown for PCIe cards and GPUs
/// without a peer link in the table.
GpuLinkSpeed gpuLinkSpeed(const QString &roofModel);
GpuLinkSpeed runLinkSpeed(const RunAnalysis &run);

/// The collective with the most kernel time on the primary trace and how its bus bandwidth
/// compares with the link's (the collective-comm advice); nullopt: no collective with time.
struct CollectiveHeadline {
    CollectiveRow row;
    GpuLinkSpeed link;
    QString text;  ///< one sentence
};
std::optional<CollectiveHeadline> biggestCollective(const RunAnalysis &run);

} // namespace goblin
