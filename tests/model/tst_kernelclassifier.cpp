// Kernel-name classes: the reference's patterns and the workbench's additions (FORMATS.md §4.5, §7).

#include "kernelclassifier.h"

#include <QTest>

using namespace goblin;

class TestKernelClassifier : public QObject
{
    Q_OBJECT

private slots:
    void classify_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("referenceFlags");
        QTest::addColumn<int>("workbenchFlags");
        QTest::newRow("rccl token") << "rccl_AllReduce_RING_LL128_Sum_bf16" << int(FlagCollective | FlagBf16)
                                    << int(FlagCollective | FlagBf16);
        QTest::newRow("legacy nccl allreduce") << "ncclKernel_AllReduce_RING_LL_Sum_half(ncclDevComm*)"
                                               << int(FlagCollective | FlagFp16) << int(FlagCollective | FlagFp16);
        QTest::newRow("ncclDevKernel is missed by the reference")
            << "ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)" << 0 << int(FlagCollective);
        QTest::newRow("all-gather is missed by the reference")
            << "ncclKernel_AllGather_RING_LL_Sum_i8(ncclDevComm*, unsigned long, ncclWork*)" << 0 << int(FlagCollective);
        QTest::newRow("Tensile Cijk is a GEMM only for the workbench")
            << "Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x256x64_MI16x16x1" << 0 << int(FlagGemm | FlagBf16);
        QTest::newRow("fp16 Tensile type code") << "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8" << 0
                                                << int(FlagGemm | FlagFp16);
        QTest::newRow("generic gemm") << "void rocblas_gemm_naive_reference_kernel<__hip_bfloat16, float>(long)"
                                      << int(FlagGemm | FlagGenericGemm | FlagBf16)
                                      << int(FlagGemm | FlagGenericGemm | FlagBf16);
        QTest::newRow("generic but not a gemm") << "void at::native::generic_kernel<float>()" << 0 << 0;
        QTest::newRow("token needs boundaries") << "void gemmology_kernel()" << 0 << 0;
        QTest::newRow("ck bhalf_t is bf16 for the workbench")
            << "void ck_tile::kentry<ck_tile::FmhaBwd<ck::bhalf_t, float> >" << 0 << int(FlagBf16 | FlagAttention);
        QTest::newRow("half inside c10::Half") << "void at::native::vectorized_elementwise_kernel<4, c10::Half>"
                                               << int(FlagFp16) << int(FlagFp16);
    }

    void classify()
    {
        QFETCH(QString, name);
        QFETCH(int, referenceFlags);
        QFETCH(int, workbenchFlags);
        const std::vector<std::string> names{name.toStdString()};
        const auto ref = classifyKernels(names, KernelPatternTable::forProfile(HeuristicsProfile::Reference));
        const auto wb = classifyKernels(names, KernelPatternTable::forProfile(HeuristicsProfile::Workbench));
        const int attentionMask = FlagAttention;
        QCOMPARE(int(ref.flags[0]) & ~attentionMask, referenceFlags & ~attentionMask);
        QCOMPARE(int(wb.flags[0]) & ~(workbenchFlags & attentionMask ? 0 : attentionMask), workbenchFlags);
    }

    void attention_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("reference");
        QTest::addColumn<QString>("workbench");
        QTest::newRow("flash_attn rocm") << "void flash_attn_rocm::fmha_fwd_kernel<ck::half_t, 128, true>"
                                         << "flash_rocm" << "flash_rocm";
        QTest::newRow("dao flash") << "void flash_attn::flash_fwd_kernel<Flash_fwd_kernel_traits>" << "flash" << "flash";
        QTest::newRow("sdpa") << "scaled_dot_product_attention_math_kernel<float>" << "sdpa" << "sdpa";
        QTest::newRow("CK FMHA is flash for the workbench") << "fmha_fwd_d128_bf16_batch_b128x128x32" << "" << "flash";
        QTest::newRow("plain kernel") << "void at::native::reduce_kernel<512, 1>" << "" << "";
    }

    void attention()
    {
        QFETCH(QString, name);
        QFETCH(QString, reference);
        QFETCH(QString, workbench);
        const std::vector<std::string> names{name.toStdString()};
        QCOMPARE(attentionLabel(classifyKernels(names, KernelPatternTable::forProfile(HeuristicsProfile::Reference))
                                    .attention[0]),
                 reference);
        QCOMPARE(attentionLabel(classifyKernels(names, KernelPatternTable::forProfile(HeuristicsProfile::Workbench))
                                    .attention[0]),
                 workbench);
    }

    void tablesAreValid()
    {
        for (auto p : {HeuristicsProfile::Reference, HeuristicsProfile::Workbench})
            QVERIFY(validatePatternTable(KernelPatternTable::forProfile(p)).isEmpty());
        KernelPatternTable broken;
        broken.patterns.push_back({FlagGemm, QStringLiteral("(unclosed"), QStringLiteral("user edit")});
        QCOMPARE(validatePatternTable(broken).size(), 1);
    }

    void editedTableReclassifies()
    {
        // A user-edited table (the later pattern editor) changes the classes of the same names.
        const std::vector<std::string> names{"my_custom_matmul_v2", "triton_red_fused_sum"};
        KernelPatternTable table = KernelPatternTable::forProfile(HeuristicsProfile::Workbench);
        QVERIFY(!(classifyKernels(names, table).flags[1] & FlagGemm));
        table.patterns.push_back({FlagGemm, QStringLiteral("^triton_red"), QStringLiteral("user rule")});
        const KernelClasses c = classifyKernels(names, table);
        QVERIFY(c.flags[0] & FlagGemm);
        QVERIFY(c.flags[1] & FlagGemm);
    }
};

QTEST_GUILESS_MAIN(TestKernelClassifier)
#include "tst_kernelclassifier.moc"
