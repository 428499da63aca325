// Settings (issue 3, point 8): recent folders capped and pruned, window state versioned, last
// thresholds round-trip and bad stored values fall back to defaults; the theme and the dashboard's
// layout are remembered (issue 26).

#include "settings.h"

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

class TestSettings : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void recentFoldersCappedMostRecentFirst();
    void recentFoldersPruneMissing();
    void windowStateVersioned();
    void thresholdsRoundTrip();
    void badThresholdValuesKeepDefaults();
    void profileRoundTrip();
    void themeRoundTrip_data();
    void themeRoundTrip();
    void workbenchLayoutVersioned();

private:
    Settings *makeSettings();
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Settings> m_settings;
};

void TestSettings::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_settings.reset(makeSettings());
}

Settings *TestSettings::makeSettings()
{
    return new Settings(new QSettings(m_dir->filePath(QStringLiteral("settings.ini")), QSettings::IniFormat));
}

void TestSettings::recentFoldersCappedMostRecentFirst()
{
    QSignalSpy changed(m_settings.get(), &Settings::recentRunDirsChanged);
    QStringList made;
    for (int i = 0; i < 12; ++i) {
        const QString dir = m_dir->filePath(QStringLiteral("run%1").arg(i));
        QVERIFY(QDir().mkpath(dir));
        made << dir;
        m_settings->addRecentRunDir(dir);
    }
    QCOMPARE(changed.count(), 12);
    QStringList recent = m_settings->recentRunDirs();
    QCOMPARE(recent.size(), Settings::kMaxRecentRunDirs);
    QCOMPARE(recent.first(), made.last());
    QVERIFY(!recent.contains(made.first()));
    m_settings->addRecentRunDir(made.at(5));  // reopening moves it to the front, no duplicate
    recent = m_settings->recentRunDirs();
    QCOMPARE(recent.first(), made.at(5));
    QCOMPARE(recent.count(made.at(5)), 1);
    // Persisted: a second Settings over the same file sees the same list.
    m_settings->sync();
    std::unique_ptr<Settings> again(makeSettings());
    QCOMPARE(again->recentRunDirs(), recent);
}

void TestSettings::recentFoldersPruneMissing()
{
    const QString kept = m_dir->filePath(QStringLiteral("kept"));
    const QString gone = m_dir->filePath(QStringLiteral("gone"));
    QVERIFY(QDir().mkpath(kept));
    QVERIFY(QDir().mkpath(gone));
    m_settings->addRecentRunDir(kept);
    m_settings->addRecentRunDir(gone);
    QCOMPARE(m_settings->recentRunDirs(), QStringList({gone, kept}));
    QVERIFY(QDir(gone).removeRecursively());
    QCOMPARE(m_settings->recentRunDirs(), QStringList{kept});

    // A file opened alone is a recent run too, pruned like a folder once it is gone.
    const QString trace = m_dir->filePath(QStringLiteral("rank0.json.gz"));
    {
        QFile f(trace);
        QVERIFY(f.open(QIODevice::WriteOnly));
    }
    m_settings->addRecentRunDir(trace);
    QCOMPARE(m_settings->recentRunDirs(), QStringList({trace, kept}));
    QVERIFY(QFile::remove(trace));
    QCOMPARE(m_settings->recentRunDirs(), QStringList{kept});
}

