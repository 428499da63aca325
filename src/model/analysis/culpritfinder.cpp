#include "culpritfinder.h"

#include "kernelclassifier.h"

#include <QHash>

#include <algorithm>
#include <string>

namespace goblin {

namespace {

struct Sums {
    QHash<QString, std::pair<qint64, qint64>> ops, modules;  // name → (ns, events)
    qint64 totalNs = 0;
};

std::vector<Culprit> largest(const QHash<QString, std::pair<qint64, qint64>> &sums, double perStep, int limit)
{
    std::vector<Culprit> out;
    out.reserve(std::size_t(sums.size()));
    for (auto it = sums.cbegin(); it != sums.cend(); ++it)
        out.push_back({it.key(), std::nullopt, double(it.value().first) / 1e9 / perStep, it.value().second});
    std::sort(out.begin(), out.end(), [](const Culprit &a, const Culprit &b) {
        return a.secondsPerStep != b.secondsPerStep ? a.secondsPerStep > b.secondsPerStep : a.name < b.name;
    });
    if (out.size() > std::size_t(limit))
        out.resize(std::size_t(limit));
    return out;
}

} // namespace

RunCulprits findCulprits(const TraceAttribution &attribution, int limit)
{
    RunCulprits out;
    if (!attribution.available)
        return out;
    std::vector<const AttributionScope *> scopes;
    for (const AttributionScope &s : attribution.steps)
        if (!s.launches.nodes.empty())
            scopes.push_back(&s);
    out.steps = int(scopes.size());
    if (scopes.empty())
        scopes.push_back(&attribution.wholeTrace);
    out.scope = out.steps > 0 ? QStringLiteral("per profiled step (%1 steps)").arg(out.steps)
                              : QStringLiteral("over the whole trace (no steps marked)");
    const double perStep = out.steps > 0 ? double(out.steps) : 1.0;

    // The distinct GPU event names of the trees, classified once.
    QHash<QString, int> nameIds;
    std::vector<std::string> names;
    for (const AttributionScope *s : scopes)
        for (const LaunchNode &n : s->launches.nodes)
            if (n.kind == FrameKind::GpuEvent && !nameIds.contains(n.name)) {
                nameIds.insert(n.name, int(names.size()));
                names.push_back(n.name.toStdString());
            }
    const KernelClasses classes = classifyKernels(names, KernelPatternTable::forProfile(HeuristicsProfile::Workbench));
    const auto classesOf = [&](const QString &name) {
        std::array<bool, kCulpritClassCount> in{};
        const std::uint8_t f = classes.flags[std::size_t(nameIds.value(name))];
        const bool gemm = f & FlagGemm;
        in[std::size_t(CulpritClass::GenericGemm)] = gemm && (f & FlagGenericGemm);
        in[std::size_t(CulpritClass::Fp16Gemm)] = gemm && (f & FlagFp16);
        in[std::size_t(CulpritClass::Fp32Gemm)] = gemm && !(f & (FlagFp16 | FlagBf16));
        in[std::size_t(CulpritClass::Collective)] = f & FlagCollective;
        return in;
    };

    std::array<Sums, kCulpritClassCount> sums;
    for (const AttributionScope *s : scopes) {
        const std::vector<LaunchNode> &nodes = s->launches.nodes;
        for (const LaunchNode &leaf : nodes) {
            if (leaf.kind != FrameKind::GpuEvent || leaf.gpuNs <= 0)
                continue;
            const std::array<bool, kCulpritClassCount> in = classesOf(leaf.name);
            if (std::none_of(in.begin(), in.end(), [](bool b) { return b; }))
                continue;
            const LaunchNode *op = nullptr, *module = nullptr;
            for (int p = leaf.parent; p > 0 && (!op || !module); p = nodes[std::size_t(p)].parent) {
                const LaunchNode &n = nodes[std::size_t(p)];
                // A graph replay's launch outside every op names what launched the kernel.
                if (!op && (n.kind == FrameKind::Op || n.kind == FrameKind::RuntimeCall))
                    op = &n;
                else if (!module && n.kind == FrameKind::Module)
                    module = &n;
            }
            for (int c = 0; c < kCulpritClassCount; ++c) {
                if (!in[std::size_t(c)])
                    continue;
                Sums &x = sums[std::size_t(c)];
                x.totalNs += leaf.gpuNs;
                if (op) {
                    auto &v = x.ops[op->name];
                    v.first += leaf.gpuNs;
                    ++v.second;
                }
                if (module) {
                    auto &v = x.modules[module->name];
                    v.first += leaf.gpuNs;
                    ++v.second;
                }
            }
        }
    }

    // Shapes: of each op name, the recorded shapes with most device time (whole trace).
    QHash<QString, const OpStats *> shapesOf;
    for (const OpStats &op : attribution.wholeTrace.ops) {
        if (!op.inputShapes)
            continue;
        const OpStats *&best = shapesOf[op.name];
        if (!best || op.deviceSelfNs > best->deviceSelfNs)
            best = &op;
    }
    // Host ops in GPU-idle time, summed over the same scopes (an op's rows: its name, any shapes).
    QHash<QString, std::pair<qint64, qint64>> idleOps;
    qint64 idleTotalNs = 0;
    for (const AttributionScope *s : scopes)
        for (const OpStats &op : s->ops) {
            if (!attribution.gpuIdleMeasured || op.hostSelfGpuIdleNs <= 0)
                continue;
            auto &v = idleOps[op.name];
            v.first += op.hostSelfGpuIdleNs;
            v.second += op.calls;
            idleTotalNs += op.hostSelfGpuIdleNs;
        }
    out.hostIdle.deviceSPerStep = double(idleTotalNs) / 1e9 / perStep;
    out.hostIdle.ops = largest(idleOps, perStep, limit);

    for (int c = 0; c < kCulpritClassCount; ++c) {
        ClassCulprits &cc = out.classes[std::size_t(c)];
        cc.deviceSPerStep = double(sums[std::size_t(c)].totalNs) / 1e9 / perStep;
        cc.ops = largest(sums[std::size_t(c)].ops, perStep, limit);
        for (Culprit &op : cc.ops)
            if (const OpStats *best = shapesOf.value(op.name))
                op.inputShapes = best->inputShapes;
        cc.modules = largest(sums[std::size_t(c)].modules, perStep, limit);
    }
    out.available = true;
    return out;
}

} // namespace goblin
