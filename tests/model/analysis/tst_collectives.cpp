// Collectives (docs/collectives.md): the nccl-tests bus factors, bytes from the trace's element
// counts and dtypes, the calls of a real RCCL trace (an excerpt of TraceLens' MI300X DDP rank 0:
// tests/data/PROVENANCE.md) as scripts/collectives_count.py counts them, and the arrival skew,
// last rank and waits of generated multi-rank traces whose offsets are known
// (scripts/make_collective_ranks.py wrote them and their truth.json).

#include "collectives.h"
#include "collectivesmodel.h"
#include "report.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "workbench/collectivesconsumer.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

using namespace goblin;

namespace {

std::shared_ptr<const RunAnalysis> load(const QString &relative)
{
    const LoadResult r = loadRun(test::dataPath(relative));
    if (r.outcome != LoadOutcome::Finished)
        qWarning() << "load failed" << relative << r.error;
    return r.run;
}

bool near(double a, double b, double abs = 1e-12)
{
    return std::fabs(a - b) <= std::max(abs, 1e-12 * std::max(std::fabs(a), std::fabs(b)));
}

QJsonObject truthOf(const QString &relative)
{
    return QJsonDocument::fromJson(test::readAll(test::dataPath(relative + QStringLiteral("/truth.json")))).object();
}

double valueOf(const QJsonValue &figure) { return figure.toObject().value(QStringLiteral("value")).toDouble(-1.0); }
QString stateOf(const QJsonValue &figure) { return figure.toObject().value(QStringLiteral("state")).toString(); }

} // namespace

class TestCollectives : public QObject
{
    Q_OBJECT
private slots:
    void busFactors_data()
    {
        QTest::addColumn<QString>("collective");
        QTest::addColumn<int>("groupSize");  // 0: unknown
        QTest::addColumn<double>("factor");  // -1: unknown
        QTest::newRow("allreduce 8") << "allreduce" << 8 << 2.0 * 7 / 8;
        QTest::newRow("nccl:all_reduce 2") << "all_reduce" << 2 << 1.0;
        QTest::newRow("kernel AllReduce 4") << "AllReduce" << 4 << 1.5;
        QTest::newRow("allgather 8") << "allgather" << 8 << 7.0 / 8;
        QTest::newRow("_allgather_base 64") << "_allgather_base" << 64 << 63.0 / 64;
        QTest::newRow("reduce_scatter 4") << "reduce_scatter" << 4 << 0.75;
        QTest::newRow("_reduce_scatter_base 2") << "_reduce_scatter_base" << 2 << 0.5;
        QTest::newRow("all_to_all 128") << "all_to_all" << 128 << 127.0 / 128;
        QTest::newRow("alltoall_base 8") << "alltoall_base" << 8 << 7.0 / 8;
        QTest::newRow("broadcast, no n") << "broadcast" << 0 << 1.0;
        QTest::newRow("reduce") << "reduce" << 8 << 1.0;
        QTest::newRow("send") << "send" << 2 << 1.0;
        QTest::newRow("recv") << "recv" << 2 << 1.0;
        QTest::newRow("SendRecv kernel") << "SendRecv" << 0 << 1.0;
        QTest::newRow("allreduce, no n") << "allreduce" << 0 << -1.0;
        QTest::newRow("barrier") << "barrier" << 8 << -1.0;
        QTest::newRow("Generic kernel") << "Generic" << 8 << -1.0;
    }
    void busFactors()
    {
        QFETCH(QString, collective);
        QFETCH(int, groupSize);
        QFETCH(double, factor);
        const std::optional<double> f =
            busBandwidthFactor(collectiveKind(collective), groupSize > 0 ? std::optional<qint64>(groupSize) : std::nullopt);
        QCOMPARE(f.has_value(), factor >= 0);
        if (f)
            QVERIFY2(near(*f, factor), qPrintable(QString::number(*f)));
    }

