// Real public traces read through the real loader give, per device, what an independent count
// with issue 13's definitions gives: the exact kernel, collective, memcpy and memset counts, and
// kernel time, busy time (union of all GPU events), compute, communication, exposed communication
// and memcpy time within max(1 µs, 5e-5 × value) — the report's `timeline.devices[]` as other
// tools read it. And utilisation is never 0 where kernels exist.
//
// Expected numbers: tests/data/torch/timeline_measured.py (Python's json module, µs as Decimal,
// interval unions written from the definitions, not from the C++), its output kept in
// tests/data/torch/timeline_measured.expected:
//     cd tests/data/torch && python3 timeline_measured.py FILE... > timeline_measured.expected

#include "report.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>

using namespace goblin;

namespace {

using Row = std::map<QString, QString>;

/// The expected rows, grouped by trace file.
std::map<QString, std::vector<Row>> expectedRows()
{
    std::map<QString, std::vector<Row>> byFile;
    const QStringList lines = QString::fromUtf8(test::readAll(test::dataPath(QStringLiteral("torch/timeline_measured.expected"))))
                                  .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (lines.isEmpty())
        return byFile;
    const QStringList columns = lines.front().split(QLatin1Char('\t'));
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QStringList cells = lines[i].split(QLatin1Char('\t'));
        Row row;
        for (qsizetype c = 0; c < columns.size() && c < cells.size(); ++c)
            row[columns[c]] = cells[c];
        byFile[row[QStringLiteral("file")]].push_back(row);
    }
    return byFile;
}

} // namespace

class TestMeasuredTimeline : public QObject
{
    Q_OBJECT

private slots:
    void devicesMatchAnIndependentMeasurement_data()
    {
        QTest::addColumn<QString>("file");
        const auto rows = expectedRows();
        QVERIFY(rows.size() >= 10);
        for (const auto &[file, devices] : rows)
            QTest::newRow(qPrintable(file)) << file;
    }

    void devicesMatchAnIndependentMeasurement()
    {
        QFETCH(QString, file);
        const std::vector<Row> want = expectedRows().at(file);

        // A run folder holding only this trace (the commonest artifact there is).
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/") + file), dir.filePath(file)));
        const LoadResult loaded = loadRun(dir.path());
        QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
        const QJsonObject report = buildReport(*loaded.run, HeuristicsProfile::Workbench, Thresholds());

        QJsonArray devices;
        for (const QJsonValue &v : report.value(QStringLiteral("timeline")).toObject().value(QStringLiteral("devices")).toArray())
            if (v.toObject().value(QStringLiteral("source")).toString() == QLatin1String("torch_profile"))
                devices.append(v);
        QCOMPARE(devices.size(), qsizetype(want.size()));

        qint64 kernels = 0;
        for (const Row &row : want) {
            const qint64 device = row.at(QStringLiteral("device")).toLongLong();
            QJsonObject got;
            for (const QJsonValue &v : devices)
                if (qint64(v.toObject().value(QStringLiteral("device")).toDouble()) == device)
                    got = v.toObject();
            QVERIFY2(!got.isEmpty(), qPrintable(QStringLiteral("device %1 missing").arg(device)));

            const std::pair<const char *, const char *> counts[] = {
                {"kernels", "kernels"}, {"comm_kernels", "comm_kernels"}, {"memcpy", "memcpy"}, {"memset", "memset"}};
            for (const auto &[key, column] : counts) {
                const qint64 have = qint64(got.value(QLatin1String(key)).toDouble());
                const qint64 expected = row.at(QLatin1String(column)).toLongLong();
                QVERIFY2(have == expected, qPrintable(QStringLiteral("device %1 %2: %3, expected %4")
                                                          .arg(device).arg(QLatin1String(key)).arg(have).arg(expected)));
            }
            kernels += row.at(QStringLiteral("kernels")).toLongLong();

            // memcpy_s is memcpy and memset time (docs/timeline.md).
            const std::pair<const char *, const char *> times[] = {
                {"kernel_time_s", "kernel_ns"}, {"busy_s", "busy_ns"},         {"compute_s", "compute_ns"},
                {"comm_s", "comm_ns"},          {"exposed_comm_s", "exposed_ns"}, {"memcpy_s", "memcpy_ns"}};
            for (const auto &[key, column] : times) {
                const double have = got.value(QLatin1String(key)).toDouble();
                const double expected = double(row.at(QLatin1String(column)).toLongLong()) / 1e9;
                const double tolerance = std::max(1e-6, 5e-5 * expected);
                QVERIFY2(std::fabs(have - expected) <= tolerance,
                         qPrintable(QStringLiteral("device %1 %2: %3 s, expected %4 s")
                                        .arg(device).arg(QLatin1String(key)).arg(have, 0, 'g', 12).arg(expected, 0, 'g', 12)));
            }
        }

        // Kernels exist, so utilisation was measured: never 0, never "unknown".
        const QJsonObject aggregates = report.value(QStringLiteral("aggregates")).toObject();
        if (kernels > 0)
            QVERIFY2(aggregates.value(QStringLiteral("gpu_util_pct")).toDouble() > 0.0,
                     qPrintable(aggregates.value(QStringLiteral("gpu_util_source")).toString()));
    }
};

QTEST_GUILESS_MAIN(TestMeasuredTimeline)
#include "tst_measuredtimeline.moc"
