// goblin-workbench: `goblin-workbench [RUN_DIR…]` opens the window; `goblin-workbench report
// RUN_DIR …` writes the report headless (no display needed, no window opened).

#include "reportcommand.h"

#ifdef GOBLIN_HAVE_GUI
#include "guimain.h"
#include <QApplication>
#endif

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>
#include <cstring>

namespace {

void setApplicationIdentity()
{
    QCoreApplication::setApplicationName(QStringLiteral("goblin-workbench"));
    QCoreApplication::setOrganizationName(QStringLiteral("goblin-workbench"));
    QCoreApplication::setApplicationVersion(QStringLiteral(GOBLIN_VERSION));
}

QStringList argumentsAfterCommand(int argc, char **argv)
{
    QStringList out;
    for (int i = 2; i < argc; ++i)
        out << QString::fromLocal8Bit(argv[i]);
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "report") == 0) {
        const QStringList arguments = argumentsAfterCommand(argc, argv);
#ifdef GOBLIN_HAVE_GUI
        if (goblin::reportNeedsGui(arguments)) {
            // Rendering the dashboard needs widgets, but never a display.
            qputenv("QT_QPA_PLATFORM", "offscreen");
            QApplication app(argc, argv);
            setApplicationIdentity();
            return goblin::runReportCommand(arguments);
        }
#endif
        QCoreApplication app(argc, argv);
        setApplicationIdentity();
        return goblin::runReportCommand(arguments);
    }

    // --help and --version must work without a display, so they are answered before any
    // QGuiApplication exists.
    {
        QCoreApplication probe(argc, argv);
        setApplicationIdentity();
        QCommandLineParser parser;
        parser.setApplicationDescription(QStringLiteral(
            "Goblin Workbench shows where each training step's time goes (the waste budget) from a profiling "
            "run folder.\n\nCommands:\n  report RUN_DIR [options]   write the report headless (see 'report --help')"));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addPositionalArgument(QStringLiteral("RUN_DIR"), QStringLiteral("Run folders to open."),
                                     QStringLiteral("[RUN_DIR...]"));
        if (!parser.parse(probe.arguments())) {
            QTextStream(stderr) << "goblin-workbench: " << parser.errorText()
                                << "\nTry 'goblin-workbench --help' for more information.\n";
            return 2;
        }
        if (parser.isSet(QStringLiteral("help"))) {
            QTextStream(stdout) << parser.helpText();
            return 0;
        }
        if (parser.isSet(QStringLiteral("version"))) {
            QTextStream(stdout) << "goblin-workbench " << GOBLIN_VERSION << "\n";
            return 0;
        }
    }
#ifdef GOBLIN_HAVE_GUI
    QStringList runDirs;
    for (int i = 1; i < argc; ++i)
        runDirs << QString::fromLocal8Bit(argv[i]);
    return goblin::runGui(argc, argv, runDirs);
#else
    QTextStream(stderr) << "goblin-workbench: this build has no window; use 'goblin-workbench report RUN_DIR'\n";
    return 2;
#endif
}
