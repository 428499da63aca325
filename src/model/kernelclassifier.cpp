#include "kernelclassifier.h"

#include "reference/runmetrics.h"

#include <QRegularExpression>

namespace goblin {

namespace {

// The reference separates tokens with any non-alphanumeric character (so '_' separates too).
const QString kLeft = QStringLiteral("(?<![A-Za-z0-9])");
const QString kRight = QStringLiteral("(?![A-Za-z0-9])");

QString token(const QString &alternatives)
{
    return kLeft + QLatin1Char('(') + alternatives + QLatin1Char(')') + kRight;
}

} // namespace

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
    case KernelClass::Other:
        break;
    }
    return QStringLiteral("other");
}

KernelPatternTable KernelPatternTable::forProfile(HeuristicsProfile profile)
{
    KernelPatternTable t;
    t.profile = profile;
    // The reference's five patterns (profile_parser.py, kept in the reference wing), shared by both profiles.
    const auto &ref = reference::kernelPatterns();
    using Kind = reference::KernelPatternKind;
    auto regex = [&](Kind kind) { return QString::fromLatin1(ref[size_t(kind)].regex); };
    t.patterns = {
        {FlagCollective, regex(Kind::Collective), QStringLiteral("RCCL/NCCL collective token")},
        {FlagGemm, regex(Kind::Gemm), QStringLiteral("GEMM token")},
        {FlagGenericGemm, regex(Kind::GenericGemm), QStringLiteral("untuned GEMM (generic/fallback/naive/reference)")},
        {FlagFp16, regex(Kind::Fp16), QStringLiteral("fp16 type tag")},
        {FlagBf16, regex(Kind::Bf16), QStringLiteral("bf16 type tag")},
    };
    if (profile == HeuristicsProfile::Workbench) {
        // Real RCCL kernels are ncclDevKernel_Generic / ncclKernel_AllGather_… / rccl…: the
        // reference's bounded 'nccl' token misses them (FORMATS.md §4.5, §7).
        t.patterns.push_back({FlagCollective, kLeft + QStringLiteral("(nccl|rccl)[A-Za-z0-9]*(Kernel|_)"),
                              QStringLiteral("RCCL/NCCL device kernel (ncclDevKernel*, ncclKernel_*, rccl_*)")});
        t.patterns.push_back({FlagCollective, token(QStringLiteral("all[_-]?gather|all[_-]?to[_-]?all|send[_-]?recv")),
                              QStringLiteral("all-gather, all-to-all, send/recv collective")});
        // Tensile and hipBLASLt name every GEMM Cijk_<layout>…
        t.patterns.push_back({FlagGemm, kLeft + QStringLiteral("Cijk_"), QStringLiteral("Tensile/hipBLASLt GEMM (Cijk_)")});
        // Type names the reference's tokens miss: ck::bhalf_t, Tensile type codes.
        t.patterns.push_back({FlagBf16, kLeft + QStringLiteral("bhalf(_t)?") + kRight, QStringLiteral("CK bf16 type")});
        t.patterns.push_back({FlagBf16, QStringLiteral("^Cijk_.*?_(BBS|BSS|BBH)_"), QStringLiteral("Tensile bf16 type code")});
        t.patterns.push_back({FlagFp16, QStringLiteral("^Cijk_.*?_(HHS|HSS|HHH)_"), QStringLiteral("Tensile fp16 type code")});
        t.patterns.push_back({FlagAttention, QStringLiteral("fmha|attn|attention|flash|sdpa"),
                              QStringLiteral("attention kernel")});
    } else {
        t.patterns.push_back({FlagAttention, QStringLiteral("flash|attn|attention|sdpa"), QStringLiteral("attention kernel")});
    }
    return t;
}

KernelClass KernelClasses::displayClass(std::size_t nameId) const
{
    if (nameId >= flags.size())
        return KernelClass::Other;
    const std::uint8_t f = flags[nameId];
    if (f & FlagCollective)
        return KernelClass::Collective;
    if ((f & FlagGemm) && (f & FlagGenericGemm))
        return KernelClass::GenericGemm;
    if (f & FlagGemm)
        return KernelClass::Gemm;
    if ((f & FlagAttention) || (nameId < attention.size() && attention[nameId] != AttentionKind::None))
        return KernelClass::Attention;
    return KernelClass::Other;
}

static AttentionKind detectAttention(const QString &lowerName, bool workbench)
{
    // The reference's _detect_attention_kernel (in the reference wing), in its order.
    const QString label = reference::attentionOfName(lowerName);
    if (label == QLatin1String("flash_rocm"))
        return AttentionKind::FlashRocm;
    if (label == QLatin1String("flash"))
        return AttentionKind::Flash;
    if (label == QLatin1String("sdpa"))
        return AttentionKind::Sdpa;
    // Composable-kernel FMHA and AOTriton's attn_fwd/bwd are flash-attention implementations
    // that the reference labels "eager".
    if (workbench && (lowerName.contains(QLatin1String("fmha")) || lowerName.startsWith(QLatin1String("attn_fwd")) ||
                      lowerName.startsWith(QLatin1String("bwd_kernel_dk_dv")) ||
                      lowerName.startsWith(QLatin1String("bwd_kernel_dq"))))
        return AttentionKind::Flash;
    return AttentionKind::None;
}

KernelClasses classifyKernels(const std::vector<std::string> &names, const KernelPatternTable &table)
{
    struct Compiled {
        KernelFlag flag;
        QRegularExpression re;
    };
    std::vector<Compiled> compiled;
    const bool workbench = table.profile == HeuristicsProfile::Workbench;
    for (const KernelPattern &p : table.patterns) {
        QRegularExpression re(p.regex, QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid())
            continue;
        re.optimize();
        compiled.push_back({p.flag, re});
    }
    KernelClasses out;
    out.flags.resize(names.size(), 0);
    out.attention.resize(names.size(), AttentionKind::None);
    for (std::size_t i = 0; i < names.size(); ++i) {
        const QString name = QString::fromUtf8(names[i].data(), qsizetype(names[i].size()));
        std::uint8_t f = 0;
        std::uint8_t genericMatch = 0;
        for (const Compiled &c : compiled) {
            if ((c.flag == FlagGenericGemm ? genericMatch : (f & c.flag)) != 0)
                continue;  // already known
            if (c.re.match(name).hasMatch()) {
                if (c.flag == FlagGenericGemm)
                    genericMatch = 1;
                else
                    f |= c.flag;
            }
        }
        if (genericMatch && (f & FlagGemm))
            f |= FlagGenericGemm;
        out.flags[i] = f;
        out.attention[i] = detectAttention(name.toLower(), workbench);
    }
    return out;
}

QStringList validatePatternTable(const KernelPatternTable &table)
{
    QStringList problems;
    for (const KernelPattern &p : table.patterns) {
        QRegularExpression re(p.regex);
        if (!re.isValid())
            problems << QStringLiteral("pattern '%1' (%2): %3 at offset %4")
                            .arg(p.regex, p.why, re.errorString())
                            .arg(re.patternErrorOffset());
    }
    return problems;
}

} // namespace goblin
