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
