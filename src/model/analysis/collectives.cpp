// Collective calls: per-call bytes and bandwidths, the table by collective and size, and the
// arrival skew across the ranks of the job (docs/collectives.md).
#include "collectives.h"

#include "gpuroofs.h"
#include "run.h"
#include "formatting.h"

#include <QHash>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace goblin {

CollectiveKind collectiveKind(const QString &collective)
{
    QString n = collective.toLower();
    n.remove(QLatin1Char('_'));
    if (n.startsWith(QLatin1String("nccl:")))
        n = n.mid(5);
    if (n.contains(QLatin1String("allreduce")))
        return CollectiveKind::AllReduce;
    if (n.contains(QLatin1String("reducescatter")))
        return CollectiveKind::ReduceScatter;
    if (n.contains(QLatin1String("allgather")))
        return CollectiveKind::AllGather;
    if (n.contains(QLatin1String("alltoall")))
        return CollectiveKind::AllToAll;
    if (n.contains(QLatin1String("broadcast")))
        return CollectiveKind::Broadcast;
    if (n == QLatin1String("reduce"))
        return CollectiveKind::Reduce;
    if (n == QLatin1String("send") || n == QLatin1String("recv") || n == QLatin1String("sendrecv") ||
        n == QLatin1String("recvanysource"))
        return CollectiveKind::SendRecv;
    if (n == QLatin1String("barrier"))
        return CollectiveKind::Barrier;
    return CollectiveKind::Other;
}

QString collectiveKindName(CollectiveKind kind)
{
    switch (kind) {
    case CollectiveKind::AllReduce: return QStringLiteral("all-reduce");
    case CollectiveKind::AllGather: return QStringLiteral("all-gather");
    case CollectiveKind::ReduceScatter: return QStringLiteral("reduce-scatter");
    case CollectiveKind::AllToAll: return QStringLiteral("all-to-all");
    case CollectiveKind::Broadcast: return QStringLiteral("broadcast");
    case CollectiveKind::Reduce: return QStringLiteral("reduce");
    case CollectiveKind::SendRecv: return QStringLiteral("send/recv");
    case CollectiveKind::Barrier: return QStringLiteral("barrier");
    case CollectiveKind::Other: break;
    }
    return QStringLiteral("other");
}

std::optional<double> busBandwidthFactor(CollectiveKind kind, std::optional<qint64> groupSize)
{
    switch (kind) {
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
    case CollectiveKind::SendRecv:
        return 1.0;
    case CollectiveKind::AllReduce:
        if (groupSize && *groupSize >= 1)
            return 2.0 * double(*groupSize - 1) / double(*groupSize);
        return std::nullopt;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllToAll:
        if (groupSize && *groupSize >= 1)
            return double(*groupSize - 1) / double(*groupSize);
        return std::nullopt;
    case CollectiveKind::Barrier:
    case CollectiveKind::Other:
        break;
    }
    return std::nullopt;
}

std::optional<int> collectiveDtypeBytes(const QString &dtype)
{
    static const QHash<QString, int> sizes = [] {
        QHash<QString, int> h;
        auto add = [&h](std::initializer_list<const char *> names, int bytes) {
            for (const char *n : names)
                h.insert(QString::fromLatin1(n).toLower(), bytes);
        };
        // PyTorch's ScalarType names (record_param_comms "dtype") and the C++ type names of
        // "Input type" (record_shapes).
        add({"Double", "double", "Long", "long", "long int", "int64_t", "UInt64", "uint64_t", "ComplexFloat",
             "c10::complex<float>"},
            8);
        add({"Float", "float", "Int", "int", "int32_t", "UInt32", "uint32_t", "ComplexHalf", "c10::complex<c10::Half>"}, 4);
        add({"Half", "c10::Half", "BFloat16", "c10::BFloat16", "Short", "short", "short int", "int16_t", "UInt16",
             "uint16_t"},
            2);
        add({"Byte", "unsigned char", "uint8_t", "Char", "signed char", "int8_t", "char", "Bool", "bool", "Float8_e4m3fn",
             "Float8_e5m2", "Float8_e4m3fnuz", "Float8_e5m2fnuz", "Float8_e8m0fnu", "c10::Float8_e4m3fn",
             "c10::Float8_e5m2", "c10::Float8_e4m3fnuz", "c10::Float8_e5m2fnuz", "QInt8", "QUInt8"},
            1);
        add({"ComplexDouble", "c10::complex<double>"}, 16);
        return h;
    }();
    const auto it = sizes.constFind(dtype.trimmed().toLower());
    if (it == sizes.constEnd())
        return std::nullopt;
    return *it;
}

