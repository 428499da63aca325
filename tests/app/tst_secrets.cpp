// Issue 23 item 6: the app never copies environment values (nor other metadata text that could
// hold a secret) from a trace into its exports or diagnostics. Each row writes a small Kineto
// trace with a fake token in one place a real trace could carry it, runs `goblin-workbench
// report` (JSON) and `goblin-workbench table` (CSV) in both profiles, and looks for the token in
// everything they wrote. The PNG is not searched: its text is pixels.

#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

namespace {

// What the rows hide; "FAKEsecret" is searched for, so a shortened echo is found too.
const QByteArray kToken = "hf_FAKEsecret123";
const QByteArray kNeedle = "FAKEsecret";

/// A Kineto trace of three ProfilerSteps with a GEMM and an RCCL kernel each, with `metadata`
/// (a JSON object's text, or empty for none), extra top-level members, the distributedInfo backend
/// and the device name as given.
QByteArray traceWith(const QByteArray &metadata, const QByteArray &extraRootMembers = {},
                     const QByteArray &backend = "\"nccl\"", const QByteArray &deviceName = "\"AMD Instinct MI300X\"")
{
    QByteArray events;
    for (int s = 0; s < 3; ++s) {
        const QByteArray t0 = QByteArray::number(s * 1000);
        if (s > 0)
            events += ",\n";
        events += "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" + QByteArray::number(s + 1) +
                  "\", \"pid\": 1, \"tid\": 1, \"ts\": " + t0 + ", \"dur\": 1000},\n"
                  "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": " +
                  QByteArray::number(s * 1000 + 10) +
                  ", \"dur\": 200},\n"
                  "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"Cijk_Ailk_Bljk_BBS_BH_MT128x128x32\", \"pid\": 0, "
                  "\"tid\": 7, \"ts\": " +
                  QByteArray::number(s * 1000 + 50) +
                  ", \"dur\": 300, \"args\": {\"device\": 0, \"stream\": 7}},\n"
                  "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)\", "
                  "\"pid\": 0, \"tid\": 7, \"ts\": " +
                  QByteArray::number(s * 1000 + 400) + ", \"dur\": 100, \"args\": {\"device\": 0, \"stream\": 7}}";
    }
    QByteArray doc = "{\n \"schemaVersion\": 1,\n \"deviceProperties\": [{\"id\": 0, \"name\": " + deviceName +
                     ", \"totalGlobalMem\": 205822885888, \"numSms\": 304}],\n"
                     " \"distributedInfo\": {\"backend\": " +
                     backend + ", \"rank\": 0, \"world_size\": 1},\n";
    if (!metadata.isEmpty())
        doc += " \"metadata\": " + metadata + ",\n";
    if (!extraRootMembers.isEmpty())
        doc += " " + extraRootMembers + ",\n";
    doc += " \"traceEvents\": [\n" + events + "\n ],\n \"baseTimeNanoseconds\": 1700000000000000000\n}\n";
    return doc;
}

QByteArray quoted(const QByteArray &text) { return '"' + text + '"'; }

/// An environment as TraceLens' harness writes it, with the token under several secret names.
QByteArray environment()
{
    return "{\"HF_TOKEN\": " + quoted(kToken) + ", \"AWS_SECRET_ACCESS_KEY\": " + quoted(kToken) +
           ", \"DATABASE_URL\": \"postgres://trainer:" + kToken + "@db:5432/runs\", \"HOME\": \"/root\"}";
}

} // namespace

