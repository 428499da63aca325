#pragma once
/// \file What a kernel name is, as the classifier decides it: class flags per name id, the
/// attention kind, the class the kernel table shows. Value types only; the patterns that decide
/// them are analysis/kernelclassifier.h.

#include <QString>
#include <cstdint>
#include <vector>

namespace goblin {

enum KernelFlag : std::uint8_t {
    FlagCollective = 1 << 0,
    FlagGemm = 1 << 1,
    FlagGenericGemm = 1 << 2,  ///< a GEMM whose name also says generic/fallback/naive/reference
    FlagFp16 = 1 << 3,
    FlagBf16 = 1 << 4,
    FlagAttention = 1 << 5,    ///< attention kernels, for the kernel table's class column
    FlagCopyKernel = 1 << 6,   ///< a runtime's copy or fill kernel (ROCm's __amd_rocclr_copyBuffer): a copy, not compute
};

/// What the attention detector says of one name (reference: _detect_attention_kernel).
enum class AttentionKind : std::uint8_t { None, FlashRocm, Flash, Sdpa };
QString attentionLabel(AttentionKind kind);  ///< "flash_rocm", "flash", "sdpa"

/// The class the kernel table shows.
enum class KernelClass { Gemm, GenericGemm, Collective, Attention, Copy, Other };
QString kernelClassName(KernelClass kind);  ///< "GEMM", "generic GEMM", "collective", "attention", "copy", "other"

struct KernelClasses {
    std::vector<std::uint8_t> flags;         ///< per name id, KernelFlag bits
    std::vector<AttentionKind> attention;    ///< per name id
    KernelClass displayClass(std::size_t nameId) const;
};

} // namespace goblin
