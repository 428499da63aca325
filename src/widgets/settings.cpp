#include "settings.h"

#include "thresholds.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <cmath>

namespace goblin {

namespace Key {
constexpr auto RecentRunDirs = "recent/runDirs";
constexpr auto WindowGeometry = "window/geometry";
constexpr auto WindowState = "window/state";
constexpr auto WindowStateVersion = "window/stateVersion";
constexpr auto WorkbenchLayout = "window/workbenchLayout";
constexpr auto Theme = "window/theme";
constexpr auto ThresholdsOnTableViews = "window/thresholdsOnTableViews";
constexpr auto ThresholdsSaved = "thresholds/saved";
// the numeric knobs' keys are in thresholdDescriptors()
constexpr auto Precision = "thresholds/precision";
constexpr auto Steps = "thresholds/steps";  // 0 = profile default
constexpr auto Profile = "thresholds/profile";
} // namespace Key

namespace {

QString key(const char *name)
{
    return QString::fromLatin1(name);
}

/// Recent runs that still exist: folders, and files opened alone (a trace, a kernel-trace CSV).
QStringList existingFolders(const QStringList &runDirs)
{
    QStringList kept;
    for (const QString &dir : runDirs)
        if (!dir.isEmpty() && QFileInfo::exists(dir) && !kept.contains(dir))
            kept << dir;
    return kept;
}

} // namespace

Settings::Settings(QObject *parent)
    : Settings(new QSettings, parent)
{
}

Settings::Settings(QSettings *backend, QObject *parent)
    : QObject(parent)
    , m_settings(backend)
{
}

Settings::~Settings() = default;

QStringList Settings::recentRunDirs() const
{
    return existingFolders(m_settings->value(key(Key::RecentRunDirs)).toStringList()).mid(0, kMaxRecentRunDirs);
}

void Settings::addRecentRunDir(const QString &runDir)
{
    const QString clean = QDir::cleanPath(QFileInfo(runDir).absoluteFilePath());
    QStringList dirs = m_settings->value(key(Key::RecentRunDirs)).toStringList();
    dirs.removeAll(clean);
    dirs.prepend(clean);
    writeRecent(existingFolders(dirs).mid(0, kMaxRecentRunDirs));
}

void Settings::removeRecentRunDir(const QString &runDir)
{
    QStringList dirs = m_settings->value(key(Key::RecentRunDirs)).toStringList();
    dirs.removeAll(runDir);
    writeRecent(existingFolders(dirs).mid(0, kMaxRecentRunDirs));
}

void Settings::clearRecentRunDirs()
{
    writeRecent({});
}

void Settings::writeRecent(const QStringList &runDirs)
{
    m_settings->setValue(key(Key::RecentRunDirs), runDirs);
    emit recentRunDirsChanged(runDirs);
}

QByteArray Settings::windowGeometry() const
{
    return m_settings->value(key(Key::WindowGeometry)).toByteArray();
}

void Settings::setWindowGeometry(const QByteArray &geometry)
{
    m_settings->setValue(key(Key::WindowGeometry), geometry);
}

QByteArray Settings::windowState() const
{
    if (m_settings->value(key(Key::WindowStateVersion), -1).toInt() != kWindowStateVersion)
        return {};
    return m_settings->value(key(Key::WindowState)).toByteArray();
}

void Settings::setWindowState(const QByteArray &state)
{
    m_settings->setValue(key(Key::WindowState), state);
    m_settings->setValue(key(Key::WindowStateVersion), kWindowStateVersion);
}

QByteArray Settings::workbenchLayout() const
{
    // Saved with the window state, and as old: an older layout names pages that moved.
    if (m_settings->value(key(Key::WindowStateVersion), -1).toInt() != kWindowStateVersion)
        return {};
    return m_settings->value(key(Key::WorkbenchLayout)).toByteArray();
}

void Settings::setWorkbenchLayout(const QByteArray &layout)
{
    m_settings->setValue(key(Key::WorkbenchLayout), layout);
    m_settings->setValue(key(Key::WindowStateVersion), kWindowStateVersion);
}

bool Settings::thresholdsOnTableViews() const
{
    return m_settings->value(key(Key::ThresholdsOnTableViews), false).toBool();
}

void Settings::setThresholdsOnTableViews(bool shown)
{
    m_settings->setValue(key(Key::ThresholdsOnTableViews), shown);
}

Theme Settings::theme() const
{
    return themeFromName(m_settings->value(key(Key::Theme)).toString()).value_or(Theme::System);
}

void Settings::setTheme(Theme theme)
{
    if (theme == this->theme() && m_settings->contains(key(Key::Theme)))
        return;
    m_settings->setValue(key(Key::Theme), themeName(theme));
    emit themeChanged(theme);
}

std::optional<Thresholds> Settings::lastThresholds() const
{
    if (!m_settings->value(key(Key::ThresholdsSaved), false).toBool())
        return std::nullopt;
    const Thresholds defaults;
    Thresholds t;
    // A value that does not read as a number keeps the default rather than becoming 0.
    const auto number = [this](const char *name, double fallback) {
        bool ok = false;
        const double value = m_settings->value(key(name)).toDouble(&ok);
        return ok && std::isfinite(value) ? value : fallback;
    };
    for (const ThresholdDescriptor &d : thresholdDescriptors()) {
        // Out of range (hand-edited, or saved by an older version) is treated like unreadable.
        const double value = number(d.settingsKey, d.defaultValue());
        t.*(d.member) = d.contains(value) ? value : d.defaultValue();
    }
    t.precision = precisionFromName(m_settings->value(key(Key::Precision)).toString()).value_or(defaults.precision);
    const int steps = m_settings->value(key(Key::Steps), 0).toInt();
    if (steps > 0)
        t.steps = steps;
    return t;
}

void Settings::setLastThresholds(const Thresholds &t)
{
    m_settings->setValue(key(Key::ThresholdsSaved), true);
    for (const ThresholdDescriptor &d : thresholdDescriptors())
        m_settings->setValue(d.settingsKeyText(), t.*(d.member));
    m_settings->setValue(key(Key::Precision), precisionName(t.precision));
    m_settings->setValue(key(Key::Steps), t.steps.value_or(0));
}

HeuristicsProfile Settings::lastProfile() const
{
    return profileFromName(m_settings->value(key(Key::Profile)).toString()).value_or(HeuristicsProfile::Workbench);
}

void Settings::setLastProfile(HeuristicsProfile profile)
{
    m_settings->setValue(key(Key::Profile), profileName(profile));
}

void Settings::sync()
{
    m_settings->sync();
}

} // namespace goblin