CollectiveCallFigures collectiveCallFigures(const CollectiveCall &call, std::optional<qint64> worldSize)
{
    CollectiveCallFigures f;
    f.kind = collectiveKind(call.collective);
    if (call.groupSize && *call.groupSize > 0) {
        f.groupSize = call.groupSize;
        f.groupSizeState = ValueState::Measured;
    } else if (worldSize && *worldSize > 0) {
        f.groupSize = worldSize;
        f.groupSizeState = ValueState::Estimated;  // the process group is not written: the world
    }
    f.factor = busBandwidthFactor(f.kind, f.groupSize);
    if (call.kernels > 0)
        f.timeS = double(call.kernelTimeNs) * 1e-9;

    const std::optional<int> size = collectiveDtypeBytes(call.dtype);
    if (call.source == CollectiveSource::KernelName) {
        f.bytesReason = QStringLiteral("only the kernel: no element count in the trace");
    } else if (!size) {
        f.bytesReason = call.dtype.isEmpty() ? QStringLiteral("no dtype in the trace")
                                             : QStringLiteral("dtype %1 of unknown size").arg(call.dtype);
    } else if (call.inElements && call.outElements) {
        // nccl-tests' size: the larger buffer (all-gather's output, reduce-scatter's input).
        f.bytes = double(std::max(*call.inElements, *call.outElements)) * *size;
        f.bytesState = ValueState::Measured;
    } else if (call.inElements) {
        // An nccl: range records its input tensor only: all-gather's output is n times it.
        if (f.kind == CollectiveKind::AllGather) {
            if (f.groupSize) {
                f.bytes = double(*call.inElements) * double(*f.groupSize) * *size;
                f.bytesState = weakerState(ValueState::Measured, f.groupSizeState);
            } else {
                f.bytesReason = QStringLiteral("all-gather input without a group size");
            }
        } else {
            f.bytes = double(*call.inElements) * *size;
            f.bytesState = ValueState::Measured;
        }
    } else {
        f.bytesReason = QStringLiteral("no element count in the trace");
    }
    return f;
}

namespace {

QString groupOf(const CollectiveCall &c)
{
    return !c.processGroup.isEmpty() ? c.processGroup : c.processGroupDescription;
}

struct RowKey {
    QString collective, dtype, group, kernel;
    double bytes;  // -1: unknown
    qint64 groupSize;
    bool operator<(const RowKey &o) const
    {
        return std::tie(collective, bytes, dtype, groupSize, group, kernel) <
               std::tie(o.collective, o.bytes, o.dtype, o.groupSize, o.group, o.kernel);
    }
};

RowKey rowKeyOf(const CollectiveCall &c, const CollectiveCallFigures &f)
{
    // Calls of unknown size are told apart by their kernel (all that is known of them).
    return {c.collective, c.dtype, groupOf(c), f.bytes ? QString() : c.kernelName, f.bytes.value_or(-1.0),
            f.groupSize.value_or(-1)};
}

} // namespace

