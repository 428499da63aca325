// Which chrome traces are ranks of one job (issue 23, item 4): traces join only when they agree
// (distinct ranks, world size, process group, backend, device model, phase kind); the group
// holding torch_profile.json, else the largest, is the run, every other trace a separate run
// with the reason in plain words. Literal inputs, and once through the loader.

#include "rankgroups.h"
#include "ranks.h"
#include "runtraitsjson.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

Q_DECLARE_METATYPE(std::vector<goblin::RankCandidate>)
Q_DECLARE_METATYPE(std::vector<goblin::KernelFileCandidate>)

namespace {

/// A trace: "file" with an optional rank (-1: none).
RankCandidate trace(const QString &file, int rank = -1)
{
    RankCandidate c;
    c.file = file;
    if (rank >= 0)
        c.rank = rank;
    c.cpuActivity = true;
    return c;
}

RankCandidate job(RankCandidate c, int worldSize, const QString &device = QStringLiteral("AMD Instinct MI300X"))
{
    c.identity.rank = c.rank;
    c.identity.worldSize = worldSize;
    c.identity.backend = QStringLiteral("nccl");
    c.identity.processGroup = QStringLiteral("default_pg size %1").arg(worldSize);
    if (!device.isEmpty())
        c.identity.deviceNames = QStringList{device, device};
    return c;
}

constexpr qint64 kS = 1'000'000'000;

/// A kernel-trace file that ran `names` from `firstS` for `spanS` seconds.
KernelFileCandidate kernelFile(const QString &file, std::vector<std::string> names, double firstS, double spanS)
{
    KernelFileCandidate c;
    c.file = file;
    std::sort(names.begin(), names.end());
    c.names = std::move(names);
    c.firstNs = qint64(firstS * double(kS));
    c.lastNs = c.firstNs + qint64(spanS * double(kS));
    c.kernels = 100;
    return c;
}

/// rocprofv3's 22-column kernel trace of one process: `kernels` dispatches of `names` in turn,
/// 10 µs each, 20 µs apart, from `firstNs`.
QByteArray rocprofKernelCsv(const QStringList &names, qint64 firstNs, int kernels)
{
    QByteArray out = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
                     "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
                     "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
                     "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
    for (int i = 0; i < kernels; ++i) {
        const qint64 start = firstNs + qint64(i) * 20'000;
        out += QStringLiteral("\"KERNEL_DISPATCH\",\"Agent 2\",1,0,100,%1,%2,\"%3\",%1,%4,%5,0,0,24,0,96,256,1,1,1024,1,1\n")
                   .arg(i + 1)
                   .arg(i % names.size())
                   .arg(names[i % names.size()])
                   .arg(start)
                   .arg(start + 10'000)
                   .toUtf8();
    }
    return out;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QStringList separateFiles(const RunAnalysis &run)
{
    QStringList out;
    for (const SeparateRun &s : run.facts.job.separate)
        out << s.file;
    return out;
}

RankCandidate training(RankCandidate c)
{
    c.phases.backwardOps = 120;
    c.phases.optimizerOps = 4;
    return c;
}

} // namespace

class TestRankGroups : public QObject
{
    Q_OBJECT

private slots:
    void grouping_data()
    {
        QTest::addColumn<std::vector<RankCandidate>>("traces");
        QTest::addColumn<QStringList>("run");
        QTest::addColumn<QStringList>("separate");  // "file: reason"

        QTest::newRow("one trace") << std::vector{trace("a.json")} << QStringList{"a.json"} << QStringList{};
        QTest::newRow("ranks from file names, nothing against them (no traits yet)")
            << std::vector{trace("rank-0.json", 0), trace("rank-1.json", 1), trace("rank-2.json", 2)}
            << QStringList{"rank-0.json", "rank-1.json", "rank-2.json"} << QStringList{};
        QTest::newRow("one job of four ranks")
            << std::vector{job(trace("rank-0.json", 0), 4), job(trace("rank-1.json", 1), 4),
                           job(trace("sampled_rank-2.json", 2), 4), job(trace("rank-3.json", 3), 4)}
            << QStringList{"rank-0.json", "rank-1.json", "sampled_rank-2.json", "rank-3.json"} << QStringList{};
        QTest::newRow("world size differs")
            << std::vector{job(trace("a.json", 0), 8), job(trace("b.json", 1), 128)} << QStringList{"a.json"}
            << QStringList{"b.json: world size 128 vs 8"};
        QTest::newRow("device differs")
            << std::vector{job(trace("a.json", 0), 2), job(trace("b.json", 1), 2, QStringLiteral("NVIDIA H100"))}
            << QStringList{"a.json"} << QStringList{"b.json: GPU model NVIDIA H100 vs AMD Instinct MI300X"};
        QTest::newRow("process group differs")
            << std::vector{job(trace("a.json", 0), 2), [] {
                   RankCandidate c = job(trace("b.json", 1), 2);
                   c.identity.processGroup = QStringLiteral("other_pg");
                   return c;
               }()}
            << QStringList{"a.json"} << QStringList{"b.json: process group other_pg vs default_pg size 2"};
        QTest::newRow("backend differs")
            << std::vector{job(trace("a.json", 0), 2), [] {
                   RankCandidate c = job(trace("b.json", 1), 2);
                   c.identity.backend = QStringLiteral("gloo");
                   return c;
               }()}
            << QStringList{"a.json"} << QStringList{"b.json: backend gloo vs nccl"};
        QTest::newRow("an inference trace beside training traces")
            << std::vector{training(trace("train-0.json", 0)), trace("decode-1.json", 1), training(trace("train-2.json", 2))}
            << QStringList{"train-0.json", "train-2.json"}
            << QStringList{"decode-1.json: an inference trace beside training traces"};
        QTest::newRow("a training trace beside inference traces")
            << std::vector{trace("decode-0.json", 0), training(trace("train-1.json", 1)), trace("decode-2.json", 2)}
            << QStringList{"decode-0.json", "decode-2.json"}
            << QStringList{"train-1.json: a training trace beside inference traces"};
        QTest::newRow("phases not counted at all: no phase rule")
            << std::vector{trace("rank-0.json", 0), trace("rank-1.json", 1)}
            << QStringList{"rank-0.json", "rank-1.json"} << QStringList{};
        QTest::newRow("a trace without rank information beside ranks")
            << std::vector{trace("rank-0.json", 0), trace("rank-1.json", 1), trace("profile.json")}
            << QStringList{"rank-0.json", "rank-1.json"}
            << QStringList{"profile.json: no rank information (no distributedInfo, no rank in the file name)"};
        QTest::newRow("two traces without rank information")
            << std::vector{trace("a.json"), trace("b.json")} << QStringList{"a.json"}
            << QStringList{"b.json: no rank information (no distributedInfo, no rank in the file name)"};
        QTest::newRow("rank 0 twice")
            << std::vector{job(trace("rank-0.json", 0), 4), job(trace("rank-5.json", 0), 4)}
            << QStringList{"rank-0.json"} << QStringList{"rank-5.json: rank 0 again (rank-0.json is rank 0)"};
        QTest::newRow("torch_profile.json anchors the run, even when smaller")
            << std::vector{job(trace("torch_profile.json", 0), 2), job(trace("job/rank-0.json", 0), 4),
                           job(trace("job/rank-1.json", 1), 4), job(trace("job/rank-2.json", 2), 4)}
            << QStringList{"torch_profile.json"}
            << QStringList{"job/rank-0.json: world size 4 vs 2", "job/rank-1.json: world size 4 vs 2",
                           "job/rank-2.json: world size 4 vs 2"};
        QTest::newRow("torch_profile.json without rank information stays alone")
            << std::vector{trace("torch_profile.json"), trace("rank-1.json", 1)} << QStringList{"torch_profile.json"}
            << QStringList{"rank-1.json: no rank information in torch_profile.json, the run's trace"};
        QTest::newRow("the largest group is the run")
            << std::vector{job(trace("x/rank-0.json", 0), 1), job(trace("rank-0.json", 0), 3),
                           job(trace("rank-1.json", 1), 3), job(trace("rank-2.json", 2), 3)}
            << QStringList{"rank-0.json", "rank-1.json", "rank-2.json"} << QStringList{"x/rank-0.json: world size 1 vs 3"};
        QTest::newRow("two jobs in two sub-folders do not interleave")
            << std::vector{trace("a/rank-0.json", 0), trace("b/rank-0.json", 0), trace("a/rank-1.json", 1),
                           trace("b/rank-1.json", 1)}
            << QStringList{"a/rank-0.json", "a/rank-1.json"}
            << QStringList{"b/rank-0.json: rank 0 again (a/rank-0.json is rank 0)",
                           "b/rank-1.json: rank 1 again (a/rank-1.json is rank 1)"};
        QTest::newRow("unrelated samples of several GPU models, three rank 0s")
            << std::vector{job(trace("mi300.json", 0), 8), job(trace("h100.json", 0), 1, QStringLiteral("NVIDIA H100")),
                           trace("mi210.json"), job(trace("v100.json", 1), 2, QStringLiteral("Tesla V100-SXM2-16GB")),
                           job(trace("mi300b.json", 0), 1)}
            << QStringList{"mi300.json"}
            << QStringList{"h100.json: GPU model NVIDIA H100 vs AMD Instinct MI300X",
                           "mi210.json: no rank information (no distributedInfo, no rank in the file name)",
                           "v100.json: GPU model Tesla V100-SXM2-16GB vs AMD Instinct MI300X",
                           "mi300b.json: world size 1 vs 8"};
    }

    void grouping()
    {
        QFETCH(std::vector<RankCandidate>, traces);
        QFETCH(QStringList, run);
        QFETCH(QStringList, separate);
        const RankGrouping g = groupRanks(traces);
        QStringList actualRun, actualSeparate;
        for (std::size_t i : g.runTraces)
            actualRun << traces[i].file;
        QCOMPARE(g.separate.size(), g.separateTraces.size());
        for (std::size_t k = 0; k < g.separate.size(); ++k) {
            QCOMPARE(g.separate[k].file, traces[g.separateTraces[k]].file);
            actualSeparate << g.separate[k].file + QStringLiteral(": ") + g.separate[k].reason;
        }
        QCOMPARE(actualRun, run);
        QCOMPARE(actualSeparate, separate);
        QCOMPARE(qsizetype(g.runTraces.size() + g.separate.size()), qsizetype(traces.size()));
    }

    void candidatesFromTimelines()
    {
        // The stated rank: distributedInfo through the traits, else what the file states (its
        // name); CPU activity from the host-busy intervals.
        GpuTimelineFile named;
        named.file = QStringLiteral("rank-3.json");
        named.rank = 3;
        GpuTimelineFile stated = named;
        stated.file = QStringLiteral("worker.json");
        stated.traits.identity.rank = 7;
        stated.traits.identity.deviceNames = {QStringLiteral("AMD Instinct MI300X")};
        stated.hostBusy.push_back({0, 10});
        const std::vector<RankCandidate> c = rankCandidates({named, stated});
        QCOMPARE(c.size(), std::size_t(2));
        QCOMPARE(c[0].rank, std::optional<int>(3));
        QVERIFY(!c[0].cpuActivity);
        QCOMPARE(c[1].rank, std::optional<int>(7));
        QVERIFY(c[1].cpuActivity);
        QCOMPARE(c[1].identity.deviceNames, QStringList{QStringLiteral("AMD Instinct MI300X")});
    }

    void separateTracesThroughTheLoader()
    {
        // Through loadRun(): a lone world-size-1 trace sorts first (a/), two ranks of a 4-rank job
        // lie in b/. The run is the larger group, so its readings (step time, host busy) must
        // come from b/rank-0, read again without the lone trace, exactly as the two ranks alone.
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("a"))) && QDir().mkpath(dir.filePath(QStringLiteral("b"))));
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/hta_ns_resolution_rank-0_subset.json.gz")),
                            dir.filePath(QStringLiteral("a/rank-0.json.gz"))));
        for (const char *rank : {"rank-0.json.gz", "rank-1.json.gz"})
            QVERIFY(QFile::copy(test::dataPath(QStringLiteral("runs/ranks-4traces/") + QLatin1String(rank)),
                                dir.filePath(QStringLiteral("b/") + QLatin1String(rank))));
        const LoadResult folder = loadRun(dir.path());
        QVERIFY2(folder.run, qPrintable(folder.error));
        const RunAnalysis &run = *folder.run;
        QCOMPARE(run.torch.file.relativePath, QStringLiteral("b/rank-0.json.gz"));
        QStringList files;
        for (const GpuTimelineFile &f : run.torch.timeline.files)
            files << f.file;
        QCOMPARE(files, (QStringList{"b/rank-0.json.gz", "b/rank-1.json.gz"}));
        QCOMPARE(run.facts.job.separate.size(), std::size_t(1));
        QCOMPARE(run.facts.job.separate[0].file, QStringLiteral("a/rank-0.json.gz"));
        // The device model differs, and so does the world size (1 vs 4): the first difference is named.
        QVERIFY2(run.facts.job.separate[0].reason.startsWith(QStringLiteral("GPU model Tesla V100")), qPrintable(run.facts.job.separate[0].reason));
        bool named = false;
        for (const Diagnostic &d : run.diagnostics)
            named = named || (d.file == QStringLiteral("a/rank-0.json.gz") && d.message.startsWith(QStringLiteral("not a rank of this run")));
        QVERIFY(named);

        const LoadResult ranks = loadRun(RunSource{dir.path(), {"b/rank-0.json.gz", "b/rank-1.json.gz"}, {}});
        QVERIFY2(ranks.run, qPrintable(ranks.error));
        QCOMPARE(run.torch.workbench.stepTimeSeconds, ranks.run->torch.workbench.stepTimeSeconds);
        QCOMPARE(run.torch.workbench.hostBusyFraction, ranks.run->torch.workbench.hostBusyFraction);
        QCOMPARE(run.workbench.stepTimeS, ranks.run->workbench.stepTimeS);
        QVERIFY(ranks.run->facts.job.separate.empty());

        // The separate trace opened alone is a run of its own.
        const LoadResult alone = loadRun(dir.filePath(QStringLiteral("a/rank-0.json.gz")));
        QVERIFY2(alone.run, qPrintable(alone.error));
        QCOMPARE(alone.run->torch.timeline.files.size(), std::size_t(1));
        QCOMPARE(alone.run->runDir, dir.filePath(QStringLiteral("a/rank-0.json.gz")));
    }

    void kernelFiles_data()
    {
        QTest::addColumn<std::vector<KernelFileCandidate>>("files");
        QTest::addColumn<QStringList>("run");
        QTest::addColumn<QStringList>("separate");  // "file: reason" (the reason's start)

        const std::vector<std::string> train{"Cijk_Alik_Bljk_BBS", "ncclDevKernel_Generic", "vectorized_elementwise_kernel"};
        QTest::newRow("true ranks: one program, one time")
            << std::vector{kernelFile("node01/100_kernel_trace.csv", train, 1000.0, 60.0),
                           kernelFile("node01/101_kernel_trace.csv", train, 1000.2, 60.1),
                           kernelFile("node02/200_kernel_trace.csv", train, 999.9, 59.8)}
            << QStringList{"node01/100_kernel_trace.csv", "node01/101_kernel_trace.csv", "node02/200_kernel_trace.csv"}
            << QStringList{};
        QTest::newRow("a rank that ran a few kernels more is still a rank")
            << std::vector{kernelFile("a/1_kernel_trace.csv", train, 10.0, 5.0),
                           kernelFile("a/2_kernel_trace.csv", {"Cijk_Alik_Bljk_BBS", "ncclDevKernel_Generic",
                                                               "vectorized_elementwise_kernel", "fill", "copy"},
                                      10.0, 5.0)}
            << QStringList{"a/1_kernel_trace.csv", "a/2_kernel_trace.csv"} << QStringList{};
        // Measured: a llama.cpp prefill and decode captured 70 hours apart were averaged as ranks.
        const std::vector<std::string> llama{"mul_mat_q4_K", "flash_attn_ext_f16", "rms_norm_f32", "rope_f32"};
        QTest::newRow("rocprofv3 captures of one program 70 h apart: two runs")
            << std::vector{kernelFile("prefill/4242_kernel_trace.csv", llama, 1000.0, 12.0),
                           kernelFile("decode/5151_kernel_trace.csv", llama, 1000.0 + 70 * 3600.0, 30.0)}
            << QStringList{"prefill/4242_kernel_trace.csv"}
            << QStringList{"decode/5151_kernel_trace.csv: captured at another time: 70.0 h after prefill/4242_kernel_trace.csv"};
        // Measured: two Nsight exports of two CUDA programs on two GPU models were ranks with a straggler.
        QTest::newRow("two Nsight exports of two programs: two runs (session clocks overlap)")
            << std::vector{kernelFile("vectorAdd.sqlite", {"vectorAdd"}, 0.5, 0.2),
                           kernelFile("matrixMul.sqlite", {"MatrixMulCUDA<32>"}, 0.4, 0.9)}
            << QStringList{"vectorAdd.sqlite"}
            << QStringList{"matrixMul.sqlite: another program: 0 of its 1 kernel names are among the 1 of vectorAdd.sqlite"};
        QTest::newRow("processes starting one after another within a second are one job")
            << std::vector{kernelFile("1_kernel_trace.csv", train, 100.0, 0.3),
                           kernelFile("2_kernel_trace.csv", train, 100.9, 0.3)}
            << QStringList{"1_kernel_trace.csv", "2_kernel_trace.csv"} << QStringList{};
        QTest::newRow("the larger group is the run")
            << std::vector{kernelFile("x.db", {"other"}, 5.0, 1.0), kernelFile("r0.db", train, 5.0, 1.0),
                           kernelFile("r1.db", train, 5.0, 1.0)}
            << QStringList{"r0.db", "r1.db"} << QStringList{"x.db: another program"};
    }

    void kernelFiles()
    {
        QFETCH(std::vector<KernelFileCandidate>, files);
        QFETCH(QStringList, run);
        QFETCH(QStringList, separate);
        const RankGrouping g = groupKernelFiles(files);
        QStringList gotRun;
        for (std::size_t i : g.runTraces)
            gotRun << files[i].file;
        QCOMPARE(gotRun, run);
        QCOMPARE(int(g.separate.size()), int(separate.size()));
        for (int i = 0; i < separate.size(); ++i) {
            const QString got = g.separate[std::size_t(i)].file + QStringLiteral(": ") + g.separate[std::size_t(i)].reason;
            QVERIFY2(got.startsWith(separate[i]), qPrintable(got));
        }
    }

    void kernelFilesThroughTheLoader()
    {
        // Per-process rocprofv3 CSVs through loadRun(): two ranks of one job, and a capture of the
        // same program 70 h later with its HIP API trace beside it. The late capture is a separate
        // run (named, not averaged as a rank), its API trace is not read into the run, and the job
        // has two ranks.
        QTemporaryDir dir;
        const QStringList names{QStringLiteral("mul_mat_q4_K"), QStringLiteral("rms_norm_f32"),
                                QStringLiteral("rope_f32")};
        const qint64 t0 = 2'745'731'104'856'364;
        const qint64 later = t0 + 70LL * 3600 * kS;
        QVERIFY(writeFile(dir.filePath(QStringLiteral("host/100_kernel_trace.csv")), rocprofKernelCsv(names, t0, 300)));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("host/101_kernel_trace.csv")),
                          rocprofKernelCsv(names, t0 + 5'000, 300)));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("host/900_kernel_trace.csv")), rocprofKernelCsv(names, later, 200)));
        const LoadResult folder = loadRun(dir.path());
        QVERIFY2(folder.run, qPrintable(folder.error));
        const RunAnalysis &run = *folder.run;
        QCOMPARE(separateFiles(run), QStringList{QStringLiteral("host/900_kernel_trace.csv")});
        QVERIFY2(run.facts.job.separate[0].reason.startsWith(QStringLiteral("captured at another time: 70.0 h after")),
                 qPrintable(run.facts.job.separate[0].reason));
        QCOMPARE(run.facts.job.members, JobMembers::Processes);
        QCOMPARE(run.facts.job.ranks, 2);
        QCOMPARE(run.facts.job.state, ValueState::Estimated);
        QCOMPARE(run.facts.job.files,
                 (QStringList{QStringLiteral("host/100_kernel_trace.csv"), QStringLiteral("host/101_kernel_trace.csv")}));
        // The run's kernels are its two ranks' only: 600 dispatches, not 800.
        QCOMPARE(run.kernels.workbench.rowsUsed, qint64(600));
        QVERIFY(run.workbench.ranks);
        QCOMPARE(int(run.workbench.ranks->ranks.size()), 2);
        bool named = false;
        for (const Diagnostic &d : run.diagnostics)
            named = named || (d.file == QStringLiteral("host/900_kernel_trace.csv")
                              && d.message.startsWith(QStringLiteral("not a rank of this run")));
        QVERIFY(named);

        // Two ranks alone: one job, nothing separate, the same kernels.
        const LoadResult ranks = loadRun(RunSource{dir.path(), {"host/100_kernel_trace.csv", "host/101_kernel_trace.csv"}, {}});
        QVERIFY2(ranks.run, qPrintable(ranks.error));
        QVERIFY(ranks.run->facts.job.separate.empty());
        QCOMPARE(ranks.run->facts.job.ranks, 2);
        QCOMPARE(ranks.run->kernels.workbench.rowsUsed, qint64(600));
    }

    void nsysExportsOfTwoProgramsThroughTheLoader()
    {
        // Two Nsight Systems exports of two CUDA programs on two GPU models (A100 80 GB, A100 40 GB),
        // their session clocks overlapping: the second is a separate run, not a rank with a straggler.
        QTemporaryDir dir;
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("nsys/generated-2gpu.sqlite")),
                            dir.filePath(QStringLiteral("a-generated.sqlite"))));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("b-saxpy.sqlite")),
                          test::readGunzipped(test::dataPath(QStringLiteral("nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz")))));
        const LoadResult folder = loadRun(dir.path());
        QVERIFY2(folder.run, qPrintable(folder.error));
        const RunAnalysis &run = *folder.run;
        QCOMPARE(separateFiles(run), QStringList{QStringLiteral("b-saxpy.sqlite")});
        QVERIFY2(run.facts.job.separate[0].reason.startsWith(QStringLiteral("another program")),
                 qPrintable(run.facts.job.separate[0].reason));
        QCOMPARE(run.facts.job.files, QStringList{QStringLiteral("a-generated.sqlite")});
        // The rank set holds the generated export's processes only.
        QVERIFY(run.workbench.ranks);
        for (const RankInputs &r : run.workbench.ranks->ranks)
            QCOMPARE(r.file, QStringLiteral("a-generated.sqlite"));
    }

    void reportKey()
    {
        RunAnalysis run;
        QJsonObject report;
        addSeparateRunsToReport(report, run);
        QVERIFY(report.value(QStringLiteral("separate_runs")).isArray());
        QVERIFY(report.value(QStringLiteral("separate_runs")).toArray().isEmpty());

        run.facts.job.separate.push_back({QStringLiteral("b.json"), QStringLiteral("world size 128 vs 8"), 1,
                                    QStringLiteral("AMD Instinct MI300X")});
        run.facts.job.separate.push_back({QStringLiteral("c.json"), QStringLiteral("no rank information"), std::nullopt, {}});
        addSeparateRunsToReport(report, run);
        const QJsonArray list = report.value(QStringLiteral("separate_runs")).toArray();
        QCOMPARE(list.size(), 2);
        QCOMPARE(list[0].toObject(), (QJsonObject{{"file", "b.json"}, {"reason", "world size 128 vs 8"}, {"rank", 1},
                                                  {"device", "AMD Instinct MI300X"}}));
        QCOMPARE(list[1].toObject(), (QJsonObject{{"file", "c.json"}, {"reason", "no rank information"}}));
    }
};

QTEST_GUILESS_MAIN(TestRankGroups)
#include "tst_rankgroups.moc"
