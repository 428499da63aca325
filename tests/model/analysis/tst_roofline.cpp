// The GPU's roof (resources/gpus.json `roofs`) and the cost of each op from its recorded shapes
// and dtypes (docs/roofline.md): every table value has a source, an unknown GPU has no roof, the
// formulas on hand-worked shapes, and one row against an H100's roof worked by hand.

#include "gpuroofs.h"
#include "opflops.h"
#include "oproofline.h"

#include <QTest>

#include <cmath>

using namespace goblin;

namespace {

DeviceFact device(const QString &model)
{
    DeviceFact d;
    d.model = model;
    return d;
}

} // namespace

class TestRoofline : public QObject
{
    Q_OBJECT

private slots:
    void everyTableValueHasASource()
    {
        const std::vector<RoofTableRow> rows = gpuRoofTable();
        QVERIFY(rows.size() >= 19);
        for (const RoofTableRow &row : rows) {
            QVERIFY2(row.problems.isEmpty(),
                     qPrintable(QStringLiteral("%1 / %2: %3").arg(row.entryModel, row.variantModel, row.problems.join("; "))));
            QVERIFY(row.roof.hbmTbps.value);
            QVERIFY(!row.roof.hbmTbps.source.isEmpty());
            for (const RoofValue &v : row.roof.peakTflops)
                QVERIFY(!v.value || !v.source.isEmpty());
        }
    }