CollectiveAnalysis analyzeCollectives(const std::vector<CollectiveRankTrace> &traces)
{
    CollectiveAnalysis out;
    if (traces.empty() || !traces.front().collectives)
        return out;
    const TraceCollectives &primary = *traces.front().collectives;
    out.primaryFile = traces.front().file;
    out.primaryRank = traces.front().rank;
    out.calls = qint64(primary.calls.size());
    out.commKernels = primary.commKernels;
    out.kernelsLinked = primary.kernelsLinked;
    out.worldSize = primary.worldSize;

    // 1. The table: the primary trace's calls by collective and size.
    std::map<RowKey, size_t> rowOf;
    std::vector<size_t> callRow(primary.calls.size());
    for (size_t i = 0; i < primary.calls.size(); ++i) {
        const CollectiveCall &c = primary.calls[i];
        const CollectiveCallFigures f = collectiveCallFigures(c, primary.worldSize);
        const RowKey key = rowKeyOf(c, f);
        auto [it, fresh] = rowOf.try_emplace(key, out.rows.size());
        if (fresh) {
            CollectiveRow row;
            row.collective = c.collective;
            row.kind = f.kind;
            row.dtype = c.dtype;
            row.processGroup = groupOf(c);
            row.bytes = f.bytes;
            row.bytesState = f.bytesState;
            row.bytesReason = f.bytesReason;
            row.groupSize = f.groupSize;
            row.groupSizeState = f.groupSizeState;
            row.kernelName = c.kernelName;
            out.rows.push_back(row);
        }
        CollectiveRow &row = out.rows[it->second];
        callRow[i] = it->second;
        ++row.calls;
        if (row.kernelName.isEmpty())
            row.kernelName = c.kernelName;
        if (f.timeS) {
            ++row.callsTimed;
            row.timeS += *f.timeS;
        }
    }
    for (CollectiveRow &row : out.rows) {
        const std::optional<double> factor = busBandwidthFactor(row.kind, row.groupSize);
        if (!row.bytes) {
            row.bandwidthReason = row.bytesReason;
        } else if (row.callsTimed == 0 || row.timeS <= 0.0) {
            row.bandwidthReason = QStringLiteral("no kernel found for its calls");
        } else {
            row.algbwGbps = *row.bytes * double(row.callsTimed) / row.timeS / 1e9;
            row.bandwidthState = row.bytesState;
            if (factor) {
                row.busbwGbps = *row.algbwGbps * *factor;
                if (row.kind != CollectiveKind::Broadcast && row.kind != CollectiveKind::Reduce &&
                    row.kind != CollectiveKind::SendRecv)
                    row.bandwidthState = weakerState(row.bandwidthState, row.groupSizeState);
            } else {
                row.bandwidthReason = row.groupSize ? QStringLiteral("no bus factor for %1").arg(row.collective)
                                                    : QStringLiteral("group size unknown");
            }
        }
    }

    // 2. Across ranks: the traces with calls.
    std::vector<const CollectiveRankTrace *> ranks;
    for (const CollectiveRankTrace &t : traces)
        if (t.collectives && !t.collectives->calls.empty())
            ranks.push_back(&t);
    out.ranks = int(ranks.size());
    if (ranks.size() >= 2 && ranks.front() == &traces.front()) {
        bool allSequenced = true;
        for (const CollectiveRankTrace *t : ranks)
            for (const CollectiveCall &c : t->collectives->calls)
                allSequenced = allSequenced && c.sequence.has_value();
        out.matchedBy = allSequenced ? QStringLiteral("process group and sequence number")
                                     : QStringLiteral("order within process group and collective");
        // key → per rank the call index
        using Key = std::tuple<QString, QString, qint64>;  // group, collective (order matching), seq/ordinal
        std::vector<std::map<Key, size_t>> keyed(ranks.size());
        std::map<std::pair<QString, QString>, std::vector<qint64>> counts;  // (group, collective) → per rank
        for (size_t r = 0; r < ranks.size(); ++r) {
            std::map<std::pair<QString, QString>, qint64> ordinal;
            const auto &calls = ranks[r]->collectives->calls;
            for (size_t i = 0; i < calls.size(); ++i) {
                const CollectiveCall &c = calls[i];
                if (allSequenced) {
                    keyed[r][{groupOf(c), QString(), *c.sequence}] = i;
                } else {
                    const qint64 n = ordinal[{groupOf(c), c.collective}]++;
                    keyed[r][{groupOf(c), c.collective, n}] = i;
                }
            }
            for (const auto &[g, n] : ordinal) {
                auto &v = counts[g];
                v.resize(ranks.size(), 0);
                v[r] = n;
            }
        }
        std::set<std::pair<QString, QString>> refused;  // order matching needs equal counts
        if (!allSequenced)
            for (const auto &[g, v] : counts)
                if (std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) != v.end()) {
                    refused.insert(g);
                    ++out.unmatchedGroups;
                }
        // Arrival: the kernel's start where every rank's call has one, else the CPU op's start.
        bool allKernels = true;
        for (const auto &[key, i] : keyed[0]) {
            const CollectiveCall &c = ranks[0]->collectives->calls[i];
            allKernels = allKernels && c.kernels > 0;
        }
        out.arrivalBasis = allKernels ? QStringLiteral("NCCL/RCCL kernel start (GPU)")
                                      : QStringLiteral("collective op start (CPU)");
        // Relative timestamps count from each trace's baseTimeNanoseconds: onto rank 0's clock.
        std::vector<qint64> baseShiftNs(ranks.size(), 0);
        for (size_t r = 1; r < ranks.size(); ++r)
            if (ranks[r]->baseTimeNs && ranks[0]->baseTimeNs && *ranks[r]->baseTimeNs != *ranks[0]->baseTimeNs) {
                baseShiftNs[r] = *ranks[r]->baseTimeNs - *ranks[0]->baseTimeNs;
                out.clockShifted = true;
            }
        struct Matched {
            size_t primaryIndex;
            std::vector<std::optional<qint64>> arrivalNs;
        };
        std::vector<Matched> matched;
        for (const auto &[key, i0] : keyed[0]) {
            if (!allSequenced && refused.count({std::get<0>(key), std::get<1>(key)}))
                continue;
            Matched m{i0, std::vector<std::optional<qint64>>(ranks.size())};
            int present = 0;
            for (size_t r = 0; r < ranks.size(); ++r) {
                const auto it = keyed[r].find(key);
                if (it == keyed[r].end())
                    continue;
                const CollectiveCall &c = ranks[r]->collectives->calls[it->second];
                if (allKernels && c.kernels > 0)
                    m.arrivalNs[r] = c.kernelBeginNs + baseShiftNs[r];
                else if (!allKernels && c.haveCpu)
                    m.arrivalNs[r] = c.cpuBeginNs + baseShiftNs[r];
                if (m.arrivalNs[r])
                    ++present;
            }
            if (present >= 2 && m.arrivalNs[0])
                matched.push_back(std::move(m));
        }
        // Clocks: Kineto stamps every rank on its host's clock (wall-clock µs, or a monotonic clock
        // shared by the processes of one host); no offset is applied. Ranks whose matched calls do
        // not overlap in time are on clocks that cannot be compared: no skew.
        qint64 latestFirst = std::numeric_limits<qint64>::min(), earliestLast = std::numeric_limits<qint64>::max();
        for (size_t r = 0; r < ranks.size(); ++r) {
            qint64 lo = std::numeric_limits<qint64>::max(), hi = std::numeric_limits<qint64>::min();
            for (const Matched &m : matched)
                if (m.arrivalNs[r]) {
                    lo = std::min(lo, *m.arrivalNs[r]);
                    hi = std::max(hi, *m.arrivalNs[r]);
                }
            if (lo <= hi) {
                latestFirst = std::max(latestFirst, lo);
                earliestLast = std::min(earliestLast, hi);
            }
        }
        out.skewKnown = !matched.empty() && latestFirst <= earliestLast;
        if (matched.empty())
            out.clockNote = QStringLiteral("no call matched across the ranks");
        else if (!out.skewKnown)
            out.clockNote = QStringLiteral("the ranks' matched calls do not overlap in time: their clocks cannot be "
                                           "compared (no shared time base), so no skew");
        else if (out.clockShifted)
            out.clockNote = QStringLiteral("the ranks' timestamps put on rank %1's clock by the difference of their "
                                           "baseTimeNanoseconds (Kineto counts each trace from its own, rounded to the second)")
                                .arg(ranks[0]->rank.value_or(0));
        else
            out.clockNote = QStringLiteral("the ranks' own timestamps, no offset applied (Kineto writes each rank on "
                                           "its host's clock; ranks of one host share it)");
        out.rankTotals.resize(ranks.size());
        for (size_t r = 0; r < ranks.size(); ++r) {
            out.rankTotals[r].rank = ranks[r]->rank.value_or(int(r));
            out.rankTotals[r].file = ranks[r]->file;
        }
        for (CollectiveRow &row : out.rows)
            row.ranks = out.rankTotals;
        if (out.skewKnown) {
            for (const Matched &m : matched) {
                qint64 first = std::numeric_limits<qint64>::max(), last = std::numeric_limits<qint64>::min();
                size_t lastIndex = 0;
                for (size_t r = 0; r < ranks.size(); ++r)
                    if (m.arrivalNs[r]) {
                        first = std::min(first, *m.arrivalNs[r]);
                        if (*m.arrivalNs[r] > last) {  // the lowest index on a tie
                            last = *m.arrivalNs[r];
                            lastIndex = r;
                        }
                    }
                CollectiveRow &row = out.rows[callRow[m.primaryIndex]];
                const double skewS = double(last - first) * 1e-9;
                ++out.matchedCalls;
                ++row.matchedCalls;
                row.skewSumS += skewS;
                row.maxSkewS = std::max(row.maxSkewS, skewS);
                for (size_t r = 0; r < ranks.size(); ++r) {
                    if (!m.arrivalNs[r])
                        continue;
                    for (CollectiveRankWait *w : {&out.rankTotals[r], &row.ranks[r]}) {
                        ++w->matchedCalls;
                        w->lateSumS += double(*m.arrivalNs[r] - first) * 1e-9;
                        w->waitS += double(last - *m.arrivalNs[r]) * 1e-9;
                        if (r == lastIndex)
                            ++w->lastCount;
                    }
                }
            }
            for (CollectiveRow &row : out.rows) {
                qint64 most = 0;
                for (const CollectiveRankWait &w : row.ranks)
                    if (w.lastCount > most || (w.lastCount == most && most > 0 && w.rank < row.lastRank)) {
                        most = w.lastCount;
                        row.lastRank = w.rank;
                    }
            }
        }
    }
    std::stable_sort(out.rows.begin(), out.rows.end(),
                     [](const CollectiveRow &a, const CollectiveRow &b) { return a.timeS > b.timeS; });
    return out;
}

