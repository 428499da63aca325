// `compare --fail-if`: the regression gate judged against the steps' noise, with a comparability
// verdict. CLI rows run the real executable on generated runs whose difference is known (a repeat of
// one program over other steps, and the same program with 25 ms more data wait per step); unit rows
// check the noise arithmetic on hand-made reports.

#include "regressiongate.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <cmath>

using namespace goblin;

namespace {

QString gateRun(const QString &name)
{
    return test::dataPath(QStringLiteral("gate/") + name);
}

/// A report with `dataWait` per step (budget value = their mean) and one GPU model.
QJsonObject reportWithSteps(const std::vector<double> &dataWait, const QString &model = QStringLiteral("AMD Instinct MI300X"),
                            const QString &plan = QStringLiteral("cpu_profiler_steps"))
{
    QJsonArray steps;
    double sum = 0.0;
    for (double v : dataWait) {
        steps.append(QJsonObject{{QStringLiteral("partial"), false},
                                 {QStringLiteral("duration_s"), 0.1 + v},
                                 {QStringLiteral("gpu_util_pct"), 50.0},
                                 {QStringLiteral("waste_budget"), QJsonObject{{QStringLiteral("data_wait"), v}}}});
        sum += v;
    }
    const double mean = dataWait.empty() ? 0.0 : sum / double(dataWait.size());
    QJsonObject buckets{{QStringLiteral("data_wait"), QJsonObject{{QStringLiteral("state"), QStringLiteral("measured")},
                                                                  {QStringLiteral("seconds_per_step"), mean}}}};
    return QJsonObject{
        {QStringLiteral("per_step"), steps},
        {QStringLiteral("budget"), QJsonObject{{QStringLiteral("buckets"), buckets}}},
        {QStringLiteral("step_plan"), QJsonObject{{QStringLiteral("kind"), plan}}},
        {QStringLiteral("facts"),
         QJsonObject{{QStringLiteral("devices"), QJsonArray{QJsonObject{{QStringLiteral("model"), model}}}}}},
        {QStringLiteral("ops"), QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("aten::mm")},
                                                       {QStringLiteral("device_self_s"), 1.0}}}},
    };
}

QJsonObject onlyCheck(const QJsonObject &gate)
{
    const QJsonArray checks = gate[QLatin1String("checks")].toArray();
    return checks.size() == 1 ? checks.at(0).toObject() : QJsonObject();
}

} // namespace