class TestSecrets : public QObject
{
    Q_OBJECT

private slots:
    void noSecretInExports_data()
    {
        QTest::addColumn<QByteArray>("trace");
        QTest::addColumn<QString>("readBack");   ///< a metadata value the workbench report must show (the trace was read)

        // Where real traces keep the environment: never read, never copied.
        QTest::newRow("metadata.system.env (TraceLens layout)")
            << traceWith("{\"system\": {\"env\": " + environment() +
                         ", \"torch_env_info\": {\"torch_version\": \"2.7.0+gitf717b2a\"}}}")
            << "2.7.0+gitf717b2a";
        QTest::newRow("metadata.env, argv and command line")
            << traceWith("{\"pytorch_version\": \"2.4.1+rocm6.1\", \"env\": " + environment() +
                         ", \"argv\": [\"train.py\", \"--hf-token\", " + quoted(kToken) +
                         "], \"command\": \"HF_TOKEN=" + kToken + " torchrun train.py\"}")
            << "2.4.1+rocm6.1";
        QTest::newRow("top-level env beside metadata")
            << traceWith("{\"pytorch_version\": \"2.4.1+rocm6.1\"}", "\"env\": " + environment()) << "2.4.1+rocm6.1";
        QTest::newRow("distributedInfo.backend")
            << traceWith("{\"pytorch_version\": \"2.4.1+rocm6.1\"}", {}, quoted(kToken)) << "2.4.1+rocm6.1";
        QTest::newRow("deviceProperties name")
            << traceWith("{\"pytorch_version\": \"2.4.1+rocm6.1\"}", {}, "\"nccl\"", quoted(kToken)) << "2.4.1+rocm6.1";

        // Metadata the readings do read. A value that is not what the key promises must be
        // refused without being quoted back: a misplaced secret would otherwise travel with the report.
        QTest::newRow("metadata.tokens_per_sec is a string")
            << traceWith("{\"pytorch_version\": \"2.4.1+rocm6.1\", \"tokens_per_sec\": " + quoted(kToken) + "}")
            << "2.4.1+rocm6.1";
        QTest::newRow("metadata.mfu_pct is an object")
            << traceWith("{\"pytorch_version\": \"2.4.1+rocm6.1\", \"mfu_pct\": {\"HF_TOKEN\": " + quoted(kToken) + "}}")
            << "2.4.1+rocm6.1";
        QTest::newRow("metadata.host_busy_fraction is a list")
            << traceWith("{\"pytorch_version\": \"2.4.1+rocm6.1\", \"host_busy_fraction\": [" + quoted(kToken) + "]}")
            << "2.4.1+rocm6.1";
        QTest::newRow("top-level step_time_seconds is a string")
            << traceWith("{\"pytorch_version\": \"2.4.1+rocm6.1\"}", "\"step_time_seconds\": " + quoted(kToken))
            << "2.4.1+rocm6.1";

        // The PyTorch version is copied into the report; a value that is no version must not be.
        // (The reference passes any truthy value through; its export replaces what is no version.)
        QTest::newRow("metadata.pytorch_version is not a version")
            << traceWith("{\"pytorch_version\": " + quoted(kToken) + "}") << QString();
        QTest::newRow("metadata.torch_version is not a version")
            << traceWith("{\"torch_version\": " + quoted(kToken) + "}") << QString();
        QTest::newRow("torch_env_info.torch_version is not a version")
            << traceWith("{\"system\": {\"torch_env_info\": {\"torch_version\": " + quoted(kToken) + "}}}") << QString();
        QTest::newRow("metadata.pytorch_version is an object holding env")
            << traceWith("{\"pytorch_version\": {\"HF_TOKEN\": " + quoted(kToken) + "}}") << QString();
    }

    void noSecretInExports()
    {
        QFETCH(QByteArray, trace);
        QFETCH(QString, readBack);
        QVERIFY(trace.contains(kToken));

        QTemporaryDir runDir;  // the run folder: the app only reads it
        QTemporaryDir outDir;  // every export goes here, outside the run folder
        QVERIFY(runDir.isValid() && outDir.isValid());
        {
            QFile file(runDir.filePath(QStringLiteral("torch_profile.json")));
            QVERIFY(file.open(QIODevice::WriteOnly));
            QCOMPARE(file.write(trace), trace.size());
        }
        QStringList leaks;
        auto look = [&](const QString &where, const QByteArray &bytes) {
            if (bytes.contains(kNeedle))
                leaks << where;
        };
        for (const QString &profile : {QStringLiteral("workbench"), QStringLiteral("reference")}) {
            const QString json = outDir.filePath(QStringLiteral("report-%1.json").arg(profile));
            const test::AppRun report = test::runApp({"report", runDir.path(), "--profile", profile, "--json", json});
            QCOMPARE(report.exitCode, 0);
            const QByteArray reportBytes = test::readAll(json);
            look(QStringLiteral("report --profile %1: JSON").arg(profile), reportBytes);
            look(QStringLiteral("report --profile %1: stdout/stderr").arg(profile), report.out + report.err);

            // The trace was read: its events are counted and, in the workbench, its version shown.
            const QJsonObject doc = QJsonDocument::fromJson(reportBytes).object();
            QVERIFY2(doc.value("aggregates").toObject().value("torch_events").toDouble() >= 12,
                     qPrintable(QString::fromUtf8(reportBytes.left(400))));
            if (profile == QLatin1String("workbench") && !readBack.isEmpty())
                QCOMPARE(doc.value("metrics").toObject().value("pytorch_version").toString(), readBack);

            const QString csv = outDir.filePath(QStringLiteral("table-%1.csv").arg(profile));
            const test::AppRun table = test::runApp({"table", runDir.path(), "--profile", profile, "--csv", csv});
            QCOMPARE(table.exitCode, 0);
            const QByteArray csvBytes = test::readAll(csv);
            QVERIFY(csvBytes.count('\n') >= 2);  // a header and the run's row
            look(QStringLiteral("table --profile %1: CSV").arg(profile), csvBytes);
            look(QStringLiteral("table --profile %1: stdout/stderr").arg(profile), table.out + table.err);
        }
        QVERIFY2(leaks.isEmpty(), qPrintable(QStringLiteral("the token was copied into: ") + leaks.join(QStringLiteral("; "))));
    }
};

QTEST_GUILESS_MAIN(TestSecrets)
#include "tst_secrets.moc"