namespace {

/// The collective an NCCL/RCCL kernel's name says ("ncclDevKernel_AllGather_RING_LL(…)" →
/// "AllGather"); empty for a name that is no NCCL/RCCL kernel.
QString collectiveOfKernel(const std::string &name)
{
    for (const char *prefix : {"ncclDevKernel_", "ncclKernel_"}) {
        const std::string p(prefix);
        if (name.compare(0, p.size(), p) == 0) {
            const std::string rest = name.substr(p.size());
            return QString::fromStdString(rest.substr(0, rest.find_first_of("_(")));
        }
    }
    if (name.compare(0, 4, "rccl") == 0 || name.compare(0, 4, "nccl") == 0)
        return QString::fromStdString(name.substr(0, name.find('(')));
    return {};
}

/// A kernel trace without a Kineto trace (rocprofv3, rocpd, Nsight): its NCCL/RCCL kernels by
/// name, calls and time; their sizes are unknown.
void addKernelTraceRows(const RunAnalysis &run, CollectiveAnalysis &out)
{
    const KernelReading &reading = run.kernels.workbench;
    for (size_t id = 0; id < reading.perName.size() && id < run.kernels.names.size(); ++id) {
        const KernelNameStats &stats = reading.perName[id];
        if (stats.calls == 0)
            continue;
        const QString collective = collectiveOfKernel(run.kernels.names[id]);
        if (collective.isEmpty())
            continue;
        CollectiveRow row;
        row.collective = collective;
        row.kind = collectiveKind(collective);
        row.kernelName = QString::fromStdString(run.kernels.names[id]);
        row.calls = row.callsTimed = qint64(stats.calls);
        row.timeS = double(stats.totalNs) * 1e-9;
        row.bytesReason = row.bandwidthReason = QStringLiteral("only the kernel trace: no element count");
        out.rows.push_back(row);
        out.calls += row.calls;
        out.commKernels += row.calls;
    }
    std::stable_sort(out.rows.begin(), out.rows.end(),
                     [](const CollectiveRow &a, const CollectiveRow &b) { return a.timeS > b.timeS; });
    if (!out.rows.empty())
        out.primaryFile = QStringLiteral("the kernel trace");
}

} // namespace