class TestRegressionGate : public QObject
{
    Q_OBJECT

private slots:
    void parsesRules_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<QString>("metric");
        QTest::addColumn<bool>("increase");
        QTest::addColumn<double>("limit");
        QTest::newRow("bucket rise") << "data_wait>+10%" << true << "data_wait" << true << 10.0;
        QTest::newRow("spaces, no plus") << " step_time > 5.5 % " << true << "step_time" << true << 5.5;
        QTest::newRow("fall") << "gpu_util<-3%" << true << "gpu_util" << false << 3.0;
        QTest::newRow("collective alias") << "collective_comm>+1%" << true << "comm_excess" << true << 1.0;
        QTest::newRow("unknown metric") << "speed>+1%" << false << "" << true << 0.0;
        QTest::newRow("no percent") << "data_wait>+10" << false << "" << true << 0.0;
        QTest::newRow("rise written as fall") << "data_wait>-10%" << false << "" << true << 0.0;
        QTest::newRow("not a rule") << "=cmd|calc" << false << "" << true << 0.0;
    }
    void parsesRules()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QString problem;
        const std::optional<FailIfRule> rule = parseFailIfRule(text, &problem);
        QCOMPARE(rule.has_value(), valid);
        if (!valid) {
            QVERIFY2(problem.contains(QStringLiteral("--fail-if")), qPrintable(problem));
            return;
        }
        QFETCH(QString, metric);
        QFETCH(bool, increase);
        QFETCH(double, limit);
        QCOMPARE(rule->metric, metric);
        QCOMPARE(rule->increase, increase);
        QCOMPARE(rule->limitPct, limit);
    }

    void noiseJudges_data()
    {
        QTest::addColumn<std::vector<double>>("baseline");
        QTest::addColumn<std::vector<double>>("other");
        QTest::addColumn<QString>("verdict");
        QTest::addColumn<QString>("noiseState");
        // Means 0.100 and 0.115 (+15 %): steps spread ±0.02 → within noise; ±0.001 → a regression.
        QTest::newRow("wide spread: within noise")
            << std::vector<double>{0.08, 0.12, 0.08, 0.12} << std::vector<double>{0.095, 0.135, 0.095, 0.135}
            << "within_noise" << "measured";
        QTest::newRow("tight spread: regression")
            << std::vector<double>{0.099, 0.101, 0.099, 0.101} << std::vector<double>{0.114, 0.116, 0.114, 0.116}
            << "regression" << "measured";
        QTest::newRow("under the limit") << std::vector<double>{0.1, 0.1} << std::vector<double>{0.105, 0.105} << "ok"
                                         << "measured";
        QTest::newRow("one step: noise unknown, the limit judges")
            << std::vector<double>{0.1} << std::vector<double>{0.115} << "regression" << "unknown";
    }
    void noiseJudges()
    {
        QFETCH(std::vector<double>, baseline);
        QFETCH(std::vector<double>, other);
        QFETCH(QString, verdict);
        QFETCH(QString, noiseState);
        QString problem;
        const FailIfRule rule = *parseFailIfRule(QStringLiteral("data_wait>+10%"), &problem);
        const QJsonObject gate = judgeRegression(reportWithSteps(baseline), reportWithSteps(other), {rule});
        const QJsonObject check = onlyCheck(gate);
        QCOMPARE(check[QLatin1String("verdict")].toString(), verdict);
        QCOMPARE(check[QLatin1String("noise_state")].toString(), noiseState);
        if (noiseState == QLatin1String("measured")) {
            // 2 × sqrt(s²A/nA + s²B/nB), computed here on its own.
            const auto se2 = [](const std::vector<double> &v) {
                double mean = 0.0, sum = 0.0;
                for (double x : v)
                    mean += x / double(v.size());
                for (double x : v)
                    sum += (x - mean) * (x - mean);
                return sum / double(v.size() - 1) / double(v.size());
            };
            const double noise = 2.0 * std::sqrt(se2(baseline) + se2(other));
            QVERIFY(std::fabs(check[QLatin1String("noise")].toDouble() - noise) <= 1e-12);
        } else {
            QVERIFY(check[QLatin1String("noise")].isNull());
        }
        QCOMPARE(gate[QLatin1String("verdict")].toString(), verdict == QLatin1String("regression")
                                                                 ? QStringLiteral("regression")
                                                                 : QStringLiteral("pass"));
    }

    void notComparable_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("plan");
        QTest::addColumn<QString>("reason");
        QTest::newRow("other GPU") << "NVIDIA H100 80GB HBM3" << "cpu_profiler_steps" << "different GPU models";
        QTest::newRow("other step plan") << "AMD Instinct MI300X" << "kernel_span" << "steps cut differently";
    }
    void notComparable()
    {
        QFETCH(QString, model);
        QFETCH(QString, plan);
        QFETCH(QString, reason);
        QString problem;
        const FailIfRule rule = *parseFailIfRule(QStringLiteral("data_wait>+10%"), &problem);
        const QJsonObject gate =
            judgeRegression(reportWithSteps({0.1, 0.1}), reportWithSteps({0.5, 0.5}, model, plan), {rule});
        QCOMPARE(gate[QLatin1String("verdict")].toString(), QStringLiteral("not_comparable"));
        QVERIFY(gate[QLatin1String("checks")].toArray().isEmpty());
        QVERIFY2(QJsonDocument(gate[QLatin1String("comparable")].toObject()).toJson().contains(reason.toUtf8()),
                 qPrintable(reason));
    }

    void commandLine_data()
    {
        QTest::addColumn<QString>("other");
        QTest::addColumn<QStringList>("rules");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("verdict");
        QTest::addColumn<QString>("stderrHas");
        const QStringList all{"--fail-if", "data_wait>+10%", "--fail-if", "step_time>+10%"};
        QTest::newRow("known regression") << gateRun("slower") << all << 3 << "regression"
                                          << "data_wait>+10%: regression (rose 124.7 %";
        QTest::newRow("repeat: pass") << gateRun("repeat") << all << 0 << "pass" << "repeat vs base: pass";
        // gpu_util differs by 1.7 % between the repeats, inside their steps' spread.
        QTest::newRow("repeat: beyond a tight limit, within noise")
            << gateRun("repeat") << QStringList{"--fail-if", "gpu_util>+1%"} << 0 << "pass" << "within_noise";
        QTest::newRow("another program: not judged")
            << test::dataPath(QStringLiteral("realworld/optimizer-steps-only")) << all << 0 << "not_comparable"
            << "not comparable, not judged";
        QTest::newRow("bad rule") << gateRun("repeat") << QStringList{"--fail-if", "data_wait>>1"} << 2 << ""
                                  << "is not METRIC>+X%";
    }
    void commandLine()
    {
        QFETCH(QString, other);
        QFETCH(QStringList, rules);
        QFETCH(int, exitCode);
        QFETCH(QString, verdict);
        QFETCH(QString, stderrHas);
        const test::AppRun r =
            test::runApp(QStringList{"compare", gateRun("base"), other, "--json", "-"} + rules);
        QVERIFY2(r.exitCode == exitCode, r.err.constData());
        QVERIFY2(r.err.contains(stderrHas.toUtf8()), r.err.constData());
        if (verdict.isEmpty())
            return;
        const QJsonObject gate = QJsonDocument::fromJson(r.out).object()[QLatin1String("gate")].toObject();
        QCOMPARE(gate[QLatin1String("verdict")].toString(), verdict);
        QCOMPARE(gate[QLatin1String("runs")].toArray().size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestRegressionGate)
#include "tst_regressiongate.moc"
