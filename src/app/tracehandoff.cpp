#include "tracehandoff.h"

#include "chrometraceexport.h"
#include "runanalysis.h"
#include "timelinepanel.h"
#include "workbenchsession.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>

namespace goblin {

namespace {

void exportTrace(QWidget *window, WorkbenchSession *session, TimelinePanel *timeline, bool wholeRun)
{
    const auto run = session->currentRun();
    if (!run)
        return;
    ChromeTraceOptions options;
    options.equalSteps = timeline->equalSteps();
    if (!wholeRun) {
        if (timeline->stripStep() < 0) {
            QMessageBox::information(window, QObject::tr("Export Step as Chrome Trace"),
                                     QObject::tr("Pick a step first: click a bar in the Timeline view (its events show "
                                                 "in the strip below the bars), or export the whole run."));
            return;
        }
        options.step = timeline->stripStep();
    }
    const QString suggested = QDir(QDir::homePath()).filePath(chromeTraceFileName(*run, options.step));
    const QString title = wholeRun ? QObject::tr("Export Run as Chrome Trace")
                                   : QObject::tr("Export Step s%1 as Chrome Trace").arg(*options.step);
    const QString path = QFileDialog::getSaveFileName(window, title, suggested,
                                                      QObject::tr("Chrome traces (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    QString error;
    ChromeTraceExport written;
    const bool ok = writeChromeTrace(*run, options, path, &error, &written);
    QApplication::restoreOverrideCursor();
    if (!ok) {
        QMessageBox::warning(window, QObject::tr("Export failed"), error);
        return;
    }
    if (auto *main = qobject_cast<QMainWindow *>(window))
        main->statusBar()->showMessage(QObject::tr("Saved %1: %2 events (%3 GPU events); open it in ui.perfetto.dev or "
                                                   "chrome://tracing")
                                           .arg(QDir::toNativeSeparators(path))
                                           .arg(written.sliceCount)
                                           .arg(written.gpuEventCount),
                                       8000);
}

} // namespace

void addChromeTraceActions(QWidget *window, QMenu *menu, WorkbenchSession *session, TimelinePanel *timeline)
{
    for (const bool wholeRun : {false, true}) {
        auto *a = menu->addAction(wholeRun ? QObject::tr("Export Run as Chrome T&race…")
                                           : QObject::tr("Export &Step as Chrome Trace…"));
        a->setObjectName(wholeRun ? QStringLiteral("exportRunTrace") : QStringLiteral("exportStepTrace"));
        a->setStatusTip(wholeRun ? QObject::tr("Save every GPU event of the run as a Chrome trace (Perfetto, "
                                               "chrome://tracing)")
                                 : QObject::tr("Save the GPU events of the step the Timeline view shows as a Chrome "
                                               "trace (Perfetto, chrome://tracing)"));
        a->setShortcut(wholeRun ? QKeySequence(QObject::tr("Ctrl+Alt+Shift+T")) : QKeySequence(QObject::tr("Ctrl+Alt+T")));
        window->addAction(a);  // the shortcut works with the menu bar hidden too
        a->setEnabled(session->currentRun() != nullptr);
        QObject::connect(a, &QAction::triggered, window,
                         [window, session, timeline, wholeRun] { exportTrace(window, session, timeline, wholeRun); });
        QObject::connect(session, &WorkbenchSession::currentRunChanged, a, [a](int row) { a->setEnabled(row >= 0); });
    }
}

} // namespace goblin
