#pragma once
/// \file What the window shows while no run is open: the ways to open one
/// (a folder, a trace file, the example, a recent run) and a short primer of the waste budget.

#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace goblin {

/// The waste budget in a few lines, as rich text: what each bucket means and the three states of
/// a number (measured, estimated, unknown), after docs/budget.md. `withDefinitions` adds every
/// bucket's full definition (bucketDefinition(), the measured budget's) for the Help window.
QString budgetPrimerHtml(bool withDefinitions = false);

/// Buttons and a list; it opens nothing itself (no file I/O in widgets): each action is a signal
/// the main window answers with its dialogs and loader.
class WelcomePage : public QWidget
{
    Q_OBJECT
public:
    explicit WelcomePage(QWidget *parent = nullptr);

    /// Most recent first (Settings::recentRunDirs()); an empty list shows "No recent runs".
    void setRecentRuns(const QStringList &paths);
    QStringList recentRuns() const { return m_recent; }
    /// Greys the example button out when the example is not installed.
    void setExampleAvailable(bool available);

    QPushButton *openFolderButton() const { return m_openFolder; }
    QPushButton *openFileButton() const { return m_openFile; }
    QPushButton *openExampleButton() const { return m_openExample; }
    QListWidget *recentList() const { return m_recentList; }
    QLabel *primerLabel() const { return m_primer; }

signals:
    void openFolderRequested();
    void openFileRequested();
    void openExampleRequested();
    void openRecentRequested(const QString &path);
    void helpRequested();

private:
    QPushButton *m_openFolder;
    QPushButton *m_openFile;
    QPushButton *m_openExample;
    QListWidget *m_recentList;
    QLabel *m_primer;
    QStringList m_recent;
};

} // namespace goblin
