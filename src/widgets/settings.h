#pragma once
/// \file The one place the application's persistent settings are read and written.

#include "heuristics.h"
#include "theme.h"

#include <QByteArray>
#include <QObject>
#include <QStringList>
#include <memory>
#include <optional>

class QSettings;

namespace goblin {

/// Typed accessors over QSettings; every key is spelt once, in settings.cpp. Inject a QSettings
/// (tests use an INI file in a temporary folder); without one the application's default
/// settings are used.
class Settings : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxRecentRunDirs = 10;
    /// Bumped when the dock/toolbar layout changes, so an old saved state is ignored.
    /// 2: the views became pages beside a list and the Runs dock starts hidden.
    static constexpr int kWindowStateVersion = 2;

    explicit Settings(QObject *parent = nullptr);
    /// Takes ownership of `backend`.
    explicit Settings(QSettings *backend, QObject *parent = nullptr);
    ~Settings() override;

    /// Most recent first, folders that no longer exist left out.
    QStringList recentRunDirs() const;
    /// Moves `runDir` to the front; caps the list; prunes missing folders.
    void addRecentRunDir(const QString &runDir);
    void removeRecentRunDir(const QString &runDir);
    void clearRecentRunDirs();

    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray &geometry);
    /// Empty when the saved state has another version.
    QByteArray windowState() const;
    void setWindowState(const QByteArray &state);

    /// The dashboard's own layout (WorkbenchView::saveLayout: the shown view, splitter sizes);
    /// empty when the saved one has another window-state version.
    QByteArray workbenchLayout() const;
    void setWorkbenchLayout(const QByteArray &layout);

    /// Whether the Thresholds dock stays open on the table views (Kernels, Operators, Modules,
    /// Diagnostics), where the names need its width; false (collapsed) unless the user opened it there.
    bool thresholdsOnTableViews() const;
    void setThresholdsOnTableViews(bool shown);

    /// View ▸ Theme; System when unset or unreadable.
    Theme theme() const;
    void setTheme(Theme theme);

    std::optional<Thresholds> lastThresholds() const;
    void setLastThresholds(const Thresholds &thresholds);
    HeuristicsProfile lastProfile() const;
    void setLastProfile(HeuristicsProfile profile);

    void sync();

signals:
    void recentRunDirsChanged(const QStringList &runDirs);
    void themeChanged(goblin::Theme theme);

private:
    void writeRecent(const QStringList &runDirs);
    std::unique_ptr<QSettings> m_settings;
};

} // namespace goblin