    void callBytes_data()
    {
        QTest::addColumn<QString>("collective");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<qint64>("in");   // -1: not written
        QTest::addColumn<qint64>("out");  // -1: not written
        QTest::addColumn<int>("groupSize");  // 0: not written
        QTest::addColumn<int>("source");
        QTest::addColumn<double>("bytes");  // -1: unknown
        QTest::addColumn<QString>("state");
        const int pc = int(CollectiveSource::ParamComms), ann = int(CollectiveSource::Annotation),
                  kernel = int(CollectiveSource::KernelName);
        QTest::newRow("allreduce bf16") << "allreduce" << "BFloat16" << 2873320LL << 2873320LL << 8 << pc << 5746640.0 << "measured";
        QTest::newRow("allgather: the output") << "allgather" << "Float" << 1024LL << 8192LL << 8 << pc << 32768.0 << "measured";
        QTest::newRow("reduce_scatter: the input") << "reduce_scatter" << "Float" << 8192LL << 1024LL << 8 << pc << 32768.0 << "measured";
        QTest::newRow("broadcast long") << "broadcast" << "Long" << 20LL << 20LL << 8 << pc << 160.0 << "measured";
        QTest::newRow("nccl: all_reduce float") << "all_reduce" << "float" << 4432073LL << -1LL << 0 << ann << 17728292.0 << "measured";
        QTest::newRow("nccl: all_to_all uchar") << "all_to_all" << "unsigned char" << 419430400LL << -1LL << 0 << ann << 419430400.0 << "measured";
        QTest::newRow("nccl: _all_gather_base x world") << "_all_gather_base" << "signed char" << 16777216LL << -1LL << 0 << ann << 16777216.0 * 128 << "estimated";
        QTest::newRow("unknown dtype") << "allreduce" << "Quaternion" << 10LL << 10LL << 8 << pc << -1.0 << "unknown";
        QTest::newRow("kernel only") << "AllReduce" << "" << -1LL << -1LL << 0 << kernel << -1.0 << "unknown";
    }
    void callBytes()
    {
        QFETCH(QString, collective);
        QFETCH(QString, dtype);
        QFETCH(qint64, in);
        QFETCH(qint64, out);
        QFETCH(int, groupSize);
        QFETCH(int, source);
        QFETCH(double, bytes);
        QFETCH(QString, state);
        CollectiveCall c;
        c.collective = collective;
        c.dtype = dtype;
        if (in >= 0)
            c.inElements = in;
        if (out >= 0)
            c.outElements = out;
        if (groupSize > 0)
            c.groupSize = groupSize;
        c.source = CollectiveSource(source);
        const CollectiveCallFigures f = collectiveCallFigures(c, qint64(128));
        QCOMPARE(f.bytes.has_value(), bytes >= 0);
        if (f.bytes)
            QCOMPARE(*f.bytes, bytes);
        QCOMPARE(valueStateName(f.bytesState), state);
    }

