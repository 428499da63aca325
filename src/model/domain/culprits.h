#pragma once
/// \file The ops and modules behind the budget's kernel buckets: which ops (with their shapes)
/// and which nn.Module frames launched the generic GEMMs, the fp16 and fp32 GEMMs and the
/// collectives, read from the torch trace's launch tree once at load (analysis/culprits.h). The
/// advice names them; docs/attribution.md defines the launch tree.

#include <QString>

#include <array>
#include <optional>
#include <vector>

namespace goblin {

/// An op or a module, with the GPU time of one kernel class it launched (or, for the host-idle
/// list, the host self time it ran while the GPU was idle).
struct Culprit {
    QString name;
    /// The op's input shapes where record_shapes was on (the shapes with most device time of the
    /// op's name); nullopt for modules and when not recorded.
    std::optional<QString> inputShapes;
    double secondsPerStep = 0.0;  ///< GPU time of the class launched from it, per step (see scope)
    qint64 events = 0;            ///< GPU events of the class launched from it (calls for host ops), all steps
};

/// The kernel classes an advice looks behind.
enum class CulpritClass { GenericGemm, Fp16Gemm, Fp32Gemm, Collective };
inline constexpr int kCulpritClassCount = 4;

struct ClassCulprits {
    double deviceSPerStep = 0.0;     ///< all GPU time of the class the trace attributes, per step
    std::vector<Culprit> ops;        ///< largest first (launching op = the innermost op)
    std::vector<Culprit> modules;    ///< innermost nn.Module frame around the launch, largest first
};

struct RunCulprits {
    bool available = false;  ///< the torch trace attributes GPU time to ops
    /// "per profiled step (N steps)" or "over the whole trace (no steps marked)": what the
    /// per-step figures divide by.
    QString scope;
    int steps = 0;           ///< 0: figures are whole-trace totals
    std::array<ClassCulprits, kCulpritClassCount> classes{};
    /// The CPU ops with the most host self time while every GPU of the trace was idle (host gap):
    /// secondsPerStep is that time; deviceSPerStep of the list, their sum over all ops.
    ClassCulprits hostIdle;
    const ClassCulprits &of(CulpritClass c) const { return classes[std::size_t(c)]; }
};

} // namespace goblin
