#include "traits.h"

namespace goblin {

QString runKindName(RunKind::Kind kind)
{
    switch (kind) {
    case RunKind::Kind::Training:
        return QStringLiteral("training");
    case RunKind::Kind::Inference:
        return QStringLiteral("inference");
    case RunKind::Kind::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

} // namespace goblin

namespace goblin {

QString programKindName(ProgramKind kind)
{
    switch (kind) {
    case ProgramKind::PyTorchTraining: return QStringLiteral("training");
    case ProgramKind::PyTorchInference: return QStringLiteral("inference");
    case ProgramKind::GraphCapture: return QStringLiteral("graph_capture");
    case ProgramKind::GraphReplay: return QStringLiteral("graph_replay");
    case ProgramKind::MicroBenchmark: return QStringLiteral("micro_benchmark");
    case ProgramKind::NonPyTorch: return QStringLiteral("non_pytorch");
    case ProgramKind::RangeProfile: return QStringLiteral("range_profile");
    case ProgramKind::Unknown: break;
    }
    return QStringLiteral("unknown");
}

QString programKindWords(ProgramKind kind)
{
    switch (kind) {
    case ProgramKind::PyTorchTraining: return QStringLiteral("PyTorch training");
    case ProgramKind::PyTorchInference: return QStringLiteral("PyTorch inference");
    case ProgramKind::GraphCapture: return QStringLiteral("a graph capture");
    case ProgramKind::GraphReplay: return QStringLiteral("graph replay");
    case ProgramKind::MicroBenchmark: return QStringLiteral("a micro-benchmark");
    case ProgramKind::NonPyTorch: return QStringLiteral("a non-PyTorch program");
    case ProgramKind::RangeProfile: return QStringLiteral("a range-profiler capture");
    case ProgramKind::Unknown: break;
    }
    return QStringLiteral("an unknown program");
}

} // namespace goblin