    void readArgs()
    {
        // A record_param_comms of torch 2.x (the MI300X excerpt) and an nccl: range of 2022.
        const workbench::CollectiveArgs a = workbench::readCollectiveArgs(
            R"({"External id": 1290, "Collective name": "allreduce", "Process Group Description": "default_pg", "dtype": "BFloat16", "Out msg nelems": 2873320, "Process Group Name": "0", "Input type": ["TensorList", ""], "Group size": 8, "Input Dims": [[[2873320]], []], "Seq": 17, "In msg nelems": 2873320})");
        QCOMPARE(a.collective, std::string("allreduce"));
        QCOMPARE(a.dtype, std::string("BFloat16"));
        QCOMPARE(a.processGroup, std::string("0"));
        QCOMPARE(a.processGroupDescription, std::string("default_pg"));
        QCOMPARE(a.inElements.value_or(-1), 2873320);
        QCOMPARE(a.outElements.value_or(-1), 2873320);
        QCOMPARE(a.groupSize.value_or(-1), 8);
        QCOMPARE(a.sequence.value_or(-1), 17);
        QVERIFY(!a.inputDimsElements);  // a TensorList's nested shapes are not an nccl: range's input
        const workbench::CollectiveArgs b =
            workbench::readCollectiveArgs(R"({"External id": 20667, "Input Dims": [[4432073], [2, 3]], "Input type": ["float", "float"]})");
        QCOMPARE(b.inputDimsElements.value_or(-1), 4432073 + 6);
        QCOMPARE(b.firstInputType, std::string("float"));
        QVERIFY(b.collective.empty());
        QVERIFY(workbench::isCollectiveKernelName("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"));
        QVERIFY(workbench::isCollectiveKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
        QVERIFY(!workbench::isCollectiveKernelName("Cijk_Ailk_Bljk_nccl"));
    }

    /// The RCCL excerpt against scripts/collectives_count.py tests/data/collectives/mi300-ddp-excerpt/rank-0.json.
    void mi300Excerpt()
    {
        const auto run = load(QStringLiteral("collectives/mi300-ddp-excerpt"));
        QVERIFY(run);
        QVERIFY(run->torch.collectives);
        const TraceCollectives &t = *run->torch.collectives;
        QCOMPARE(t.commKernels, 17);
        QCOMPARE(t.kernelsLinked, 12);
        QCOMPARE(t.waitRecords, 6);
        QCOMPARE(qint64(t.calls.size()), 17);  // 12 linked calls + 5 kernels launched before the trace began
        const CollectiveAnalysis a = analyzeCollectives(*run);
        QCOMPARE(a.rows.size(), size_t(5));
        // rows by kernel time: allreduce 8816192 × bf16, the 5 Generic kernels, allreduce 2873320, broadcasts
        const CollectiveRow &top = a.rows[0];
        QCOMPARE(top.collective, QStringLiteral("allreduce"));
        QCOMPARE(top.bytes.value_or(-1), 17632384.0);
        QCOMPARE(top.calls, 3);
        QVERIFY(near(top.timeS, 0.02679824));
        QVERIFY(near(top.algbwGbps.value_or(-1), 1.9739039578718602, 1e-12));
        QVERIFY(near(top.busbwGbps.value_or(-1), 3.4543319262757555, 1e-12));
        QCOMPARE(valueStateName(top.bandwidthState), QStringLiteral("measured"));
        QCOMPARE(a.rows[1].collective, QStringLiteral("Generic"));
        QVERIFY(!a.rows[1].bytes);
        QCOMPARE(a.rows[1].calls, 5);
        QVERIFY(near(a.rows[1].timeS, 0.024316213));
        QCOMPARE(a.rows[3].collective, QStringLiteral("broadcast"));
        QCOMPARE(a.rows[3].bytes.value_or(-1), 19200.0);
        QVERIFY(near(a.rows[3].busbwGbps.value_or(-1), 1.3188322839152833, 1e-12));
        QCOMPARE(a.ranks, 1);
        QVERIFY(!a.skewKnown);

        // The advice names it with the MI300X's Infinity Fabric.
        const std::optional<CollectiveHeadline> h = biggestCollective(*run);
        QVERIFY(h);
        QCOMPARE(h->link.perDirectionGbps.value_or(-1), 448.0);
        QVERIFY2(h->text.contains(QStringLiteral("allreduce of 16.82 MiB")), qPrintable(h->text));
        QVERIFY2(h->text.contains(QStringLiteral("448 GB/s per direction")), qPrintable(h->text));

        // The report's keys.
        const QJsonObject report = buildReport(*run, HeuristicsProfile::Workbench, Thresholds{});
        const QJsonArray rows = report.value(QStringLiteral("collectives")).toArray();
        QCOMPARE(rows.size(), 5);
        const QJsonObject first = rows.at(0).toObject();
        for (const char *key : {"name", "bytes", "calls", "time_s", "algbw_gbps", "busbw_gbps", "arrival_skew_s", "ranks"})
            QVERIFY2(first.contains(QLatin1String(key)), key);
        QCOMPARE(valueOf(first.value(QStringLiteral("bytes"))), 17632384.0);
        QCOMPARE(stateOf(first.value(QStringLiteral("busbw_gbps"))), QStringLiteral("measured"));
        QCOMPARE(stateOf(first.value(QStringLiteral("arrival_skew_s"))), QStringLiteral("unknown"));
        QCOMPARE(stateOf(rows.at(1).toObject().value(QStringLiteral("bytes"))), QStringLiteral("unknown"));
        const QStringList problems = test::validateJsonSchema(
            report, QJsonDocument::fromJson(test::readAll(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/report.schema.json"))).object());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void knownSkew_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QString>("matchedBy");
        QTest::newRow("4 ranks, Seq") << "collectives/ranks4-seq" << 4 << "process group and sequence number";
        QTest::newRow("3 ranks, no Seq") << "collectives/ranks3-noseq" << 3 << "order within process group and collective";
    }
    void knownSkew()
    {
        QFETCH(QString, fixture);
        QFETCH(int, ranks);
        QFETCH(QString, matchedBy);
        const auto run = load(fixture);
        QVERIFY(run);
        const QJsonObject truth = truthOf(fixture);
        const CollectiveAnalysis a = analyzeCollectives(*run);
        QCOMPARE(a.ranks, ranks);
        QCOMPARE(a.matchedBy, matchedBy);
        QCOMPARE(a.arrivalBasis, QStringLiteral("NCCL/RCCL kernel start (GPU)"));
        QVERIFY2(a.skewKnown, qPrintable(a.clockNote));
        const QJsonArray calls = truth.value(QStringLiteral("calls")).toArray();
        QCOMPARE(a.matchedCalls, calls.size());
        // Per rank: summed wait, mean lateness, calls arrived last.
        QCOMPARE(int(a.rankTotals.size()), ranks);
        for (const CollectiveRankWait &w : a.rankTotals) {
            const QJsonObject t = truth.value(QStringLiteral("ranks")).toObject().value(QString::number(w.rank)).toObject();
            QVERIFY2(near(w.waitS, t.value(QStringLiteral("wait_s")).toDouble(), 1e-12),
                     qPrintable(QStringLiteral("rank %1 wait %2").arg(w.rank).arg(w.waitS)));
            QVERIFY(near(w.lateSumS, t.value(QStringLiteral("late_sum_s")).toDouble(), 1e-12));
            QCOMPARE(w.lastCount, t.value(QStringLiteral("last_count")).toInteger());
            QCOMPARE(w.matchedCalls, calls.size());
        }
        // Per row (one collective and size): mean and largest skew, the rank most often last.
        for (const CollectiveRow &row : a.rows) {
            double sum = 0, most = 0;
            int n = 0;
            QMap<int, int> lastCounts;
            for (const QJsonValue &v : calls) {
                const QJsonObject c = v.toObject();
                if (c.value(QStringLiteral("collective")).toString() != row.collective)
                    continue;
                sum += c.value(QStringLiteral("skew_s")).toDouble();
                most = std::max(most, c.value(QStringLiteral("skew_s")).toDouble());
                ++lastCounts[c.value(QStringLiteral("last_rank")).toInt()];
                ++n;
            }
            QCOMPARE(row.matchedCalls, n);
            QVERIFY2(near(row.meanSkewS(), sum / n, 1e-12), qPrintable(row.collective));
            QVERIFY(near(row.maxSkewS, most, 1e-12));
            int expectedLast = -1, count = 0;
            for (auto it = lastCounts.cbegin(); it != lastCounts.cend(); ++it)
                if (it.value() > count) {
                    count = it.value();
                    expectedLast = it.key();
                }
            QCOMPARE(row.lastRank, expectedLast);
        }
        // The report says the same.
        const QJsonObject report = buildReport(*run, HeuristicsProfile::Workbench, Thresholds{});
        const QJsonArray reportRanks =
            report.value(QStringLiteral("collectives_summary")).toObject().value(QStringLiteral("ranks")).toArray();
        QCOMPARE(reportRanks.size(), ranks);
        for (const QJsonValue &v : reportRanks) {
            const QJsonObject r = v.toObject();
            const QJsonObject t =
                truth.value(QStringLiteral("ranks")).toObject().value(QString::number(r.value(QStringLiteral("rank")).toInt())).toObject();
            QVERIFY(near(valueOf(r.value(QStringLiteral("wait_s"))), t.value(QStringLiteral("wait_s")).toDouble(), 1e-12));
            QCOMPARE(stateOf(r.value(QStringLiteral("wait_s"))), QStringLiteral("measured"));
        }
    }

    /// Ranks on clocks that do not overlap (another host's boot clock): no skew, said why.
    void unrelatedClocks()
    {
        auto traceOf = [](qint64 shiftNs) {
            TraceCollectives t;
            for (int i = 0; i < 3; ++i) {
                CollectiveCall c;
                c.collective = QStringLiteral("allreduce");
                c.dtype = QStringLiteral("Float");
                c.inElements = c.outElements = 1024;
                c.groupSize = 2;
                c.processGroup = QStringLiteral("0");
                c.sequence = i;
                c.source = CollectiveSource::ParamComms;
                c.kernels = 1;
                c.kernelBeginNs = shiftNs + i * 1000000;
                c.kernelEndNs = c.kernelBeginNs + 5000;
                c.kernelTimeNs = 5000;
                t.calls.push_back(c);
            }
            return t;
        };
        const TraceCollectives a = traceOf(0), b = traceOf(3600LL * 1000000000LL);
        const CollectiveAnalysis r = analyzeCollectives({{QStringLiteral("a"), 0, &a, std::nullopt}, {QStringLiteral("b"), 1, &b, std::nullopt}});
        QCOMPARE(r.ranks, 2);
        QVERIFY(!r.skewKnown);
        QVERIFY(r.clockNote.contains(QStringLiteral("cannot be compared")));
        QCOMPARE(r.matchedCalls, 0);
        // The Ranks view's table: nothing matched in time reads "—", never a measured 0.
        CollectiveRanksModel apart;
        QAbstractItemModelTester apartTester(&apart, QAbstractItemModelTester::FailureReportingMode::QtTest);
        apart.setAnalysis(r);
        QCOMPARE(apart.rowCount(), 2);
        for (int row = 0; row < 2; ++row) {
            QCOMPARE(apart.index(row, CollectiveRanksModel::MatchedColumn).data().toString(), QStringLiteral("—"));
            QCOMPARE(apart.index(row, CollectiveRanksModel::WaitColumn).data().toString(), QStringLiteral("—"));
        }
        // Shifted by less than the calls' span: comparable, skew = the shift.
        const TraceCollectives c = traceOf(200);
        const CollectiveAnalysis s = analyzeCollectives({{QStringLiteral("a"), 0, &a, std::nullopt}, {QStringLiteral("c"), 1, &c, std::nullopt}});
        QVERIFY(s.skewKnown);
        QCOMPARE(s.rows.size(), size_t(1));
        QVERIFY(near(s.rows[0].meanSkewS(), 200e-9));
        QCOMPARE(s.rows[0].lastRank, 1);
        QVERIFY(near(s.rankTotals[0].waitS, 3 * 200e-9));
        QVERIFY(near(s.rankTotals[1].waitS, 0.0));
        QVERIFY(!s.clockShifted);
        // Kineto 2024+: each trace counts from its own baseTimeNanoseconds (rounded to the
        // second). Rank 1 started profiling in the next second: its timestamps read 1 s less for
        // the same instant. On one clock the skew is again the 200 ns.
        const qint64 second = 1'000'000'000;
        const TraceCollectives d = traceOf(200 - second);
        const CollectiveAnalysis t = analyzeCollectives({{QStringLiteral("a"), 0, &a, 1'733'126'400 * second},
                                                         {QStringLiteral("d"), 1, &d, 1'733'126'401 * second}});
        QVERIFY(t.skewKnown);
        QVERIFY(t.clockShifted);
        QVERIFY2(t.clockNote.contains(QStringLiteral("baseTimeNanoseconds")), qPrintable(t.clockNote));
        QVERIFY(near(t.rows[0].meanSkewS(), 200e-9));
        QCOMPARE(t.rows[0].lastRank, 1);
        // Without the bases the same timestamps read as a 1 s gap: clocks that cannot be compared.
        const CollectiveAnalysis u = analyzeCollectives({{QStringLiteral("a"), 0, &a, std::nullopt}, {QStringLiteral("d"), 1, &d, std::nullopt}});
        QVERIFY(!u.skewKnown);
    }

    /// A kernel trace alone (rocprofv3 CSV): its NCCL kernels by name; counted with Python's csv
    /// module over tests/data/alignment/otherrun/trace.csv (12 rows, End − Start summed 9297261 ns).
    void kernelTraceOnly()
    {
        const auto run = load(QStringLiteral("alignment/otherrun"));
        QVERIFY(run);
        const CollectiveAnalysis a = analyzeCollectives(*run);
        QCOMPARE(a.rows.size(), size_t(1));
        QCOMPARE(a.rows[0].collective, QStringLiteral("AllGather"));
        QCOMPARE(a.rows[0].calls, 12);
        QVERIFY(near(a.rows[0].timeS, 9297261e-9));
        QVERIFY(!a.rows[0].bytes);
        QVERIFY(!a.rows[0].busbwGbps);
        QCOMPARE(a.rows[0].bandwidthReason, QStringLiteral("only the kernel trace: no element count"));
    }

    void models()
    {
        const auto run = load(QStringLiteral("collectives/ranks4-seq"));
        QVERIFY(run);
        CollectivesModel rows;
        CollectiveRanksModel ranks;
        QAbstractItemModelTester rowsTester(&rows, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester ranksTester(&ranks, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const CollectiveAnalysis a = analyzeCollectives(*run);
        rows.setAnalysis(a);
        ranks.setAnalysis(a);
        QCOMPARE(rows.rowCount(), 3);
        QCOMPARE(ranks.rowCount(), 4);
        QVERIFY(rows.summaryText().contains(QStringLiteral("across 4 ranks")));
        QCOMPARE(rows.index(0, CollectivesModel::BusbwColumn).data().toString().isEmpty(), false);
        QVERIFY(rows.index(0, CollectivesModel::SkewColumn).data().toString() != QStringLiteral("—"));
        QVERIFY(ranks.index(0, CollectiveRanksModel::MatchedColumn).data().toInt() > 0);
    }
};

QTEST_GUILESS_MAIN(TestCollectives)
#include "tst_collectives.moc"
