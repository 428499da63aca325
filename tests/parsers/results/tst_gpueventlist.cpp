// GpuEventList: events read back exactly as they were added, in order, packed or kept whole.
#include "results/gpueventlist.h"

#include <QTest>

#include <limits>
#include <vector>

using namespace goblin;

class TestGpuEventList : public QObject
{
    Q_OBJECT
private slots:
    void readsBackWhatWasAdded_data();
    void readsBackWhatWasAdded();
};

namespace {
GpuEvent ev(qint64 start, qint64 end, std::uint32_t name, std::uint16_t stream, GpuEventKind kind)
{
    GpuEvent e;
    e.startNs = start;
    e.endNs = end;
    e.nameId = name;
    e.stream = stream;
    e.kind = kind;
    return e;
}
bool same(const GpuEvent &a, const GpuEvent &b)
{
    return a.startNs == b.startNs && a.endNs == b.endNs && a.nameId == b.nameId && a.stream == b.stream &&
           a.kind == b.kind;
}
} // namespace

void TestGpuEventList::readsBackWhatWasAdded_data()
{
    QTest::addColumn<int>("pattern");
    QTest::addColumn<int>("expectedWide");
    QTest::newRow("all packed") << 0 << 0;
    QTest::newRow("a 5 s collective") << 1 << 1;
    QTest::newRow("longest packed duration, and one ns more") << 2 << 1;
    QTest::newRow("name id 2^20") << 3 << 1;
    QTest::newRow("stream 1022 packed, 1023 and 65535 whole") << 4 << 2;
    QTest::newRow("extreme clock values") << 5 << 2;
    QTest::newRow("every event whole") << 6 << 40;
}

void TestGpuEventList::readsBackWhatWasAdded()
{
    QFETCH(int, pattern);
    QFETCH(int, expectedWide);
    const qint64 base = 1712195495505582988;  // a real Kineto clock value, ns
    std::vector<GpuEvent> added;
    for (int i = 0; i < 40; ++i)
        added.push_back(ev(base + 1000 * i, base + 1000 * i + (i % 3 == 0 ? 0 : 700), std::uint32_t(i % 7),
                           std::uint16_t(i % 4), GpuEventKind(i % 3)));
    switch (pattern) {
    case 1: added[10].endNs = added[10].startNs + 5'000'000'000; break;
    case 2:
        added[3].endNs = added[3].startNs + 0xfffffffeLL;
        added[4].endNs = added[4].startNs + 0xffffffffLL;
        break;
    case 3: added[20].nameId = 1u << 20; added[21].nameId = (1u << 20) - 1; break;
    case 4: added[5].stream = 1022; added[6].stream = 1023; added[30].stream = 65535; break;
    case 5:
        added[0] = ev(std::numeric_limits<qint64>::min(), std::numeric_limits<qint64>::max(), 1, 1, GpuEventKind::Kernel);
        added[39] = ev(-5, 7, 2, 0, GpuEventKind::Memset);          // negative start: packed
        added[38] = ev(std::numeric_limits<qint64>::max(), std::numeric_limits<qint64>::max(), 0, 0,
                       GpuEventKind::Kernel);                       // zero length at the end of the clock: packed
        added[37] = ev(0, std::numeric_limits<qint64>::max(), 0, 0, GpuEventKind::Memcpy);
        break;
    case 6:
        for (GpuEvent &e : added)
            e.stream = 2000;
        break;
    default: break;
    }
    GpuEventList list;
    for (const GpuEvent &e : added)
        list.push_back(e);
    QCOMPARE(list.size(), added.size());
    QCOMPARE(int(list.wideCount()), expectedWide);
    size_t i = 0;
    for (const GpuEvent &e : list) {  // iteration
        QVERIFY2(same(e, added[i]), qPrintable(QStringLiteral("event %1 by iteration").arg(i)));
        ++i;
    }
    QCOMPARE(i, added.size());
    for (size_t j = added.size(); j-- > 0;) {  // random access, backwards
        QVERIFY2(same(list[j], added[j]), qPrintable(QStringLiteral("event %1 by index").arg(j)));
        QCOMPARE(list.startNs(j), added[j].startNs);
    }
    const GpuEventList moved = std::move(list);
    QVERIFY(same(*moved.begin(), added[0]));
}

QTEST_APPLESS_MAIN(TestGpuEventList)
#include "tst_gpueventlist.moc"
