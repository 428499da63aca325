// The Kernels view's roofline columns (docs/roofline.md, "Kernels"): a matrix kernel's FLOPs are
// those of the op calls that launched it, when each call launched this one kernel; every other
// kernel reads "—" with the reason in its tooltip. Fixture: tests/data/attribution/
// kernels_roofline_h100.json (made by hand, tests/data/PROVENANCE.md): three aten::mm calls of two
// shapes each launching one nvjet GEMM, an addmm launching a split-K GEMM and its reduction, a
// causal flash attention forward, an elementwise add and a launch outside every op, on an H100.

#include "gpuroofs.h"
#include "kernelfilterproxy.h"
#include "kernelroofline.h"
#include "modelroles.h"
#include "runanalysis.h"
#include "runmodel.h"
#include "testsupport.h"

#include <QAbstractItemModelTester>
#include <QTest>

#include <cmath>
#include <limits>

using namespace goblin;

namespace {

const QString kNvjet = QStringLiteral("nvjet_tst_128x64_64x8_1x1_v_bz_TNT");
const QString kFlash = QStringLiteral("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 64, 4>, true, true>");

int rowOf(const QAbstractItemModel &model, const QModelIndex &root, const QString &kernel)
{
    for (int row = 0; row < model.rowCount(root); ++row)
        if (model.index(row, RunModel::NameColumn, root).data().toString() == kernel)
            return row;
    return -1;
}

} // namespace

