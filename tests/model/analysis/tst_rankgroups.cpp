// Which chrome traces are ranks of one job (issue 23, item 4): traces join only when they agree
// (distinct ranks, world size, process group, backend, device model, phase kind); the group
// holding torch_profile.json, else the largest, is the run, every other trace a separate run
// with the reason in plain words. Literal inputs, and once through the loader.

#include "rankgroups.h"
#include "runtraitsjson.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

Q_DECLARE_METATYPE(std::vector<goblin::RankCandidate>)

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
            << QStringList{"a.json"} << QStringList{"b.json: device NVIDIA H100 vs AMD Instinct MI300X"};
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
            << QStringList{"h100.json: device NVIDIA H100 vs AMD Instinct MI300X",
                           "mi210.json: no rank information (no distributedInfo, no rank in the file name)",
                           "v100.json: device Tesla V100-SXM2-16GB vs AMD Instinct MI300X",
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
        QCOMPARE(run.separateRuns.size(), std::size_t(1));
        QCOMPARE(run.separateRuns[0].file, QStringLiteral("a/rank-0.json.gz"));
        // The device model differs, and so does the world size (1 vs 4): the first difference is named.
        QVERIFY2(run.separateRuns[0].reason.startsWith(QStringLiteral("device Tesla V100")), qPrintable(run.separateRuns[0].reason));
        bool named = false;
        for (const Diagnostic &d : run.diagnostics)
            named = named || (d.file == QStringLiteral("a/rank-0.json.gz") && d.message.startsWith(QStringLiteral("not a rank of this run")));
        QVERIFY(named);

        const LoadResult ranks = loadRun(RunSource{dir.path(), {"b/rank-0.json.gz", "b/rank-1.json.gz"}, {}});
        QVERIFY2(ranks.run, qPrintable(ranks.error));
        QCOMPARE(run.torch.workbench.stepTimeSeconds, ranks.run->torch.workbench.stepTimeSeconds);
        QCOMPARE(run.torch.workbench.hostBusyFraction, ranks.run->torch.workbench.hostBusyFraction);
        QCOMPARE(run.workbench.stepTimeS, ranks.run->workbench.stepTimeS);
        QVERIFY(ranks.run->separateRuns.empty());

        // The separate trace opened alone is a run of its own.
        const LoadResult alone = loadRun(dir.filePath(QStringLiteral("a/rank-0.json.gz")));
        QVERIFY2(alone.run, qPrintable(alone.error));
        QCOMPARE(alone.run->torch.timeline.files.size(), std::size_t(1));
        QCOMPARE(alone.run->runDir, dir.filePath(QStringLiteral("a/rank-0.json.gz")));
    }

    void reportKey()
    {
        RunAnalysis run;
        QJsonObject report;
        addSeparateRunsToReport(report, run);
        QVERIFY(report.value(QStringLiteral("separate_runs")).isArray());
        QVERIFY(report.value(QStringLiteral("separate_runs")).toArray().isEmpty());

        run.separateRuns.push_back({QStringLiteral("b.json"), QStringLiteral("world size 128 vs 8"), 1,
                                    QStringLiteral("AMD Instinct MI300X")});
        run.separateRuns.push_back({QStringLiteral("c.json"), QStringLiteral("no rank information"), std::nullopt, {}});
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