void TestSettings::windowStateVersioned()
{
    m_settings->setWindowGeometry(QByteArray("geometry"));
    m_settings->setWindowState(QByteArray("state"));
    QCOMPARE(m_settings->windowGeometry(), QByteArray("geometry"));
    QCOMPARE(m_settings->windowState(), QByteArray("state"));
    QSettings raw(m_dir->filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    m_settings->sync();
    raw.setValue(QStringLiteral("window/stateVersion"), Settings::kWindowStateVersion + 1);
    raw.sync();
    std::unique_ptr<Settings> again(makeSettings());
    QCOMPARE(again->windowState(), QByteArray());  // another layout version is ignored
}

void TestSettings::thresholdsRoundTrip()
{
    QVERIFY(!m_settings->lastThresholds());
    Thresholds t;
    t.gpuUtilBelowPct = 41.5;
    t.hostBusyAbove = 0.35;
    t.hbmTargetPct = 62.0;
    t.hbmCapacityGb = 256.0;
    t.precisionWeight = 0.2;
    t.headroomWeight = 0.01;
    t.precision = Precision::Bf16;
    t.steps = 25;
    m_settings->setLastThresholds(t);
    m_settings->sync();
    std::unique_ptr<Settings> again(makeSettings());
    QCOMPARE(again->lastThresholds(), std::optional<Thresholds>(t));
    t.steps.reset();
    m_settings->setLastThresholds(t);
    QCOMPARE(m_settings->lastThresholds(), std::optional<Thresholds>(t));
}

void TestSettings::badThresholdValuesKeepDefaults()
{
    m_settings->setLastThresholds(Thresholds{});
    m_settings->sync();
    QSettings raw(m_dir->filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    raw.setValue(QStringLiteral("thresholds/gpuUtilBelowPct"), QStringLiteral("lots"));
    raw.setValue(QStringLiteral("thresholds/precision"), QStringLiteral("fp64"));
    raw.sync();
    std::unique_ptr<Settings> again(makeSettings());
    QCOMPARE(again->lastThresholds(), std::optional<Thresholds>(Thresholds{}));
}

void TestSettings::profileRoundTrip()
{
    QCOMPARE(m_settings->lastProfile(), HeuristicsProfile::Workbench);
    m_settings->setLastProfile(HeuristicsProfile::Reference);
    QCOMPARE(m_settings->lastProfile(), HeuristicsProfile::Reference);
}

Q_DECLARE_METATYPE(goblin::Theme)

void TestSettings::themeRoundTrip_data()
{
    QTest::addColumn<Theme>("theme");
    QTest::newRow("system") << Theme::System;
    QTest::newRow("light") << Theme::Light;
    QTest::newRow("dark") << Theme::Dark;
}

void TestSettings::themeRoundTrip()
{
    QFETCH(Theme, theme);
    QCOMPARE(m_settings->theme(), Theme::System);  // nothing stored yet
    QSignalSpy changed(m_settings.get(), &Settings::themeChanged);
    m_settings->setTheme(theme);
    QCOMPARE(changed.count(), 1);
    m_settings->setTheme(theme);  // the same again: no change to tell
    QCOMPARE(changed.count(), 1);
    m_settings->sync();
    std::unique_ptr<Settings> again(makeSettings());
    QCOMPARE(again->theme(), theme);
    // A hand-edited value nobody knows reads as the desktop's theme.
    QSettings raw(m_dir->filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    raw.setValue(QStringLiteral("window/theme"), QStringLiteral("purple"));
    raw.sync();
    std::unique_ptr<Settings> edited(makeSettings());
    QCOMPARE(edited->theme(), Theme::System);
}

void TestSettings::workbenchLayoutVersioned()
{
    QCOMPARE(m_settings->workbenchLayout(), QByteArray());
    m_settings->setWorkbenchLayout(QByteArray("layout"));
    m_settings->sync();
    std::unique_ptr<Settings> again(makeSettings());
    QCOMPARE(again->workbenchLayout(), QByteArray("layout"));
    QSettings raw(m_dir->filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    raw.setValue(QStringLiteral("window/stateVersion"), Settings::kWindowStateVersion - 1);
    raw.sync();
    std::unique_ptr<Settings> old(makeSettings());
    QCOMPARE(old->workbenchLayout(), QByteArray());  // saved by an older window: its pages moved
}

QTEST_GUILESS_MAIN(TestSettings)
#include "tst_settings.moc"