    void aValueWithoutSourceIsCaught_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("problem");
        const QByteArray head = R"({"gpus": [{"match": ["x1"], "model": "X1", "roofs": [{"model": "X1", )";
        QTest::newRow("peak without source")
            << head + R"("peak_tflops": {"bf16": {"value": 100}}, "hbm_tbps": {"value": 1, "source": "s"}}]}], "roof_sources": {"s": "data sheet"}})"
            << "peak_tflops.bf16 has no source";
        QTest::newRow("source key not in roof_sources")
            << head + R"("peak_tflops": {"bf16": {"value": 100, "source": "t"}}, "hbm_tbps": {"value": 1, "source": "s"}}]}], "roof_sources": {"s": "data sheet"}})"
            << "source key 't'";
        QTest::newRow("bandwidth without source")
            << head + R"("peak_tflops": {"bf16": {"value": 100, "source": "s"}}, "hbm_tbps": {"value": 1}}]}], "roof_sources": {"s": "data sheet"}})"
            << "hbm_tbps has no source";
        QTest::newRow("no bandwidth")
            << head + R"("peak_tflops": {"bf16": {"value": 100, "source": "s"}}}]}], "roof_sources": {"s": "data sheet"}})"
            << "no hbm_tbps";
        QTest::newRow("unknown datatype")
            << head + R"("peak_tflops": {"bf17": {"value": 100, "source": "s"}}, "hbm_tbps": {"value": 1, "source": "s"}}]}], "roof_sources": {"s": "data sheet"}})"
            << "'bf17' is no datatype";
    }
    void aValueWithoutSourceIsCaught()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, problem);
        const std::vector<RoofTableRow> rows = gpuRoofTable(json);
        QCOMPARE(rows.size(), size_t(1));
        QVERIFY2(rows[0].problems.join("; ").contains(problem), qPrintable(rows[0].problems.join("; ")));
    }

    void modelsOfTheIssue_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<double>("peakTflops");
        QTest::addColumn<double>("hbmTbps");
        QTest::newRow("MI210") << "AMD Instinct MI210" << "AMD Instinct MI210" << "fp16" << 181.0 << 1.6384;
        QTest::newRow("MI250X GCD") << "AMD Instinct MI250X" << "AMD Instinct MI250X (one GCD)" << "bf16" << 191.5 << 1.6384;
        QTest::newRow("MI300X") << "AMD Instinct MI300X" << "AMD Instinct MI300X" << "bf16" << 1307.4 << 5.3;
        QTest::newRow("MI300X VF") << "AMD Instinct MI300X VF" << "AMD Instinct MI300X" << "fp8" << 2614.9 << 5.3;
        QTest::newRow("MI325X") << "AMD Instinct MI325X" << "AMD Instinct MI325X" << "tf32" << 653.7 << 6.0;
        QTest::newRow("MI355X") << "AMD Instinct MI355X" << "AMD Instinct MI355X" << "fp8" << 5033.2 << 8.0;
        QTest::newRow("V100 SXM2") << "Tesla V100-SXM2-16GB" << "NVIDIA V100 SXM2" << "fp16" << 125.0 << 0.9;
        QTest::newRow("V100 PCIe") << "Tesla V100-PCIE-32GB" << "NVIDIA V100 PCIe" << "fp32" << 14.0 << 0.9;
        QTest::newRow("V100S PCIe") << "Tesla V100S-PCIE-32GB" << "NVIDIA V100S PCIe" << "fp16" << 130.0 << 1.134;
        QTest::newRow("A100 40GB") << "NVIDIA A100-SXM4-40GB" << "NVIDIA A100 40GB" << "bf16" << 312.0 << 1.555;
        QTest::newRow("A100 80GB SXM") << "NVIDIA A100-SXM4-80GB" << "NVIDIA A100 80GB SXM" << "tf32" << 156.0 << 2.039;
        QTest::newRow("A100 80GB PCIe") << "NVIDIA A100 80GB PCIe" << "NVIDIA A100 80GB PCIe" << "fp64" << 19.5 << 1.935;
        QTest::newRow("H100 SXM") << "NVIDIA H100 80GB HBM3" << "NVIDIA H100 SXM" << "bf16" << 989.5 << 3.35;
        QTest::newRow("H100 PCIe") << "NVIDIA H100 PCIe" << "NVIDIA H100 PCIe" << "fp16" << 756.5 << 2.0;
        QTest::newRow("H200") << "NVIDIA H200" << "NVIDIA H200 SXM" << "fp8" << 1979.0 << 4.8;
        QTest::newRow("B200") << "NVIDIA B200" << "NVIDIA B200 (HGX)" << "bf16" << 2250.0 << 7.7;
        QTest::newRow("L40S") << "NVIDIA L40S" << "NVIDIA L40S" << "fp8" << 733.0 << 0.864;
        QTest::newRow("RTX 4090") << "NVIDIA GeForce RTX 4090" << "NVIDIA GeForce RTX 4090" << "bf16" << 165.2 << 1.008;
        QTest::newRow("T4") << "Tesla T4" << "NVIDIA T4" << "fp16" << 65.0 << 0.32;
    }
    void modelsOfTheIssue()
    {
        QFETCH(QString, name);
        QFETCH(QString, model);
        QFETCH(QString, dtype);
        QFETCH(double, peakTflops);
        QFETCH(double, hbmTbps);
        const GpuRoof roof = gpuRoofFromName(name);
        QVERIFY2(roof.known, qPrintable(roof.reason));
        QCOMPARE(roof.model, model);
        QCOMPARE(roof.deviceName, name);
        int d = 0;
        while (d < kRoofDtypeCount && roofDtypeKey(RoofDtype(d)) != dtype)
            ++d;
        QVERIFY(d < kRoofDtypeCount);
        QCOMPARE(roof.peakTflops[size_t(d)].value.value_or(-1), peakTflops);
        QCOMPARE(roof.hbmTbps.value.value_or(-1), hbmTbps);
        QVERIFY(!roof.peakTflops[size_t(d)].source.isEmpty());
    }

    void unknownGpuHasNoRoof_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("no name") << "";
        QTest::newRow("a GPU the table does not know") << "AMD Radeon Graphics";
        QTest::newRow("A100 of no stated size") << "NVIDIA A100";
        QTest::newRow("H100 NVL: memory entry, no roof") << "NVIDIA H100 NVL";
        QTest::newRow("V100 DGX Station") << "Tesla V100-DGXS-32GB";
    }
    void unknownGpuHasNoRoof()
    {
        QFETCH(QString, name);
        const GpuRoof roof = gpuRoofFromName(name);
        QVERIFY(!roof.known);
        QVERIFY(!roof.reason.isEmpty());
        QVERIFY(roof.model.isEmpty());
        QVERIFY(!roof.hbmTbps.value);
        for (const RoofValue &v : roof.peakTflops)
            QVERIFY(!v.value);
    }

    void runDevicesDecideTheRoof()
    {
        DeviceFacts facts;
        QVERIFY(!decideGpuRoof(facts).known);
        facts.devices = {device(QStringLiteral("NVIDIA H100 80GB HBM3")), device(QString()),
                         device(QStringLiteral("NVIDIA H100 80GB HBM3"))};
        QCOMPARE(decideGpuRoof(facts).model, QStringLiteral("NVIDIA H100 SXM"));
        facts.devices.push_back(device(QStringLiteral("NVIDIA H100 PCIe")));
        const GpuRoof mixed = decideGpuRoof(facts);
        QVERIFY(!mixed.known);
        QVERIFY(mixed.reason.contains(QStringLiteral("different GPUs")));
    }

    void cost_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("shapes");
        QTest::addColumn<QString>("types");
        QTest::addColumn<double>("flops");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<QString>("dtype");  // empty: not modelled
        const QString bf = QStringLiteral("\"c10::BFloat16\"");
        auto t = [](QStringList l) { return QStringLiteral("[") + l.join(',') + QStringLiteral("]"); };
        QTest::newRow("mm") << "aten::mm" << "[[64,32],[32,16]]" << t({bf, bf}) << 2.0 * 64 * 16 * 32
                            << (64.0 * 32 + 32 * 16 + 64 * 16) * 2 << "bf16";
        QTest::newRow("addmm: bias of its own shape") << "aten::addmm" << "[[512],[141,512],[512,512],[],[]]"
                                                      << t({bf, bf, bf, "\"Scalar\"", "\"Scalar\""})
                                                      << 2.0 * 141 * 512 * 512 + 141 * 512
                                                      << (141.0 * 512 + 512 * 512 + 141 * 512 + 512) * 2 << "bf16";
        QTest::newRow("bmm fp32") << "aten::bmm" << "[[8,4,3],[8,3,5]]" << "[\"float\",\"float\"]" << 2.0 * 8 * 4 * 5 * 3
                                  << 8.0 * (12 + 15 + 20) * 4 << "fp32";
        QTest::newRow("baddbmm") << "aten::baddbmm" << "[[8,4,5],[8,4,3],[8,3,5],[],[]]"
                                 << "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"Scalar\",\"Scalar\"]"
                                 << 2.0 * 8 * 4 * 5 * 3 + 8 * 4 * 5 << (8.0 * (12 + 15 + 20) + 160) * 2 << "fp16";
        QTest::newRow("matmul 3-D by 2-D") << "aten::matmul" << "[[2,10,6],[6,7]]" << t({bf, bf})
                                           << 2.0 * 2 * 10 * 7 * 6 << (120.0 + 42 + 140) * 2 << "bf16";
        QTest::newRow("matmul broadcast batch") << "aten::matmul" << "[[3,1,4,6],[5,6,2]]" << t({bf, bf})
                                                << 2.0 * 15 * 4 * 2 * 6 << (72.0 + 60 + 15 * 8) * 2 << "bf16";
        QTest::newRow("linear with bias") << "aten::linear" << "[[1,141,512],[1024,512],[1024]]" << t({bf, bf, bf})
                                          << 2.0 * 141 * 1024 * 512 + 141 * 1024
                                          << (141.0 * 512 + 1024 * 512 + 141 * 1024 + 1024) * 2 << "bf16";
        QTest::newRow("conv backward") << "aten::convolution_backward"
                                       << "[[32,64,56,56],[32,64,56,56],[64,64,3,3],[],[],[],[],[],[],[],[]]"
                                       << "[\"float\",\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\",\"ScalarList\"]"
                                       << 2.0 * (32 * 64 * 56 * 56) * (2.0 * 64 * 9)
                                       << 2.0 * (2 * 32 * 64 * 56 * 56 + 64 * 64 * 9) * 4 << "fp32";
        QTest::newRow("sdpa, grouped K/V heads") << "aten::scaled_dot_product_attention"
                                                 << "[[2,8,128,64],[2,2,256,64],[2,2,256,32],[],[]]"
                                                 << t({bf, bf, bf, "\"\"", "\"Scalar\""})
                                                 << 2.0 * 2 * 8 * 128 * 256 * (64 + 32)
                                                 << (2.0 * 8 * 128 * 64 + 2 * 2 * 256 * 64 + 2 * 2 * 256 * 32 + 2 * 8 * 128 * 32) * 2
                                                 << "bf16";
        QTest::newRow("flash forward (B,N,H,d)") << "aten::_flash_attention_forward"
                                                 << "[[1,141,8,64],[1,141,8,64],[1,141,8,64],[],[]]"
                                                 << t({bf, bf, bf, "\"\"", "\"\""}) << 2.0 * 8 * 141 * 141 * 128
                                                 << 4.0 * 141 * 8 * 64 * 2 << "bf16";
        QTest::newRow("flash backward") << "aten::_scaled_dot_product_flash_attention_backward"
                                        << "[[1,8,141,64],[1,8,141,64],[1,8,141,64],[1,8,141,64],[1,8,141,64],[1,8,141]]"
                                        << t({bf, bf, bf, bf, bf, "\"float\""}) << 2.0 * 8 * 141 * 141 * (5 * 64)
                                        << (2.0 * 3 + 2) * 8 * 141 * 64 * 2 << "bf16";
        QTest::newRow("layer norm") << "aten::native_layer_norm" << "[[1,141,512],[],[512],[512],[]]"
                                    << t({bf, "\"ScalarList\"", bf, bf, "\"Scalar\""}) << 5.0 * 141 * 512
                                    << (2.0 * 141 * 512 + 1024) * 2 << "bf16";
        QTest::newRow("softmax") << "aten::_softmax" << "[[4,8,16],[],[]]" << "[\"float\",\"Scalar\",\"Scalar\"]"
                                 << 3.0 * 512 << 2.0 * 512 * 4 << "fp32";
        QTest::newRow("embedding") << "aten::embedding" << "[[30522,512],[1,141],[],[],[]]"
                                   << t({bf, "\"long int\"", "\"Scalar\"", "\"Scalar\"", "\"Scalar\""}) << 0.0
                                   << 2.0 * 141 * 512 * 2 + 141 * 8 << "bf16";
        QTest::newRow("add broadcast, scalar alpha") << "aten::add" << "[[4,1,8],[3,1],[]]"
                                                     << "[\"float\",\"float\",\"Scalar\"]" << 4.0 * 3 * 8
                                                     << (96.0 + 32 + 3) * 4 << "fp32";
        QTest::newRow("sum") << "aten::sum" << "[[10,10],[],[],[]]" << "[\"c10::Half\",\"\",\"\",\"\"]" << 100.0
                             << 200.0 << "fp16";
        QTest::newRow("conv forward without Concrete Inputs") << "aten::convolution" << "[[1,3,8,8],[4,3,3,3],[],[],[],[],[],[],[]]"
                                                 << "[\"float\",\"float\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"]" << 0.0 << 0.0 << "";
        QTest::newRow("no model (Triton)") << "triton_poi_fused_add_0" << "[[4]]" << "[\"float\"]" << 0.0 << 0.0 << "";
        QTest::newRow("mm shapes that do not fit") << "aten::mm" << "[[4,3],[5,2]]" << "[\"float\",\"float\"]" << 0.0
                                                   << 0.0 << "";
        QTest::newRow("dims and types of different lengths") << "aten::mm" << "[[4,3],[3,2]]" << "[\"float\"]" << 0.0
                                                             << 0.0 << "";
    }
    void cost()
    {
        QFETCH(QString, name);
        QFETCH(QString, shapes);
        QFETCH(QString, types);
        QFETCH(double, flops);
        QFETCH(double, bytes);
        QFETCH(QString, dtype);
        const OpCost c = opCost(name, shapes, {types});
        QCOMPARE(c.modelled, !dtype.isEmpty());
        if (!c.modelled) {
            QVERIFY(!c.reason.isEmpty());
            return;
        }
        QCOMPARE(c.flops, flops);
        QCOMPARE(c.bytes, bytes);
        QVERIFY(c.dtype);
        QCOMPARE(roofDtypeKey(*c.dtype), dtype);
    }

    // Convolution forward: the output size from stride, padding, dilation and groups in
    // "Concrete Inputs" (each op keeps them at its own positions), 2·n(out)·n(W)/W₀ FLOPs.
    void convForward_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("shapes");
        QTest::addColumn<QString>("types");
        QTest::addColumn<QString>("concrete");
        QTest::addColumn<double>("flops");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<QString>("formula");  // empty: not modelled
        const QString bf = QStringLiteral("\"c10::BFloat16\"");
        // ResNet block of the MI300X TraceLens trace: 14×14 → 7×7 at stride 2, padding 1.
        const double resnetOut = 10.0 * 512 * 7 * 7;
        const double resnetFlops = 2 * resnetOut * 256 * 9;
        const double resnetBytes = (10.0 * 256 * 14 * 14 + 512 * 256 * 9 + resnetOut) * 2;
        QTest::newRow("convolution, stride 2") << "aten::convolution" << "[[10,256,14,14],[512,256,3,3],[],[],[],[],[],[],[]]"
                                               << "[" + bf + "," + bf + ",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"]"
                                               << R"(["","","","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","1"])"
                                               << resnetFlops << resnetBytes << "convolution";
        QTest::newRow("miopen_convolution: padding before stride")
            << "aten::miopen_convolution" << "[[10,256,14,14],[512,256,3,3],[],[],[],[],[],[],[]]"
            << "[" + bf + "," + bf + ",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"Scalar\",\"Scalar\"]"
            << R"(["","","","[1, 1]","[2, 2]","[1, 1]","1","False","False"])" << resnetFlops << resnetBytes << "convolution";
        // ViT patch embedding of the H100 TraceLens trace: 16×16 patches at stride 16.
        QTest::newRow("cudnn_convolution: patches, no bias argument")
            << "aten::cudnn_convolution" << "[[4,3,224,224],[768,3,16,16],[],[],[],[],[],[],[]]"
            << "[" + bf + "," + bf + ",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]"
            << R"(["","","[0, 0]","[16, 16]","[1, 1]","1","False","False","True"])" << 2.0 * (4 * 768 * 14 * 14) * 768
            << (4.0 * 3 * 224 * 224 + 768 * 768 + 4 * 768 * 14 * 14) * 2 << "convolution";
        QTest::newRow("conv2d, bias, dilation 2") << "aten::conv2d" << "[[1,8,32,32],[16,8,3,3],[16],[],[],[],[]]"
                                                  << R"(["float","float","float","ScalarList","ScalarList","ScalarList","Scalar"])"
                                                  << R"(["","","","[1, 1]","[2, 2]","[2, 2]","1"])"
                                                  << 2.0 * 16384 * 72 + 16384 << (8192.0 + 1152 + 16384 + 16) * 4
                                                  << "convolution";
        QTest::newRow("conv2d depthwise, groups 32") << "aten::conv2d" << "[[2,32,16,16],[32,1,3,3],[],[],[],[],[]]"
                                                     << R"(["c10::Half","c10::Half","","ScalarList","ScalarList","ScalarList","Scalar"])"
                                                     << R"(["","","","[1, 1]","[1, 1]","[1, 1]","32"])"
                                                     << 2.0 * 16384 * 9 << (16384.0 + 288 + 16384) * 2 << "convolution";
        QTest::newRow("conv1d, one-element lists") << "aten::conv1d" << "[[4,16,100],[32,16,5],[],[],[],[],[]]"
                                                   << R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar"])"
                                                   << R"(["","","","[2]","[0]","[1]","1"])" << 2.0 * (4 * 32 * 48) * 80
                                                   << (6400.0 + 2560 + 6144) * 4 << "convolution";
        QTest::newRow("conv2d padding same") << "aten::conv2d" << "[[1,4,10,10],[8,4,3,3],[],[],[],[],[]]"
                                             << R"(["float","float","","ScalarList","Scalar","ScalarList","Scalar"])"
                                             << R"(["","","","[1, 1]","same","[1, 1]","1"])" << 2.0 * 800 * 36
                                             << (400.0 + 288 + 800) * 4 << "convolution";
        QTest::newRow("convolution transposed, stride 2") << "aten::convolution" << "[[1,16,8,8],[16,8,4,4],[],[],[],[],[],[],[]]"
                                                          << R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"])"
                                                          << R"(["","","","[2, 2]","[1, 1]","[1, 1]","True","[0, 0]","1"])"
                                                          << 2.0 * 1024 * 128 << (1024.0 + 2048 + 2048) * 4
                                                          << "transposed convolution";
        QTest::newRow("no Concrete Inputs") << "aten::convolution" << "[[1,3,8,8],[4,3,3,3],[],[],[],[],[],[],[]]"
                                            << R"(["float","float","","","","","","",""])" << "" << 0.0 << 0.0 << "";
        QTest::newRow("groups that do not fit the channels") << "aten::conv2d" << "[[2,32,16,16],[32,1,3,3],[],[],[],[],[]]"
                                                             << R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar"])"
                                                             << R"(["","","","[1, 1]","[1, 1]","[1, 1]","1"])" << 0.0 << 0.0 << "";
        QTest::newRow("stride that is no list") << "aten::conv2d" << "[[1,3,8,8],[4,3,3,3],[],[],[],[],[]]"
                                                << R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar"])"
                                                << R"(["","","","[1, x]","[0, 0]","[1, 1]","1"])" << 0.0 << 0.0 << "";
        QTest::newRow("kernel larger than the padded input") << "aten::conv2d" << "[[1,3,2,2],[4,3,5,5],[],[],[],[],[]]"
                                                             << R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar"])"
                                                             << R"(["","","","[1, 1]","[0, 0]","[1, 1]","1"])" << 0.0 << 0.0 << "";
    }
    void convForward()
    {
        QFETCH(QString, name);
        QFETCH(QString, shapes);
        QFETCH(QString, types);
        QFETCH(QString, concrete);
        QFETCH(double, flops);
        QFETCH(double, bytes);
        QFETCH(QString, formula);
        const OpCost c = opCost(name, shapes, {types}, concrete.isEmpty() ? QStringList() : QStringList{concrete});
        QVERIFY2(c.modelled == !formula.isEmpty(), qPrintable(c.reason));
        if (!c.modelled) {
            QVERIFY(!c.reason.isEmpty());
            return;
        }
        QCOMPARE(c.flops, flops);
        QCOMPARE(c.bytes, bytes);
        QCOMPARE(c.formula, formula);
    }

    // Causal attention: half of QKᵀ is masked, so half the FLOPs (forward and backward); bytes
    // do not change. is_causal sits at each op's own position in "Concrete Inputs".
    void causalAttention_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("shapes");
        QTest::addColumn<QString>("types");
        QTest::addColumn<QString>("concrete");
        QTest::addColumn<double>("flops");  // negative: not modelled
        QTest::addColumn<QString>("formula");
        const QString bf3 = QStringLiteral(R"("c10::BFloat16","c10::BFloat16","c10::BFloat16")");
        const double full = 2.0 * 2 * 8 * 128 * 128 * (64 + 64);
        const QString bhnd = QStringLiteral("[[2,8,128,64],[2,8,128,64],[2,8,128,64],[],[],[],[],[]]");
        const QString sdpaTypes = "[" + bf3 + R"(,"","Scalar","Scalar","","Scalar"])";
        QTest::newRow("sdpa causal") << "aten::scaled_dot_product_attention" << bhnd << sdpaTypes
                                     << R"(["","","","","0.","True","","False"])" << full / 2 << "attention, causal";
        QTest::newRow("sdpa not causal") << "aten::scaled_dot_product_attention" << bhnd << sdpaTypes
                                         << R"(["","","","","0.","False","","False"])" << full << "attention";
        QTest::newRow("sdpa before enable_gqa (7 arguments)")
            << "aten::scaled_dot_product_attention" << "[[2,8,128,64],[2,8,128,64],[2,8,128,64],[],[],[],[]]"
            << "[" + bf3 + R"(,"","Scalar","Scalar",""])" << R"(["","","","","0.","True",""])" << full / 2
            << "attention, causal";
        QTest::newRow("sdpa, is_causal not recorded") << "aten::scaled_dot_product_attention" << bhnd << sdpaTypes << ""
                                                      << full << "attention, is_causal not recorded: costed as non-causal";
        QTest::newRow("flash forward (B,N,H,d) causal")
            << "aten::_flash_attention_forward" << "[[2,128,8,64],[2,128,8,64],[2,128,8,64],[],[],[],[],[],[],[],[],[],[],[],[]]"
            << "[" + bf3 + R"(,"","","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar","","","",""])"
            << R"(["","","","","","128","128","0.","True","False","0.125","","","",""])" << full / 2 << "attention, causal";
        QTest::newRow("efficient forward, custom_mask_type 1")
            << "aten::_efficient_attention_forward" << "[[2,128,8,64],[2,128,8,64],[2,128,8,64],[],[],[],[],[],[],[],[],[]]"
            << "[" + bf3 + R"(,"","","","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar"])"
            << R"(["","","","","","","128","128","0.","1","True",""])" << full / 2 << "attention, causal";
        QTest::newRow("flash backward causal")
            << "aten::_scaled_dot_product_flash_attention_backward"
            << "[[2,8,128,64],[2,8,128,64],[2,8,128,64],[2,8,128,64],[2,8,128,64],[2,8,128],[],[],[],[],[],[],[],[],[]]"
            << "[" + bf3 + R"(,"c10::BFloat16","c10::BFloat16","float","","","Scalar","Scalar","Scalar","Scalar","long int","long int","Scalar"])"
            << R"(["","","","","","","","","128","128","0.","True","","",""])" << 2.0 * 2 * 8 * 128 * 128 * (5 * 64) / 2
            << "attention backward, causal";
        QTest::newRow("causal with fewer queries than keys")
            << "aten::scaled_dot_product_attention" << "[[2,8,1,64],[2,8,128,64],[2,8,128,64],[],[],[],[],[]]" << sdpaTypes
            << R"(["","","","","0.","True","","False"])" << -1.0 << "";
        QTest::newRow("too few Concrete Inputs") << "aten::_scaled_dot_product_flash_attention"
                                                 << "[[2,8,128,64],[2,8,128,64],[2,8,128,64],[]]"
                                                 << "[" + bf3 + R"(,"Scalar"])" << R"(["","","","0."])" << -1.0 << "";
        QTest::newRow("is_causal that is no bool") << "aten::scaled_dot_product_attention" << bhnd << sdpaTypes
                                                   << R"(["","","","","0.","maybe","","False"])" << -1.0 << "";
    }
    void causalAttention()
    {
        QFETCH(QString, name);
        QFETCH(QString, shapes);
        QFETCH(QString, types);
        QFETCH(QString, concrete);
        QFETCH(double, flops);
        QFETCH(QString, formula);
        const OpCost c = opCost(name, shapes, {types}, concrete.isEmpty() ? QStringList() : QStringList{concrete});
        QVERIFY2(c.modelled == (flops >= 0), qPrintable(c.reason));
        if (!c.modelled) {
            QVERIFY(!c.reason.isEmpty());
            return;
        }
        QCOMPARE(c.flops, flops);
        QCOMPARE(c.formula, formula);
        // The bytes are those of the non-causal call.
        const OpCost nonCausal = opCost(name, shapes, {types}, {QString(concrete).replace(QStringLiteral("True"), QStringLiteral("False"))
                                                                    .replace(QStringLiteral("\"1\",\"True\""), QStringLiteral("\"0\",\"True\""))});
        if (nonCausal.modelled)
            QCOMPARE(c.bytes, nonCausal.bytes);
    }

    void costSaysWhyNot()
    {
        QVERIFY(opCost(QStringLiteral("aten::mm"), std::nullopt, {}).reason.contains(QStringLiteral("record_shapes")));
        QVERIFY(opCost(QStringLiteral("aten::mm"), QStringLiteral("[[4,3],[3,2]]"), {})
                    .reason.contains(QStringLiteral("Input type")));
        const OpCost mixed = opCost(QStringLiteral("aten::mm"), QStringLiteral("[[4,3],[3,2]]"),
                                    {QStringLiteral("[\"float\",\"float\"]"), QStringLiteral("[\"c10::Half\",\"c10::Half\"]")});
        QVERIFY(!mixed.modelled);
        QVERIFY(mixed.reason.contains(QStringLiteral("different dtypes")));
        // Lists that differ in what is no tensor cost the same: one row.
        QVERIFY(opCost(QStringLiteral("aten::add"), QStringLiteral("[[4],[4],[]]"),
                       {QStringLiteral("[\"float\",\"float\",\"Scalar\"]"), QStringLiteral("[\"float\",\"float\",\"\"]")})
                    .modelled);
    }

    void rowAgainstAnH100()
    {
        const GpuRoof roof = gpuRoofFromName(QStringLiteral("NVIDIA H100 80GB HBM3"));
        OpStats op;
        op.name = QStringLiteral("aten::mm");
        op.inputShapes = QStringLiteral("[[1024,1024],[1024,1024]]");
        op.inputTypes = {QStringLiteral("[\"c10::BFloat16\",\"c10::BFloat16\"]")};
        op.calls = 4;
        op.deviceSelfNs = 40000;  // 10 µs a call
        op.deviceTotalNs = 40000;
        const OpRoofline r = opRoofline(op, roof);
        const double flops = 4 * 2.0 * 1024 * 1024 * 1024, bytes = 4 * 3.0 * 1024 * 1024 * 2;
        QCOMPARE(*r.flops, flops);
        QCOMPARE(*r.bytes, bytes);
        QCOMPARE(*r.achievedTflops, flops / 40e-6 / 1e12);  // 214.7
        QCOMPARE(*r.achievedTbps, bytes / 40e-6 / 1e12);
        QCOMPARE(*r.intensity, flops / bytes);              // 341 FLOP/B: compute-bound on an H100
        QCOMPARE(*r.roofTflops, 989.5);
        QCOMPARE(*r.timeAtRoofS, flops / 989.5e12);
        QCOMPARE(*r.efficiencyPct, 100.0 * (flops / 989.5e12) / 40e-6);  // 21.7 %

        // Memory-bound: a large elementwise add sits under intensity × bandwidth.
        OpStats add;
        add.name = QStringLiteral("aten::add");
        add.inputShapes = QStringLiteral("[[1048576],[1048576],[]]");
        add.inputTypes = {QStringLiteral("[\"float\",\"float\",\"Scalar\"]")};
        add.calls = 1;
        add.deviceSelfNs = 10000;
        const OpRoofline a = opRoofline(add, roof);
        QCOMPARE(*a.roofTflops, 1048576.0 / (3 * 4 * 1048576.0) * 3.35);
        QCOMPARE(*a.timeAtRoofS, 3 * 4 * 1048576.0 / 3.35e12);

        // A copy has no FLOPs: no roof in TFLOP/s, its efficiency is its bandwidth's.
        OpStats copy;
        copy.name = QStringLiteral("aten::copy_");
        copy.inputShapes = QStringLiteral("[[1000],[1000],[]]");
        copy.inputTypes = {QStringLiteral("[\"float\",\"float\",\"Scalar\"]")};
        copy.calls = 1;
        copy.deviceSelfNs = 8000;
        const OpRoofline c = opRoofline(copy, roof);
        QVERIFY(!c.roofTflops);
        QVERIFY(!c.roofReason.isEmpty());
        QCOMPARE(*c.efficiencyPct, 100.0 * (8000.0 / 3.35e12) / 8e-6);
    }

    void unknownsSayWhy()
    {
        OpStats op;
        op.name = QStringLiteral("aten::linear");
        op.inputShapes = QStringLiteral("[[8,16],[4,16],[4]]");
        op.inputTypes = {QStringLiteral("[\"float\",\"float\",\"float\"]")};
        op.calls = 2;
        op.deviceTotalNs = 5000;  // launched by its aten::addmm
        const OpRoofline inner = opRoofline(op, gpuRoofFromName(QStringLiteral("AMD Instinct MI300X")));
        QVERIFY(inner.flops);
        QVERIFY(!inner.achievedTflops);
        QVERIFY(!inner.efficiencyPct);
        QVERIFY(inner.rateReason.contains(QStringLiteral("ops inside it")));

        op.deviceSelfNs = 5000;
        const OpRoofline noGpu = opRoofline(op, gpuRoofFromName(QStringLiteral("AMD Radeon Graphics")));
        QVERIFY(noGpu.achievedTflops);
        QVERIFY(!noGpu.roofTflops && !noGpu.efficiencyPct && !noGpu.timeAtRoofS);
        QVERIFY(noGpu.roofReason.contains(QStringLiteral("does not know")));

        // bf16 on a V100: the table has no bf16 peak for it.
        op.inputTypes = {QStringLiteral("[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]")};
        const OpRoofline v100 = opRoofline(op, gpuRoofFromName(QStringLiteral("Tesla V100-SXM2-16GB")));
        QVERIFY(!v100.roofTflops);
        QVERIFY(v100.roofReason.contains(QStringLiteral("bf16")));
    }
};

QTEST_GUILESS_MAIN(TestRoofline)
#include "tst_roofline.moc"