class TestKernelRoofline : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        const LoadResult loaded = loadRun(test::dataPath(QStringLiteral("attribution/kernels_roofline_h100.json")));
        QCOMPARE(loaded.outcome, LoadOutcome::Finished);
        m_run = loaded.run;
        QVERIFY(m_run);
        m_roof = decideGpuRoof(m_run->facts.devices);
        QVERIFY(m_roof.known);
    }

    void cells_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<double>("flops");      // negative: unknown
        QTest::addColumn<double>("deviceNs");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<QString>("why");        // the tooltip of an unknown cell says this
        // 2·256·64·128 twice and 2·512·64·128 once, over 2 + 2 + 4 µs.
        QTest::newRow("GEMM of two mm shapes") << kNvjet << 2.0 * (2.0 * 256 * 64 * 128) + 2.0 * 512 * 64 * 128 << 8000.0
                                               << 2.0 * (256.0 * 128 + 128 * 64 + 256 * 64) * 2 + (512.0 * 128 + 128 * 64 + 512 * 64) * 2
                                               << QString();
        QTest::newRow("causal flash attention: half of QKᵀ") << kFlash << 2.0 * 8 * 128 * 128 * 128 / 2 << 5000.0
                                                            << 4.0 * 128 * 8 * 64 * 2 << QString();
        QTest::newRow("split-K GEMM: two kernels per call")
            << "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
            << -1.0 << 0.0 << 0.0 << "cannot be split";
        QTest::newRow("split-K reduction") << "void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16>" << -1.0
                                           << 0.0 << 0.0 << "cannot be split";
        QTest::newRow("elementwise") << "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>"
                                     << -1.0 << 0.0 << 0.0 << "only matrix kernels";
        QTest::newRow("outside every op") << "outside_kernel" << -1.0 << 0.0 << 0.0 << "outside every op";
    }
    void cells()
    {
        QFETCH(QString, kernel);
        QFETCH(double, flops);
        QFETCH(double, deviceNs);
        QFETCH(double, bytes);
        QFETCH(QString, why);
        RunModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int runRow = model.addRun(m_run);
        const QModelIndex root = model.runIndex(runRow);
        const int row = rowOf(model, root, kernel);
        QVERIFY2(row >= 0, qPrintable(kernel));
        const QModelIndex flopsCell = model.index(row, RunModel::FlopsColumn, root);
        const QModelIndex rateCell = model.index(row, RunModel::AchievedTflopsColumn, root);
        const QModelIndex roofCell = model.index(row, RunModel::RoofPercentColumn, root);
        if (flops < 0) {
            for (const QModelIndex &cell : {flopsCell, rateCell, roofCell}) {
                QCOMPARE(cell.data().toString(), QStringLiteral("—"));
                QVERIFY(std::isnan(cell.data(RawValueRole).toDouble()));  // unknown, never 0
                QCOMPARE(cell.data(SortRole).toDouble(), std::numeric_limits<double>::lowest());  // below every number
                QCOMPARE(cell.data(StateRole).toInt(), int(ValueState::Unknown));
                QVERIFY2(cell.data(Qt::ToolTipRole).toString().contains(why), qPrintable(cell.data(Qt::ToolTipRole).toString()));
            }
            return;
        }
        QCOMPARE(flopsCell.data(RawValueRole).toDouble(), flops);
        QCOMPARE(flopsCell.data(StateRole).toInt(), int(ValueState::Estimated));
        const double tflops = flops / (deviceNs / 1e9) / 1e12;
        QCOMPARE(rateCell.data(RawValueRole).toDouble(), tflops);
        const double peak = *m_roof.peakTflops[size_t(RoofDtype::Bf16)].value;
        const double bandwidth = *m_roof.hbmTbps.value;
        const double atRoofS = std::max(flops / (peak * 1e12), bytes / (bandwidth * 1e12));
        QCOMPARE(roofCell.data(RawValueRole).toDouble(), 100.0 * atRoofS / (deviceNs / 1e9));
        QVERIFY(roofCell.data(Qt::DisplayRole).toString().endsWith(QStringLiteral("%")));
        QVERIFY(flopsCell.data(Qt::ToolTipRole).toString().contains(QStringLiteral("docs/roofline.md")));
    }

    void sortsKnownAboveUnknown()
    {
        // Through the Kernels view's proxy, descending by FLOPs: the known kernels first, in order.
        RunModel model;
        const int runRow = model.addRun(m_run);
        KernelFilterProxy proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.sort(RunModel::FlopsColumn, Qt::DescendingOrder);
        const QModelIndex root = proxy.mapFromSource(model.runIndex(runRow));
        QVERIFY(proxy.rowCount(root) >= 6);
        // Both have 2²⁴ FLOPs (the fixture's shapes): either order.
        const QStringList top = {proxy.index(0, RunModel::NameColumn, root).data().toString(),
                                 proxy.index(1, RunModel::NameColumn, root).data().toString()};
        QVERIFY2(top.contains(kFlash) && top.contains(kNvjet), qPrintable(top.join(QLatin1String(" | "))));
        for (int row = 2; row < proxy.rowCount(root); ++row)
            QCOMPARE(proxy.index(row, RunModel::FlopsColumn, root).data().toString(), QStringLiteral("—"));
    }

    void unlinkedRunSaysWhy()
    {
        // A run without a trace of ops: every kernel's roofline is unknown, with the reason.
        const KernelRoofline k = kernelRooflineUnlinked(TraceAttribution{});
        QVERIFY(!k.flops);
        QVERIFY(k.costReason.contains(QStringLiteral("shape unknown")));
        QVERIFY(kernelRooflines(TraceAttribution{}, m_roof).isEmpty());
    }

    void unknownGpuKeepsFlops()
    {
        // FLOPs and the achieved rate do not need the GPU; % of roof does.
        const KernelRooflineTable table = kernelRooflines(m_run->torch.attribution, GpuRoof{});
        const KernelRoofline k = table.value(kNvjet);
        QVERIFY(k.flops);
        QVERIFY(k.achievedTflops);
        QVERIFY(!k.efficiencyPct);
        QCOMPARE(k.launches, qint64(3));
    }

private:
    std::shared_ptr<const RunAnalysis> m_run;
    GpuRoof m_roof;
};

QTEST_GUILESS_MAIN(TestKernelRoofline)
#include "tst_kernelroofline.moc"