CollectiveAnalysis analyzeCollectives(const RunAnalysis &run)
{
    std::vector<CollectiveRankTrace> traces;
    const TorchTrace &torch = run.torch;
    if (!torch.collectives || (torch.collectives->calls.empty() && torch.collectives->commKernels == 0)) {
        CollectiveAnalysis out;
        addKernelTraceRows(run, out);
        return out;
    }
    CollectiveRankTrace primary{QString(), std::nullopt, torch.collectives.get(), std::nullopt};
    if (!torch.timeline.files.empty()) {
        primary.file = torch.timeline.files.front().file;
        primary.rank = torch.timeline.files.front().rank;
        primary.baseTimeNs = torch.timeline.files.front().traits.identity.baseTimeNs;
    }
    if (!primary.rank && torch.collectives->rank)
        primary.rank = int(*torch.collectives->rank);
    traces.push_back(primary);
    for (const RankTraceReading &other : torch.otherRanks) {
        // A trace the job facts left out (another job, another phase) is a separate run.
        const bool separate = std::any_of(run.facts.job.separate.begin(), run.facts.job.separate.end(),
                                          [&](const SeparateRun &s) { return s.file == other.file; });
        if (separate || !other.collectives)
            continue;
        std::optional<int> rank = other.rank;
        if (!rank && other.collectives->rank)
            rank = int(*other.collectives->rank);
        std::optional<qint64> baseTimeNs;
        for (const GpuTimelineFile &f : torch.timeline.files)
            if (f.file == other.file)
                baseTimeNs = f.traits.identity.baseTimeNs;
        traces.push_back({other.file, rank, other.collectives.get(), baseTimeNs});
    }
    return analyzeCollectives(traces);
}

