#include "guimain.h"

#include "mainwindow.h"
#include "settings.h"
#include "torchtraceparser.h"

#include <QApplication>
#include <QIcon>

#ifndef GOBLIN_VERSION
#define GOBLIN_VERSION "unknown"
#endif

namespace goblin {

int runGui(int &argc, char **argv, const QStringList &runDirs, bool compare)
{
    QApplication app(argc, argv);
    setKeepHostLanes(true);  // the Timeline's host lanes (headless commands keep none)
    QApplication::setOrganizationName(QStringLiteral("GoblinWorkbench"));
    QApplication::setApplicationName(QStringLiteral("goblin-workbench"));
    QApplication::setApplicationVersion(QStringLiteral(GOBLIN_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.goblinworkbench.GoblinWorkbench"));
    // The installed hicolor icon (packaging/icons); without an install the window has the default.
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("io.github.goblinworkbench.GoblinWorkbench")));

    Settings settings;
    MainWindow window(&settings);
    window.show();
    for (const QString &dir : runDirs)
        window.openRunDir(dir);
    if (compare)
        window.showCompareView();
    return app.exec();
}

} // namespace goblin
