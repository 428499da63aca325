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

namespace {

// What the workbench counts as communication (docs/collectives.md): kernels of the communication
// libraries and the named communication kernels users meet, never a name merely containing
// "broadcast" (PyTorch's own elementwise kernels say broadcast: on ROCm
// at::native::…type_specialized_broadcast_kernel_launcher…, aten/src/ATen/native/cuda/CUDALoops.cuh;
// torch_scatter's gather_csr_broadcast_kernel). Each rule names where its kernel names were checked.
void appendWorkbenchCollectives(std::vector<KernelPattern> &patterns)
{
    auto add = [&](const QString &regex, const char *why) {
        patterns.push_back({FlagCollective, regex, QString::fromLatin1(why)});
    };
    // Library names as a token: nccl:all_reduce, nccl:broadcast (torch's gpu_user_annotation spans),
    // rccl_AllReduce_… .
    add(token(QStringLiteral("nccl|rccl")), "NCCL/RCCL token (nccl:all_reduce, rccl_…)");
    // Device kernels: ncclDevKernel_Generic, ncclDevKernel_AllReduce_Sum_bf16_RING_LL, ncclKernel_SendRecv_…,
    // which the reference's bounded token misses (FORMATS.md §4.5, §7).
    add(kLeft + QStringLiteral("(nccl|rccl)[A-Za-z0-9]*(Kernel|_)"),
        "RCCL/NCCL device kernel (ncclDevKernel*, ncclKernel_*, rccl_*)");
    // MSCCL inside RCCL: mscclKernel_Sum_half_Simple_false (ROCm/rccl src/include/msccl/msccl_kernel.h,
    // ROCm/rocmProfileData docs/perf_playbooks/rpd-101.md); MSCCL++: mscclpp::collective::allreduce…,
    // mscclpp::executionKernel (microsoft/mscclpp src/ext/collectives, src/core/include/execution_kernel.hpp).
    add(kLeft + QStringLiteral("(mscclKernel|mscclpp::)"), "MSCCL / MSCCL++ kernel");
    // The collective's own name as a word start (snake or flat case): PyTorch symmetric memory
    // one_shot_all_reduce_kernel, two_shot_all_reduce_kernel, multimem_all_reduce_kernel
    // (torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu), quick reduce
    // allreduce_prototype_twoshot (vllm csrc/quickreduce/quick_reduce.h), aiter's allgather_vec and
    // reduce_scatter_split_lastdim (ROCm/aiter csrc/include/custom_all_reduce.cuh). Only the left
    // edge is bounded, so MSCCL++'s allreduceAllPairs and allgatherFullmesh count too.
    add(kLeft + QStringLiteral("(all[_-]?reduce|all[_-]?gather|reduce[_-]?scatter|all[_-]?to[_-]?all|send[_-]?recv)"),
        "all-reduce, all-gather, reduce-scatter, all-to-all, send/recv");
    // CamelCase words, case-sensitive: TensorRT-LLM and sglang oneShotAllReduceKernel,
    // twoShotAllReduceKernel (NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/customAllReduceKernels.cu).
    add(QStringLiteral("(?-i:(?<![A-Z])(AllReduce|AllGather|ReduceScatter|AllToAll)(?![a-z]))"),
        "AllReduce / AllGather / ReduceScatter / AllToAll in a CamelCase name");
    // vLLM's custom all-reduce: vllm::cross_device_reduce_1stage / _2stage (vllm-project/vllm
    // csrc/custom_all_reduce.cuh); aiter and sglang carry the same kernels (aiter::cross_device_reduce_2stage).
    add(kLeft + QStringLiteral("cross_device_reduce_[0-9]stage"), "vLLM / aiter custom all-reduce");
    // vLLM's quick all-reduce on ROCm: quickreduce::allreduce_prototype_twoshot<…> (csrc/quickreduce/quick_reduce.h).
    add(kLeft + QStringLiteral("quickreduce::"), "vLLM quick all-reduce (quickreduce::)");
    // DeepEP expert-parallel dispatch/combine (deepseek-ai/DeepEP csrc/kernels/{intranode,internode,
    // internode_ll}.cu, later under legacy::; v2 deep_ep/include/deep_ep/impls/*.cuh in deep_ep::elastic),
    // also as primus_turbo::deep_ep::intranode::combine<…>; builds that keep DeepEP's first namespace
    // name it dpsk::ep::intranode::dispatch<…> / dpsk::ep::internode_ll::combine<…>. Not
    // deep_ep::layout::get_dispatch_layout nor the elastic epilogues: they compute on local data.
    add(QStringLiteral("(deep_ep|dpsk::ep)::(legacy::)?(intranode|internode|internode_ll)::|"
                       "deep_ep::elastic::(?![A-Za-z0-9_]*epilogue)"),
        "DeepEP dispatch/combine (intranode, internode, internode_ll, elastic; deep_ep:: or dpsk::ep::)");
    // NVSHMEM: its own kernels (nvshmemi_proxy_rma_entrypoint) and its
    // on-stream collectives (broadcast_on_stream_kernel, barrier_on_stream_kernel, alltoall…_on_stream_kernel,
    // rdxn_on_stream_kernel: NVSHMEM src/device/coll, as vendored in bytedance/flux 3rdparty/nvshmem).
    // rocSHMEM launches no kernel of its own (ROCm/rocSHMEM src/): its operations run inside the
    // user's kernels, which only the user's names can tell apart.
    add(kLeft + QStringLiteral("nvshmem[ix]?_"), "NVSHMEM kernel (nvshmemi_…)");
    add(kLeft + QStringLiteral("(barrier|sync|broadcast|fcollect|alltoall|rdxn|reducescatter)[A-Za-z0-9_]*_on_stream_kernel"),
        "NVSHMEM on-stream collective");
    // torch.distributed's operators (c10d::allreduce_, c10d::broadcast_) and its symmetric-memory kernels.
    add(kLeft + QStringLiteral("c10d::"), "torch.distributed (c10d::)");
}

} // namespace

