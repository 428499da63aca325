#pragma once
/// \file Kernel-name classification. Each profile's patterns live in one table, so they can be
/// edited and the names reclassified live; a run has few distinct names, so classifying them all
/// again is cheap and never touches per-row data.

#include "heuristics.h"

#include <QString>
#include <cstdint>
#include <string>
#include <vector>

namespace goblin {

enum KernelFlag : std::uint8_t {
    FlagCollective = 1 << 0,
    FlagGemm = 1 << 1,
    FlagGenericGemm = 1 << 2,  ///< a GEMM whose name also says generic/fallback/naive/reference
    FlagFp16 = 1 << 3,
    FlagBf16 = 1 << 4,
    FlagAttention = 1 << 5,    ///< attention kernels, for the kernel table's class column
};

/// What the attention detector says of one name (reference: _detect_attention_kernel).
enum class AttentionKind : std::uint8_t { None, FlashRocm, Flash, Sdpa };
QString attentionLabel(AttentionKind kind);  ///< "flash_rocm", "flash", "sdpa"

/// The class the kernel table shows.
enum class KernelClass { Gemm, GenericGemm, Collective, Attention, Other };
QString kernelClassName(KernelClass kind);  ///< "GEMM", "generic GEMM", "collective", "attention", "other"

/// One rule: names matching `regex` (case-insensitive, PCRE) get `flag`. The generic-GEMM rule
/// applies to names that also matched a GEMM rule, as in the reference.
struct KernelPattern {
    KernelFlag flag;
    QString regex;
    QString why;  ///< shown to the user next to the pattern
};

struct KernelPatternTable {
    HeuristicsProfile profile = HeuristicsProfile::Workbench;  ///< also picks the attention labels
    std::vector<KernelPattern> patterns;
    static KernelPatternTable forProfile(HeuristicsProfile profile);
};

struct KernelClasses {
    std::vector<std::uint8_t> flags;         ///< per name id, KernelFlag bits
    std::vector<AttentionKind> attention;    ///< per name id
    KernelClass displayClass(std::size_t nameId) const;
};

/// Classifies every distinct name once. Invalid regexes are skipped (and reported by
/// validatePatternTable).
KernelClasses classifyKernels(const std::vector<std::string> &names, const KernelPatternTable &table);
QStringList validatePatternTable(const KernelPatternTable &table);

} // namespace goblin