GpuLinkSpeed gpuLinkSpeed(const QString &roofModel)
{
    struct Entry {
        const char *model, *link;
        double aggregateGbps;  // the data sheet's figure, both directions
        const char *source;
    };
    static const Entry table[] = {
        {"NVIDIA V100 SXM2", "NVLink 2", 300.0,
         "NVIDIA Tesla V100 data sheet, NVLink 300 GB/s (images.nvidia.com/content/technologies/volta/pdf/"
         "tesla-volta-v100-datasheet-letter-fnl-web.pdf)"},
        {"NVIDIA A100 80GB SXM", "NVLink 3", 600.0,
         "NVIDIA A100 data sheet, NVLink 600 GB/s (nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
         "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)"},
        {"NVIDIA H100 SXM", "NVLink 4", 900.0,
         "NVIDIA H100 Tensor Core GPU data sheet, NVLink 900 GB/s (resources.nvidia.com/en-us-tensor-core/"
         "nvidia-tensor-core-gpu-datasheet)"},
        {"NVIDIA H200 SXM", "NVLink 4", 900.0, "NVIDIA H200 product page, NVLink 900 GB/s (nvidia.com/en-us/data-center/h200/)"},
        {"NVIDIA B200 (HGX)", "NVLink 5", 1800.0, "NVIDIA HGX B200 specifications, NVLink 1.8 TB/s per GPU (nvidia.com/en-us/data-center/hgx/)"},
        {"AMD Instinct MI300X", "Infinity Fabric", 896.0,
         "AMD Instinct MI300X data sheet, 7 Infinity Fabric links, 896 GB/s aggregate peer-to-peer "
         "(amd.com/en/products/accelerators/instinct/mi300/mi300x.html)"},
        {"AMD Instinct MI325X", "Infinity Fabric", 896.0,
         "AMD Instinct MI325X data sheet, 896 GB/s aggregate peer-to-peer (amd.com/en/products/accelerators/"
         "instinct/mi300/mi325x.html)"},
        {"AMD Instinct MI355X", "Infinity Fabric", 1075.2,
         "AMD Instinct MI355X data sheet, 7 links x 153.6 GB/s = 1075.2 GB/s aggregate (amd.com/en/products/"
         "accelerators/instinct/mi350/mi355x.html)"},
    };
    GpuLinkSpeed out;
    out.model = roofModel;
    if (roofModel.isEmpty()) {
        out.reason = QStringLiteral("the GPU is not in the GPU table");
        return out;
    }
    for (const Entry &e : table)
        if (roofModel == QLatin1String(e.model)) {
            out.perDirectionGbps = e.aggregateGbps / 2.0;
            out.link = QString::fromLatin1(e.link);
            out.source = QString::fromLatin1(e.source);
            return out;
        }
    out.reason = QStringLiteral("no peer-link bandwidth for %1 (PCIe card, or not in the link table)").arg(roofModel);
    return out;
}