KernelPatternTable KernelPatternTable::forProfile(HeuristicsProfile profile)
{
    KernelPatternTable t;
    t.profile = profile;
    // The reference's patterns (profile_parser.py, kept in the reference wing). The workbench shares
    // four of them; its collectives are its own (appendWorkbenchCollectives).
    const auto &ref = reference::kernelPatterns();
    using Kind = reference::KernelPatternKind;
    auto regex = [&](Kind kind) { return QString::fromLatin1(ref[size_t(kind)].regex); };
    if (profile == HeuristicsProfile::Reference)
        t.patterns.push_back({FlagCollective, regex(Kind::Collective), QStringLiteral("RCCL/NCCL collective token")});
    else
        appendWorkbenchCollectives(t.patterns);
    t.patterns.push_back({FlagGemm, regex(Kind::Gemm), QStringLiteral("GEMM token")});
    t.patterns.push_back(
        {FlagGenericGemm, regex(Kind::GenericGemm), QStringLiteral("untuned GEMM (generic/fallback/naive/reference)")});
    t.patterns.push_back({FlagFp16, regex(Kind::Fp16), QStringLiteral("fp16 type tag")});
    t.patterns.push_back({FlagBf16, regex(Kind::Bf16), QStringLiteral("bf16 type tag")});
    if (profile == HeuristicsProfile::Workbench) {
        // Tensile and hipBLASLt name every GEMM Cijk_<layout>…
        t.patterns.push_back({FlagGemm, kLeft + QStringLiteral("Cijk_"), QStringLiteral("Tensile/hipBLASLt GEMM (Cijk_)")});
        // Type names the reference's tokens miss: ck::bhalf_t, Tensile type codes.
        t.patterns.push_back({FlagBf16, kLeft + QStringLiteral("bhalf(_t)?") + kRight, QStringLiteral("CK bf16 type")});
        t.patterns.push_back({FlagBf16, QStringLiteral("^Cijk_.*?_(BBS|BSS|BBH)_"), QStringLiteral("Tensile bf16 type code")});
        t.patterns.push_back({FlagFp16, QStringLiteral("^Cijk_.*?_(HHS|HSS|HHH)_"), QStringLiteral("Tensile fp16 type code")});
        t.patterns.push_back({FlagAttention, QStringLiteral("fmha|attn|attention|flash|sdpa"),
                              QStringLiteral("attention kernel")});
        // The HIP runtime's blit kernels (ROCm clr rocclr/device/rocm/rocblit.cpp): hipMemcpy and
        // hipMemset run as __amd_rocclr_copyBuffer / copyBufferAligned / copyBufferRect /
        // fillBufferAligned… kernels when the SDMA engines are not used. They move or set memory.
        t.patterns.push_back({FlagCopyKernel, QStringLiteral("__amd_rocclr_(copy|fill)(Buffer|Image)"),
                              QStringLiteral("ROCm runtime blit kernel (copyBuffer, fillBuffer): a copy or memset")});
    } else {
        t.patterns.push_back({FlagAttention, QStringLiteral("flash|attn|attention|sdpa"), QStringLiteral("attention kernel")});
    }
    return t;
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
