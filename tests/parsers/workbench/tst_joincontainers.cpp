// The attribution join's containers (workbench/idmap.h, workbench/bytelog.h) against the standard
// library's on the same random input: every key, value and byte comes back, through growth.
#include "workbench/bytelog.h"
#include "workbench/idmap.h"

#include <QtTest>

#include <random>
#include <unordered_map>

using namespace goblin::workbench;

class TestJoinContainers : public QObject
{
    Q_OBJECT

private slots:
    void idMapMatchesUnorderedMap_data()
    {
        QTest::addColumn<int>("keys");
        QTest::addColumn<quint64>("keyRange");  // 0: any 64-bit key but the empty one
        QTest::newRow("empty") << 0 << quint64(100);
        QTest::newRow("one") << 1 << quint64(100);
        QTest::newRow("dense, repeated keys") << 20000 << quint64(5000);
        QTest::newRow("sparse 64-bit") << 50000 << quint64(0);
        QTest::newRow("40-bit keys") << 30000 << (quint64(1) << 40);
    }
    void idMapMatchesUnorderedMap()
    {
        QFETCH(int, keys);
        QFETCH(quint64, keyRange);
        std::mt19937_64 random(quint64(keys) * 7919 + keyRange);
        IdMap<qint64> map;
        std::unordered_map<quint64, qint64> expected;
        for (int i = 0; i < keys; ++i) {
            quint64 key = keyRange ? random() % keyRange : random();
            if (key == IdMap<qint64>::kEmpty)
                key = 0;
            const qint64 add = qint64(random() % 1000);
            bool inserted = false;
            map.at(key, &inserted) += add;
            QCOMPARE(inserted, expected.find(key) == expected.end());
            expected[key] += add;
        }
        QCOMPARE(map.size(), expected.size());
        size_t seen = 0;
        map.forEach([&](quint64 key, qint64 value) {
            ++seen;
            QCOMPARE(value, expected.at(key));
        });
        QCOMPARE(seen, expected.size());
        for (const auto &[key, value] : expected) {
            const qint64 *found = map.find(key);
            QVERIFY(found);
            QCOMPARE(*found, value);
        }
        // Keys never inserted are not found.
        for (int i = 0; i < 1000; ++i) {
            const quint64 key = keyRange ? keyRange + quint64(i) : random();
            if (key != IdMap<qint64>::kEmpty && !expected.count(key))
                QVERIFY(!map.find(key));
        }
    }

    void byteLogKeepsEveryRecordInOrder_data()
    {
        QTest::addColumn<int>("records");
        QTest::addColumn<int>("maxRecordBytes");
        QTest::newRow("none") << 0 << 8;
        QTest::newRow("fits the first block") << 20 << 8;
        QTest::newRow("many small") << 100000 << 12;
        QTest::newRow("records larger than the first block") << 50 << 700;
    }
    void byteLogKeepsEveryRecordInOrder()
    {
        QFETCH(int, records);
        QFETCH(int, maxRecordBytes);
        std::mt19937 random(quint32(records * 31 + maxRecordBytes));
        ByteLog log;
        std::vector<std::vector<std::uint8_t>> written;
        for (int i = 0; i < records; ++i) {
            // Two bytes give the record's length, so the reader below can split the records again.
            const int size = 2 + int(random() % quint32(maxRecordBytes - 1));
            std::uint8_t *p = log.reserve(size_t(maxRecordBytes + 1));
            std::vector<std::uint8_t> record{std::uint8_t(size & 0xff), std::uint8_t(size >> 8)};
            while (int(record.size()) < size)
                record.push_back(std::uint8_t(random()));
            p = std::copy(record.begin(), record.end(), p);
            log.commit(p);
            written.push_back(std::move(record));
        }
        size_t total = 0;
        for (const auto &r : written)
            total += r.size();
        QCOMPARE(log.bytes(), total);
        QCOMPARE(log.empty(), records == 0);
        size_t next = 0;
        log.forEachBlock([&](const std::uint8_t *p, const std::uint8_t *end) {
            while (p < end) {
                QVERIFY(next < written.size());
                const std::vector<std::uint8_t> &r = written[next++];
                const size_t size = size_t(p[0]) | size_t(p[1]) << 8;
                QCOMPARE(size, r.size());
                QVERIFY(std::equal(r.begin(), r.end(), p));
                p += size;
            }
        });
        QCOMPARE(next, written.size());
    }
};

QTEST_GUILESS_MAIN(TestJoinContainers)
#include "tst_joincontainers.moc"
