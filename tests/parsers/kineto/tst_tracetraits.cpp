// The traits of a torch (Kineto) trace (issue 23 item 3; src/parsers/tracetraits.h): graph
// launches and captures and the GPU events of each replay, the phases of the CPU lane (backward,
// optimizer, DataLoader, nn.Module), and the job's identity (distributedInfo, deviceProperties).
//
// Literal traces built below, and real fixtures whose expected values come from an independent
// count with Python's json module:
//     cd tests/data/torch && python3 trace_traits.py FILE...
// (its output, copied into the rows of realFixtures_data()). Read-plan invariance of the traits
// is checked with every fixture in tst_torchplans.

#include "torchtraceparser.h"
#include "workbench/tracetraitsconsumer.h"
#include "testsupport.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace goblin;
using goblin::test::dataPath;

namespace {

/// Every trait as one line of text: a failure shows what differs.
QString traitsText(const TraceTraits &t)
{
    QStringList perLaunch;
    for (const std::uint32_t n : t.graphs.gpuEventsPerLaunch)
        perLaunch << QString::number(n);
    QStringList memory, units;
    for (const qint64 m : t.identity.deviceMemoryBytes)
        memory << QString::number(m);
    for (const int u : t.identity.deviceComputeUnits)
        units << QString::number(u);
    const TraceIdentity &id = t.identity;
    return QStringLiteral("graphs: launches %1, with GPU events %2, GPU events in graphs %3, per launch [%4], "
                          "captures %5, name '%6' | phases: cpu ops %7, backward %8, optimizer %9 (steps %10), "
                          "DataLoader %11, modules %12 | identity: rank %13, world %14, backend '%15', group '%16', "
                          "devices [%17], memory [%18], units [%19], api '%20'")
        .arg(t.graphs.launches)
        .arg(t.graphs.launchesWithGpuEvents)
        .arg(t.graphs.gpuEventsInGraphs)
        .arg(perLaunch.join(QLatin1Char(',')))
        .arg(t.graphs.captures)
        .arg(t.graphs.launchName)
        .arg(t.phases.cpuOps)
        .arg(t.phases.backwardOps)
        .arg(t.phases.optimizerOps)
        .arg(t.phases.optimizerSteps)
        .arg(t.phases.dataLoaderOps)
        .arg(t.phases.forwardModules)
        .arg(id.rank ? QString::number(*id.rank) : QStringLiteral("-"))
        .arg(id.worldSize ? QString::number(*id.worldSize) : QStringLiteral("-"))
        .arg(id.backend, id.processGroup, id.deviceNames.join(QLatin1Char(',')), memory.join(QLatin1Char(',')),
             units.join(QLatin1Char(',')), id.runtimeApi);
}

/// The graph, phase and identity parts a row states (the rest is "" and ignored).
struct Expected {
    QString graphs, phases, identity;
};

void compareTraits(const TraceTraits &traits, const Expected &want)
{
    const QString text = traitsText(traits);
    const QStringList parts = text.split(QStringLiteral(" | "));
    QCOMPARE(parts.size(), 3);
    if (!want.graphs.isEmpty())
        QCOMPARE(parts[0], want.graphs);
    if (!want.phases.isEmpty())
        QCOMPARE(parts[1], want.phases);
    if (!want.identity.isEmpty())
        QCOMPARE(parts[2], want.identity);
}

/// A complete event.
QByteArray x(const char *cat, const char *name, int pid, double tsUs, double durUs, const QByteArray &args = {})
{
    QByteArray e = QByteArrayLiteral("{\"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" + name +
                   "\", \"pid\": " + QByteArray::number(pid) + ", \"tid\": 1, \"ts\": " + QByteArray::number(tsUs, 'f', 3) +
                   ", \"dur\": " + QByteArray::number(durUs, 'f', 3);
    if (!args.isEmpty())
        e += ", \"args\": {" + args + "}";
    return e + "}";
}

QByteArray runtime(const char *name, double tsUs, qint64 correlation)
{
    return x("cuda_runtime", name, 100, tsUs, 5, "\"cid\": 1, \"correlation\": " + QByteArray::number(correlation));
}

QByteArray gpu(const char *cat, double tsUs, qint64 correlation, const QByteArray &more = {})
{
    return x(cat, "k", 2, tsUs, 3,
             "\"device\": 2, \"stream\": 0, \"correlation\": " + QByteArray::number(correlation) + more);
}

QByteArray trace(const QList<QByteArray> &events, const QByteArray &header = {})
{
    QByteArray doc = "{\n  \"schemaVersion\": 1,\n" + header + "  \"traceEvents\": [\n  ";
    for (qsizetype i = 0; i < events.size(); ++i)
        doc += (i ? ",\n  " : "") + events[i];
    return doc + "\n  ]\n}\n";
}

TorchTrace parse(const QByteArray &doc, const TorchReadPlan &plan = {})
{
    return parseTorchTraceBytes(doc, QStringLiteral("trace.json"), {}, plan);
}

QString diagnosticsText(const TorchTrace &t)
{
    QStringList lines;
    for (const Diagnostic &d : t.diagnostics)
        lines << QStringLiteral("[%1] %2:%3: %4").arg(severityName(d.severity), d.file).arg(d.line).arg(d.message);
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestTraceTraits : public QObject
{
    Q_OBJECT

private slots:
    void literalTraces_data();
    void literalTraces();
    void realFixtures_data();
    void realFixtures();
    void argIds_data();
    void argIds();
    void processGroup_data();
    void processGroup();
    void runtimeApi_data();
    void runtimeApi();
    void badIdentityIsDiagnosed();
    void everyTraceFileGetsItsTraits();
};

void TestTraceTraits::literalTraces_data()
{
    QTest::addColumn<QByteArray>("doc");
    QTest::addColumn<QString>("graphs");
    QTest::addColumn<QString>("phases");

    // A graph replayed 8 times, the kernels of the first replay recorded (two of them before the
    // launch in document order, as Kineto writes GPU buffers), an eager kernel, and the capture
    // queries every eager op makes (not captures).
    QList<QByteArray> replay;
    replay << gpu("kernel", 1010, 501) << gpu("kernel", 1014, 501);
    for (int i = 0; i < 8; ++i)
        replay << runtime("hipGraphLaunch", 1000 + 100 * i, 501 + i);
    replay << gpu("kernel", 1018, 501) << runtime("hipStreamGetCaptureInfo_v2", 2000, 900)
           << runtime("hipStreamIsCapturing", 2010, 901) << runtime("hipLaunchKernel", 2020, 902)
           << gpu("kernel", 2030, 902) << x("cpu_op", "aten::mm", 100, 2015, 20);
    QTest::newRow("HIP graph replay, 1 in 8 recorded")
        << trace(replay)
        << "graphs: launches 8, with GPU events 1, GPU events in graphs 3, per launch [3], captures 0, name "
           "'hipGraphLaunch'"
        << "phases: cpu ops 1, backward 0, optimizer 0 (steps 0), DataLoader 0, modules 0";

    // Capture: begin capture and instantiate calls (with suffixes), launches with suffixes, the
    // 2026 CUDA "graph id" on kernels whose launch is outside the trace, memcpy and memset in a
    // graph, and look-alike names that are none of these.
    QList<QByteArray> capture;
    capture << runtime("cudaStreamBeginCapture", 10, 1) << runtime("cudaStreamEndCapture", 20, 2)
            << runtime("cudaGraphInstantiateWithFlags", 30, 3) << runtime("hipStreamBeginCapture_spt", 35, 4)
            << runtime("hipGraphInstantiate", 36, 5) << runtime("cudaGraphLaunch_ptsz", 40, 6)
            << x("cuda_driver", "cuGraphLaunch", 100, 50, 5, "\"correlation\": 7")
            << runtime("cudaGraphLaunchSomething", 60, 8) << runtime("cudaGraphExecDestroy", 70, 9)
            << gpu("kernel", 45, 6, ", \"graph id\": 3, \"graph node id\": 11")
            << gpu("gpu_memcpy", 46, 6, ", \"graph id\": 3") << gpu("gpu_memset", 56, 7)
            << gpu("kernel", 80, 300, ", \"graph id\": 4") << gpu("kernel", 85, 301, ", \"graph id\": 0")
            << x("kernel", "k", 2, 90, 1, "\"device\": 2, \"stream\": 0, \"graph id\": 9")
            << x("cuda_runtime", "cudaGraphLaunch", 100, 95, 1)
            << R"({"ph": "i", "s": "t", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 100, "tid": 1, "ts": 96})";
    QTest::newRow("captures and CUDA graph ids")
        << trace(capture)
        << "graphs: launches 3, with GPU events 2, GPU events in graphs 5, per launch [2,1], captures 4, name "
           "'cudaGraphLaunch_ptsz'"
        << "phases: cpu ops 0, backward 0, optimizer 0 (steps 0), DataLoader 0, modules 0";

    // Correlation ids at the ends of their range, GPU events jumping back and forth between them.
    QList<QByteArray> extreme;
    extreme << runtime("cudaGraphLaunch", 10, Q_INT64_C(9223372036854775807)) << runtime("cudaGraphLaunch", 20, 0)
            << runtime("cudaGraphLaunch", 30, 5) << gpu("kernel", 40, 5) << gpu("kernel", 41, Q_INT64_C(9223372036854775807))
            << gpu("kernel", 42, 0) << gpu("kernel", 43, Q_INT64_C(4611686018427387904)) << gpu("kernel", 44, 5)
            << gpu("kernel", 45, -3);
    QTest::newRow("extreme correlation ids")
        << trace(extreme)
        << "graphs: launches 3, with GPU events 3, GPU events in graphs 4, per launch [1,1,2], captures 0, name "
           "'cudaGraphLaunch'"
        << "phases: cpu ops 0, backward 0, optimizer 0 (steps 0), DataLoader 0, modules 0";

    // Inference: operators and module frames, nothing of training.
    QList<QByteArray> inference;
    inference << x("user_annotation", "execute_model", 100, 0, 500) << x("cpu_op", "aten::linear", 100, 10, 50)
              << x("cpu_op", "aten::addmm", 100, 12, 40) << x("cpu_op", "aten::_fused_dropout", 100, 60, 4)
              << x("cpu_op", "aten::_foreach_add_", 100, 70, 4) << x("python_function", "nn.Module: Linear_0", 100, 9, 52)
              << x("python_function", "nn.Module: LlamaModel_0", 100, 5, 400)
              << x("python_function", "torch/nn/modules/module.py(1562): _call_impl", 100, 8, 53)
              << x("cpu_op", "aten::softmax", 100, 80, 9);
    QTest::newRow("inference")
        << trace(inference) << "graphs: launches 0, with GPU events 0, GPU events in graphs 0, per launch [], captures 0, name ''"
        << "phases: cpu ops 5, backward 0, optimizer 0 (steps 0), DataLoader 0, modules 2";

    // Training: autograd nodes (AccumulateGrad only by its evaluate_function wrapper), torch.optim's
    // ranges and fused kernels, DataLoader ranges; Kineto 2021 writes ranges as Operator.
    QList<QByteArray> training;
    training << x("user_annotation", "ProfilerStep#3", 100, 0, 1000)
             << x("user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 100, 1, 50)
             << x("cpu_op", "aten::mm", 100, 60, 10)
             << x("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 100, 100, 30)
             << x("cpu_op", "AddmmBackward0", 100, 101, 28) << x("cpu_op", "aten::mm", 100, 102, 10)
             << x("cpu_op", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 100, 140, 5)
             << x("cpu_op", "torch::autograd::AccumulateGrad", 100, 141, 3)
             << x("cpu_op", "CompiledFunctionBackward", 100, 150, 3) << x("cpu_op", "DivBackward1", 100, 155, 3)
             << x("cpu_op", "aten::convolution_backward", 100, 160, 3)
             << x("user_annotation", "Optimizer.zero_grad#AdamW.zero_grad", 100, 200, 10)
             << x("user_annotation", "Optimizer.step#AdamW.step", 100, 300, 100)
             << x("cpu_op", "aten::_fused_adamw_", 100, 310, 80) << x("cpu_op", "aten::_fused_sgd_", 100, 395, 2)
             << x("gpu_user_annotation", "Optimizer.step#AdamW.step", 2, 310, 80)
             << x("Operator", "Optimizer.step#SGD.step", 100, 500, 10)
             << x("Operator", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100, 520, 10)
             << x("Operator", "MyDataLoaderRange", 100, 540, 10) << x("Operator", "AddmmBackward", 100, 560, 10);
    QTest::newRow("training")
        << trace(training) << "graphs: launches 0, with GPU events 0, GPU events in graphs 0, per launch [], captures 0, name ''"
        << "phases: cpu ops 15, backward 6, optimizer 5 (steps 2), DataLoader 3, modules 0";
}

void TestTraceTraits::literalTraces()
{
    QFETCH(QByteArray, doc);
    QFETCH(QString, graphs);
    QFETCH(QString, phases);
    const TorchTrace t = parse(doc);
    QCOMPARE(t.timeline.files.size(), size_t(1));
    compareTraits(t.timeline.files.front().traits, {graphs, phases, {}});
    // Cut into byte ranges read on other threads and tiny chunks: the same traits (the GPU events
    // of a replay and its launch may lie in different ranges).
    const QString once = traitsText(t.timeline.files.front().traits);
    for (const TorchReadPlan &plan : {TorchReadPlan{7, 0}, TorchReadPlan{64, 300}, TorchReadPlan{4096, 400}}) {
        const TorchTrace p = parse(doc, plan);
        QCOMPARE(p.timeline.files.size(), size_t(1));
        QCOMPARE(traitsText(p.timeline.files.front().traits), once);
    }
}

void TestTraceTraits::realFixtures_data()
{
    QTest::addColumn<QString>("relative");
    QTest::addColumn<QString>("graphs");
    QTest::addColumn<QString>("phases");
    QTest::addColumn<QString>("identity");
    const QString noGraphs =
        QStringLiteral("graphs: launches 0, with GPU events 0, GPU events in graphs 0, per launch [], captures 0, name ''");
    const QString eightMi300 = QStringLiteral(
        "devices [AMD Instinct MI300X,AMD Instinct MI300X,AMD Instinct MI300X,AMD Instinct MI300X,AMD Instinct MI300X,"
        "AMD Instinct MI300X,AMD Instinct MI300X,AMD Instinct MI300X], memory [206141652992,206141652992,206141652992,"
        "206141652992,206141652992,206141652992,206141652992,206141652992], units [304,304,304,304,304,304,304,304]");
    const QString eightV100 = QStringLiteral(
        "devices [Tesla V100-SXM2-32GB,Tesla V100-SXM2-32GB,Tesla V100-SXM2-32GB,Tesla V100-SXM2-32GB,"
        "Tesla V100-SXM2-32GB,Tesla V100-SXM2-32GB,Tesla V100-SXM2-32GB,Tesla V100-SXM2-32GB], memory [34079637504,"
        "34079637504,34079637504,34079637504,34079637504,34079637504,34079637504,34079637504], units [80,80,80,80,80,80,"
        "80,80]");
    QStringList v100PerLaunch;
    for (int i = 0; i < 6; ++i)
        v100PerLaunch << QStringLiteral("339") << QStringLiteral("502");

    QTest::newRow("HTA V100 CUDA graph subset (12 cudaGraphLaunch, 339/502 events)")
        << "torch/hta_v100_cudagraph_subset.json.gz"
        << QStringLiteral("graphs: launches 12, with GPU events 12, GPU events in graphs 5046, per launch [%1], "
                          "captures 0, name 'cudaGraphLaunch'")
               .arg(v100PerLaunch.join(QLatin1Char(',')))
        << "phases: cpu ops 60, backward 60, optimizer 12 (steps 6), DataLoader 6, modules 0"
        << "identity: rank 1, world 2, backend 'nccl', group '', devices [Tesla V100-SXM2-16GB,Tesla V100-SXM2-16GB], "
           "memory [16945512448,16945512448], units [80,80], api 'CUDA'";
    QTest::newRow("synthetic vLLM-style decode, HIP graph replay (1 in 8 recorded)")
        << "runs/graph-replay-decode/torch_profile.json"
        << "graphs: launches 96, with GPU events 12, GPU events in graphs 120, per launch [10,10,10,10,10,10,10,10,10,10,"
           "10,10], captures 0, name 'hipGraphLaunch'"
        << "phases: cpu ops 48, backward 0, optimizer 0 (steps 0), DataLoader 0, modules 0"
        << "identity: rank 0, world 1, backend 'nccl', group 'default_pg size 1 ranks 0', devices [AMD Instinct MI300X], "
           "memory [206141652992], units [304], api 'HIP'";
    QTest::newRow("TraceLens MI300X DDP rank 0 of 8")
        << "torch/tracelens_mi300_resnet_act_checkpoint_ddp_rank0.json.gz" << noGraphs
        << "phases: cpu ops 8004, backward 612, optimizer 6 (steps 3), DataLoader 0, modules 450"
        << QStringLiteral("identity: rank 0, world 8, backend 'nccl', group 'default_pg size 8 ranks 0-7', %1, api 'HIP'")
               .arg(eightMi300);
    QTest::newRow("HTA ns-resolution rank 0 subset (forward operators only)")
        << "torch/hta_ns_resolution_rank-0_subset.json.gz" << noGraphs
        << "phases: cpu ops 1496, backward 0, optimizer 0 (steps 0), DataLoader 0, modules 0"
        << QStringLiteral("identity: rank 0, world 1, backend 'nccl', group 'pg 0 size 1 ranks 0', %1, api ''")
               .arg(eightV100);
    QTest::newRow("Kineto 2021 ResNet-50, first step (Operator categories)")
        << "torch/kineto_2021_resnet50_first_step.json.gz" << noGraphs
        << "phases: cpu ops 3941, backward 178, optimizer 2 (steps 1), DataLoader 1, modules 0"
        << "identity: rank -, world -, backend '', group '', devices [Tesla V100-DGXS-32GB,Tesla V100-DGXS-32GB,"
           "Tesla V100-DGXS-32GB,Tesla V100-DGXS-32GB], memory [34084028416,34087305216,34087305216,34087305216], "
           "units [80,80,80,80], api ''";
    QTest::newRow("HTA MI250 mini training step (ROCm 6.2)")
        << "torch/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz" << noGraphs
        << "phases: cpu ops 70, backward 10, optimizer 1 (steps 1), DataLoader 0, modules 0"
        << "identity: rank -, world -, backend '', group '', devices [AMD Radeon Graphics,AMD Radeon Graphics,AMD Radeon "
           "Graphics,AMD Radeon Graphics], memory [68702699520,68702699520,68702699520,68702699520], units "
           "[104,104,104,104], api 'HIP'";
    QTest::newRow("TraceLens H100 BERT inference")
        << "torch/tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz" << noGraphs
        << "phases: cpu ops 479, backward 0, optimizer 0 (steps 0), DataLoader 0, modules 84"
        << "identity: rank -, world -, backend '', group '', devices [NVIDIA H100 80GB HBM3], memory [85018279936], "
           "units [132], api 'CUDA'";
}

void TestTraceTraits::realFixtures()
{
    QFETCH(QString, relative);
    QFETCH(QString, graphs);
    QFETCH(QString, phases);
    QFETCH(QString, identity);
    const TorchTrace t = parseTorchTraceFile(dataPath(relative), QFileInfo(relative).fileName());
    QVERIFY2(t.timeline.files.size() == 1, qPrintable(diagnosticsText(t)));
    compareTraits(t.timeline.files.front().traits, {graphs, phases, identity});
}

void TestTraceTraits::argIds_data()
{
    QTest::addColumn<QByteArray>("args");
    QTest::addColumn<bool>("wantGraphId");
    QTest::addColumn<qint64>("correlation");  // -1: none
    QTest::addColumn<qint64>("graphId");      // -1: none

    QTest::newRow("ROCm kernel") << QByteArray(R"({"device": 2, "stream": 0, "correlation": 4066, "kind": "Dispatch Kernel"})")
                                 << true << qint64(4066) << qint64(-1);
    QTest::newRow("CUDA 12 kernel, graph id after arrays")
        << QByteArray(R"({"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 12, "registers per thread": 32,
            "grid": [2, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %": 0, "graph id": 7, "graph node id": 3})")
        << true << qint64(12) << qint64(7);
    QTest::newRow("runtime call: stops at correlation")
        << QByteArray(R"({"cid": 1, "correlation": 77, "graph id": 5})") << false << qint64(77) << qint64(-1);
    QTest::newRow("quoted numbers") << QByteArray(R"({"correlation": "88", "graph id": "0"})") << true << qint64(88)
                                    << qint64(0);
    QTest::newRow("look-alikes in strings and nested objects")
        << QByteArray(R"({"name": "\"correlation\": 5", "nested": {"correlation": 6, "s": "}]"}, "correlation": 9})")
        << false << qint64(9) << qint64(-1);
    QTest::newRow("escaped key") << QByteArray(R"({"corr\u0065lation": 41})") << false << qint64(41) << qint64(-1);
    QTest::newRow("not an integer") << QByteArray(R"({"correlation": 1.5, "graph id": null})") << true << qint64(-1)
                                    << qint64(-1);
    QTest::newRow("runs on past the object") << QByteArray(R"({"device": 0}, "correlation": 3})") << false << qint64(-1)
                                             << qint64(-1);
    // Args longer than a few 16-byte blocks: the vector search (syntax::findQuotedInObject).
    const QByteArray longName(300, 'K');
    QTest::newRow("ROCm runtime call, a long kernel name first")
        << (QByteArray(R"({"External id": 5, "kernel": ")") + longName + R"(", "cid": 153, "correlation": 900000007})")
        << false << qint64(900000007) << qint64(-1);
    QTest::newRow("long, a nested look-alike blocks away")
        << (QByteArray(R"({"kernel": ")") + longName + R"(", "n": {"correlation": 6}, "pad": ")" + longName +
            R"(", "correlation": 10, "graph id": 2})")
        << true << qint64(10) << qint64(2);
    QTest::newRow("long, an escape and no key")
        << (QByteArray(R"({"kernel": ")") + longName + R"("", "cid": 1, "grid": [1, 2, 3]})") << true << qint64(-1)
        << qint64(-1);
    QTest::newRow("long, an escaped key late")
        << (QByteArray(R"({"kernel": ")") + longName + R"(", "correlation": 42})") << false << qint64(42)
        << qint64(-1);
    QTest::newRow("not an object") << QByteArray("[1, 2]") << false << qint64(-1) << qint64(-1);
    QTest::newRow("empty") << QByteArray() << true << qint64(-1) << qint64(-1);
}

void TestTraceTraits::argIds()
{
    QFETCH(QByteArray, args);
    QFETCH(bool, wantGraphId);
    QFETCH(qint64, correlation);
    QFETCH(qint64, graphId);
    const workbench::ArgIds ids = workbench::readArgIds(std::string_view(args.constData(), size_t(args.size())), wantGraphId);
    QCOMPARE(ids.correlation.value_or(-1), correlation);
    QCOMPARE(ids.graphId.value_or(-1), graphId);
}

void TestTraceTraits::processGroup_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("text");
    QTest::newRow("default group of 8")
        << QByteArray(R"({"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 8, "ranks": [0, 1, 2, 3, 4, 5, 6, 7]})")
        << "default_pg size 8 ranks 0-7";
    QTest::newRow("no description, gaps in the ranks")
        << QByteArray(R"({"pg_name": "3", "uid": 3, "pg_size": 5, "ranks": [0, 1, 2, 8, 10, 11]})")
        << "pg 3 size 5 ranks 0-2,8,10-11";
    QTest::newRow("ranks as text") << QByteArray(R"({"pg_desc": "tp", "pg_size": 2, "ranks": "all"})") << "tp size 2 ranks all";
    QTest::newRow("not an object") << QByteArray("[1]") << "";
}

void TestTraceTraits::processGroup()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, text);
    QCOMPARE(workbench::processGroupText(std::string_view(json.constData(), size_t(json.size()))), text);
}

void TestTraceTraits::runtimeApi_data()
{
    QTest::addColumn<QByteArray>("doc");
    QTest::addColumn<QString>("api");
    const QByteArray op = x("cpu_op", "aten::mm", 1, 0, 1);
    QTest::newRow("HIP calls") << trace({op, runtime("hipLaunchKernel", 1, 1), runtime("hipMemcpyAsync", 2, 2)}) << "HIP";
    QTest::newRow("CUDA runtime and driver calls")
        << trace({runtime("cudaLaunchKernel", 1, 1), x("cuda_driver", "cuLaunchKernel", 1, 2, 1)}) << "CUDA";
    QTest::newRow("more HIP calls than CUDA-named ones")
        << trace({runtime("hipLaunchKernel", 1, 1), runtime("hipLaunchKernel", 2, 2), runtime("cudaStreamSync", 3, 3)})
        << "HIP";
    QTest::newRow("no calls: roctracer_version") << trace({op}, "  \"roctracer_version\": 4.1,\n") << "HIP";
    QTest::newRow("no calls: rocprofiler-sdk_version") << trace({op}, "  \"rocprofiler-sdk_version\": \"1.0\",\n") << "HIP";
    QTest::newRow("no calls: cupti_version") << trace({op}, "  \"cupti_version\": 24,\n") << "CUDA";
    QTest::newRow("neither") << trace({op}) << "";
}

void TestTraceTraits::runtimeApi()
{
    QFETCH(QByteArray, doc);
    QFETCH(QString, api);
    const TorchTrace t = parse(doc);
    QCOMPARE(t.timeline.files.size(), size_t(1));
    QCOMPARE(t.timeline.files.front().traits.identity.runtimeApi, api);
}

void TestTraceTraits::badIdentityIsDiagnosed()
{
    // Unusable identity is said, not read as rank 0 or an empty device list without a word.
    const QByteArray doc = trace({x("cpu_op", "aten::mm", 1, 0, 1)},
                                 "  \"deviceProperties\": {\"name\": \"x\"},\n"
                                 "  \"distributedInfo\": {\"rank\": \"two\", \"world_size\": 4, \"backend\": \"nccl\"},\n");
    const TorchTrace t = parse(doc);
    QCOMPARE(t.timeline.files.size(), size_t(1));
    const TraceIdentity &id = t.timeline.files.front().traits.identity;
    QVERIFY(!id.rank);
    QCOMPARE(id.worldSize.value_or(-1), 4);
    QVERIFY(id.deviceNames.isEmpty());
    const QString diagnostics = diagnosticsText(t);
    QVERIFY2(diagnostics.contains(QLatin1String("trace.json:4: distributedInfo.rank is not a non-negative integer")),
             qPrintable(diagnostics));
    QVERIFY2(diagnostics.contains(QLatin1String("trace.json:3: top-level \"deviceProperties\" is not a JSON array")),
             qPrintable(diagnostics));

    const TorchTrace notObject = parse(trace({}, "  \"distributedInfo\": [1, 2],\n"));
    QVERIFY2(diagnosticsText(notObject).contains(QLatin1String("\"distributedInfo\" is not a JSON object")),
             qPrintable(diagnosticsText(notObject)));
}

void TestTraceTraits::everyTraceFileGetsItsTraits()
{
    // A folder of two ranks of one HTA job: the torch reading holds both files' timelines, each
    // with its own traits (the rank from its own distributedInfo, its own operator count).
    QTemporaryDir dir;
    for (const char *rank : {"0", "1"})
        QVERIFY(QFile::copy(dataPath(QStringLiteral("torch/hta_trace_filter_sampled_rank-%1.json.gz").arg(QLatin1String(rank))),
                            dir.filePath(QStringLiteral("sampled_rank-%1.json.gz").arg(QLatin1String(rank)))));
    const TorchTrace t = parseTorchTrace(dir.path());
    QCOMPARE(t.timeline.files.size(), size_t(2));
    // CPU operators per rank: trace_traits.py gives 2,329 (rank 0) and 2,302 (rank 1).
    std::vector<std::pair<int, qint64>> ranks;
    for (const GpuTimelineFile &f : t.timeline.files) {
        ranks.push_back({f.traits.identity.rank.value_or(-1), f.traits.phases.cpuOps});
        QCOMPARE(f.traits.identity.rank, f.rank);
    }
    std::sort(ranks.begin(), ranks.end());
    QCOMPARE(ranks, (std::vector<std::pair<int, qint64>>{{0, 2329}, {1, 2302}}));
}

QTEST_GUILESS_MAIN(TestTraceTraits)
#include "tst_tracetraits.moc"
