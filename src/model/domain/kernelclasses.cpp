#include "kernelclasses.h"

namespace goblin {

QString attentionLabel(AttentionKind kind)
{
    switch (kind) {
    case AttentionKind::FlashRocm:
        return QStringLiteral("flash_rocm");
    case AttentionKind::Flash:
        return QStringLiteral("flash");
    case AttentionKind::Sdpa:
        return QStringLiteral("sdpa");
    case AttentionKind::None:
        break;
    }
    return QString();
}

QString kernelClassName(KernelClass kind)
{
    switch (kind) {
    case KernelClass::Gemm:
        return QStringLiteral("GEMM");
    case KernelClass::GenericGemm:
        return QStringLiteral("generic GEMM");
    case KernelClass::Collective:
        return QStringLiteral("collective");
    case KernelClass::Attention:
        return QStringLiteral("attention");
    case KernelClass::Copy:
        return QStringLiteral("copy");
    case KernelClass::Other:
        break;
    }
    return QStringLiteral("other");
}

KernelClass KernelClasses::displayClass(std::size_t nameId) const
{
    if (nameId >= flags.size())
        return KernelClass::Other;
    const std::uint8_t f = flags[nameId];
    if (f & FlagCollective)
        return KernelClass::Collective;
    if (f & FlagCopyKernel)
        return KernelClass::Copy;
    if ((f & FlagGemm) && (f & FlagGenericGemm))
        return KernelClass::GenericGemm;
    if (f & FlagGemm)
        return KernelClass::Gemm;
    if ((f & FlagAttention) || (nameId < attention.size() && attention[nameId] != AttentionKind::None))
        return KernelClass::Attention;
    return KernelClass::Other;
}

} // namespace goblin
