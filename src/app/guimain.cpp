#include "guimain.h"

#include "mainwindow.h"
#include "settings.h"

#include <QApplication>

#ifndef GOBLIN_VERSION
#define GOBLIN_VERSION "unknown"
#endif

namespace goblin {

int runGui(int &argc, char **argv, const QStringList &runDirs)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("GoblinWorkbench"));
    QApplication::setApplicationName(QStringLiteral("goblin-workbench"));
    QApplication::setApplicationVersion(QStringLiteral(GOBLIN_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.goblinworkbench.GoblinWorkbench"));

    Settings settings;
    MainWindow window(&settings);
    window.show();
    for (const QString &dir : runDirs)
        window.openRunDir(dir);
    return app.exec();
}

} // namespace goblin