GpuLinkSpeed runLinkSpeed(const RunAnalysis &run)
{
    const GpuRoof roof = decideGpuRoof(run.facts.devices);
    if (!roof.known) {
        GpuLinkSpeed out;
        out.reason = roof.reason.isEmpty() ? QStringLiteral("the GPU is not in the GPU table") : roof.reason;
        return out;
    }
    return gpuLinkSpeed(roof.model);
}

std::optional<CollectiveHeadline> biggestCollective(const RunAnalysis &run)
{
    // The primary trace's rows only: no matching across ranks (this runs on every recompute);
    // without Kineto calls, the kernel trace's NCCL/RCCL kernels.
    const bool kinetoCalls = run.torch.collectives && !run.torch.collectives->calls.empty();
    const CollectiveAnalysis a =
        kinetoCalls ? analyzeCollectives({CollectiveRankTrace{QString(), std::nullopt, run.torch.collectives.get(), std::nullopt}})
                    : analyzeCollectives(run);
    if (a.rows.empty() || a.rows.front().callsTimed == 0)
        return std::nullopt;
    CollectiveHeadline h;
    h.row = a.rows.front();
    h.link = runLinkSpeed(run);
    const CollectiveRow &r = h.row;
    QString what = QStringLiteral("%1 %2").arg(r.collective, r.bytes ? QStringLiteral("of %1").arg(formatNumber(*r.bytes / (1024.0 * 1024.0), 2) + QStringLiteral(" MiB"))
                                                                      : QStringLiteral("of unknown size"));
    QString text = QStringLiteral("Biggest collective: %1 (%2 calls, %3 in its kernels)")
                       .arg(what)
                       .arg(r.calls)
                       .arg(formatSeconds(r.timeS));
    if (!r.busbwGbps) {
        text += QStringLiteral(", bus bandwidth unknown (%1)").arg(r.bandwidthReason.isEmpty() ? QStringLiteral("no bus factor") : r.bandwidthReason);
    } else {
        text += QStringLiteral(", bus bandwidth %1 GB/s").arg(formatNumber(*r.busbwGbps, 1));
        if (r.groupSize && *r.groupSize > 8)
            text += QStringLiteral(" across %1%2 ranks (more than one node's GPUs: the network bounds it, not the GPU link)")
                        .arg(r.groupSizeState == ValueState::Estimated ? QStringLiteral("an estimated ") : QString())
                        .arg(*r.groupSize);
        else if (h.link.perDirectionGbps)
            text += QStringLiteral(" against the %1's %2 GB/s per direction (%3 % of it)")
                        .arg(h.link.link, formatNumber(*h.link.perDirectionGbps, 0),
                             formatNumber(100.0 * *r.busbwGbps / *h.link.perDirectionGbps, 1));
        else
            text += QStringLiteral("; the link's speed is unknown (%1)").arg(h.link.reason);
    }
    h.text = text + QLatin1Char('.');
    return h;
}

} // namespace goblin
