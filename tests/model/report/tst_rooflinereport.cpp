// The report's roofline keys on real traces with record_shapes (docs/roofline.md): `gpu_spec`
// names the run's GPU and every roof value's source, or is unknown for a GPU the table does not
// know; each `ops[]` entry carries flops, bytes, achieved_tflops, achieved_tbps, roof_tflops,
// efficiency and time_at_roof_s with a state; and scripts/roofline_count.py, an independent count
// over the raw trace (Python standard library), finds 0 difference. Fixtures and their provenance:
// tests/data/attribution, tests/data/PROVENANCE.md.

#include "derived.h"
#include "report.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

namespace {

QJsonObject reportOf(const QString &path)
{
    const LoadResult loaded = loadRun(path);
    if (loaded.outcome != LoadOutcome::Finished || !loaded.run)
        return {};
    return buildReport(*loaded.run, HeuristicsProfile::Workbench, Thresholds{});
}

const char *const kKeys[] = {"flops", "bytes", "achieved_tflops", "achieved_tbps", "roof_tflops", "efficiency",
                             "time_at_roof_s"};

} // namespace

class TestRooflineReport : public QObject
{
    Q_OBJECT

private slots:
    void traces_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("gpuModel");  // empty: unknown
        QTest::addColumn<int>("minMeasuredRows");  // rows with an efficiency
        QTest::newRow("H100 BERT") << "tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz"
                                   << "NVIDIA H100 SXM" << 10;
        QTest::newRow("MI300X VF BERT") << "tracelens_mi300_gaunernst_bert-small-uncased__1016001.json.gz"
                                        << "AMD Instinct MI300X" << 10;
        QTest::newRow("H100 ViT: convolution forward, attention") << "tracelens_h100_falconsai_memory_modules__1016002.json.gz"
                                                                << "NVIDIA H100 SXM" << 10;
        QTest::newRow("V100 SXM2 HTA") << "hta_v100_rank1of2_cudagraph_record_shapes.json.gz" << "NVIDIA V100 SXM2" << 10;
        QTest::newRow("V100 DGX Station 2021: unknown roof") << "kineto_2021_resnet50_worker0.json.gz" << "" << 0;
        QTest::newRow("Radeon (MI250 minitoy): unknown roof") << "hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz"
                                                              << "" << 0;
    }
    void traces()
    {
        QFETCH(QString, file);
        QFETCH(QString, gpuModel);
        QFETCH(int, minMeasuredRows);
        const QString trace = test::dataPath(QStringLiteral("attribution/") + file);
        const QJsonObject report = reportOf(trace);
        QVERIFY(!report.isEmpty());

        const QJsonObject spec = report.value(QStringLiteral("gpu_spec")).toObject();
        QCOMPARE(spec.value(QStringLiteral("known")).toBool(), !gpuModel.isEmpty());
        if (!gpuModel.isEmpty()) {
            QCOMPARE(spec.value(QStringLiteral("model")).toString(), gpuModel);
            const QJsonObject peaks = spec.value(QStringLiteral("peak_tflops")).toObject();
            QVERIFY(!peaks.isEmpty());
            for (const QString &k : peaks.keys())
                QVERIFY(!peaks.value(k).toObject().value(QStringLiteral("source")).toString().isEmpty());
            QVERIFY(!spec.value(QStringLiteral("hbm_tbps")).toObject().value(QStringLiteral("source")).toString().isEmpty());
        } else {
            QVERIFY(!spec.value(QStringLiteral("reason")).toString().isEmpty());
            QCOMPARE(spec.value(QStringLiteral("hbm_tbps")).toObject().value(QStringLiteral("state")).toString(),
                     QStringLiteral("unknown"));
        }

        int modelled = 0, measured = 0;
        for (const QJsonValue &v : report.value(QStringLiteral("ops")).toArray()) {
            const QJsonObject op = v.toObject();
            for (const char *key : kKeys) {
                const QJsonObject value = op.value(QLatin1String(key)).toObject();
                const QString state = value.value(QStringLiteral("state")).toString();
                QVERIFY2(state == QLatin1String("estimated") || state == QLatin1String("unknown"), key);
                QCOMPARE(value.value(QStringLiteral("value")).isNull(), state == QLatin1String("unknown"));
                QVERIFY2(!value.value(QStringLiteral("source")).toString().isEmpty(), key);  // a source or why not
            }
            modelled += op.value(QStringLiteral("flops")).toObject().value(QStringLiteral("value")).isDouble();
            measured += op.value(QStringLiteral("efficiency")).toObject().value(QStringLiteral("value")).isDouble();
        }
        QVERIFY(modelled > 0);
        QVERIFY2(measured >= minMeasuredRows, qPrintable(QString::number(measured)));
        if (gpuModel.isEmpty())
            QCOMPARE(measured, 0);

        // The independent count over the raw trace.
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty())
            QSKIP("python3 not found: the independent count cannot run");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile out(dir.filePath(QStringLiteral("report.json")));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(report).toJson());
        out.close();
        QProcess count;
        count.start(python, {QStringLiteral(GOBLIN_SOURCE_DIR "/scripts/roofline_count.py"), trace,
                             QStringLiteral("--compare"), out.fileName()});
        QVERIFY(count.waitForFinished(300000));
        const QString said = QString::fromUtf8(count.readAllStandardOutput() + count.readAllStandardError());
        QVERIFY2(count.exitStatus() == QProcess::NormalExit && count.exitCode() == 0, qPrintable(said));
        QVERIFY2(said.contains(QStringLiteral("worst relative difference 0:")), qPrintable(said));
    }

    // Convolution forward is costed from its Concrete Inputs (stride 16 patches of the ViT), on
    // the op that launched the kernels and on the ops around it; attention says it is not causal.
    void convolutionForwardOnARealTrace()
    {
        const QJsonObject report =
            reportOf(test::dataPath(QStringLiteral("attribution/tracelens_h100_falconsai_memory_modules__1016002.json.gz")));
        QVERIFY(!report.isEmpty());
        QStringList convolutions;
        bool attention = false;
        for (const QJsonValue &v : report.value(QStringLiteral("ops")).toArray()) {
            const QJsonObject op = v.toObject();
            const QString name = op.value(QStringLiteral("name")).toString();
            const QJsonObject flops = op.value(QStringLiteral("flops")).toObject();
            if (name == QLatin1String("aten::conv2d") || name == QLatin1String("aten::cudnn_convolution")) {
                // 4×3×224×224 by 768×3×16×16 at stride 16: 4×768×14×14 outputs of 3·16·16 products;
                // conv2d adds the bias (768).
                const double expected = 2.0 * (4 * 768 * 14 * 14) * 768 + (name == QLatin1String("aten::conv2d") ? 4.0 * 768 * 14 * 14 : 0.0);
                QCOMPARE(flops.value(QStringLiteral("value")).toDouble(), expected);
                convolutions << name;
            }
            if (name == QLatin1String("aten::_flash_attention_forward")) {
                attention = true;
                QVERIFY(flops.value(QStringLiteral("source")).toString().startsWith(QStringLiteral("attention (")));
            }
        }
        QCOMPARE(convolutions.size(), 2);
        QVERIFY(attention);
    }
};

QTEST_GUILESS_MAIN(TestRooflineReport)
#include "tst_rooflinereport.moc"
