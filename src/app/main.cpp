// goblin-workbench: `goblin-workbench [RUN_DIR…]` opens the window; `goblin-workbench report
// RUN_DIR …` writes the report headless (no display needed, no window opened).
//
// This file builds two programs. `goblin-workbench-gui` (GOBLIN_HAVE_GUI) links the widgets and
// does everything. `goblin-workbench`, the command users and CI type, links QtCore and the model
// only, answers `report` (JSON), --help and --version itself, and hands the window and `report
// --png` to goblin-workbench-gui with execv(). The split is for speed: loading the ~35 GUI shared
// libraries costs 30 ms at every start, as much as parsing 30 MB of trace (docs/performance.md).

#include "comparecommand.h"
#include "exporttracecommand.h"
#include "exportsqlitecommand.h"
#include "mcpcommand.h"
#include "reportcommand.h"
#include "sweepcommand.h"
#include "tablecommand.h"

#ifdef GOBLIN_HAVE_GUI
#include "guimain.h"
#include <QApplication>
#endif

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTextStream>
#include <cerrno>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if !defined(GOBLIN_HAVE_GUI) && defined(GOBLIN_GUI_HELPER_NAME)
#include <unistd.h>
#define GOBLIN_EXEC_GUI_HELPER 1
#endif

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

#ifdef GOBLIN_EXEC_GUI_HELPER
/// goblin-workbench-gui beside this executable (build tree) or in its libexec folder (installed).
QString guiHelperPath()
{
    const QString self = QFileInfo(QStringLiteral("/proc/self/exe")).canonicalFilePath();
    const QString selfDir = QFileInfo(self).absolutePath();
    const QString name = QStringLiteral(GOBLIN_GUI_HELPER_NAME);
    for (const QString &candidate : {selfDir + QLatin1Char('/') + name,
                                     QDir::cleanPath(selfDir + QStringLiteral("/" GOBLIN_GUI_HELPER_RELDIR "/") + name)}) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable())
            return info.absoluteFilePath();
    }
    return {};
}

/// Replaces this process by goblin-workbench-gui with the same arguments; returns only on failure.
int execGuiHelper(char **argv, const char *what)
{
    const QString helper = guiHelperPath();
    if (helper.isEmpty()) {
        QTextStream(stderr) << "goblin-workbench: " << what << " needs " << GOBLIN_GUI_HELPER_NAME
                            << ", which is not installed beside this program or in its libexec folder ("
                            << GOBLIN_GUI_HELPER_RELDIR << ")\n";
        return 2;
    }
    const QByteArray helperPath = QFile::encodeName(helper);
    ::execv(helperPath.constData(), argv);
    QTextStream(stderr) << "goblin-workbench: cannot start " << helper << ": " << std::strerror(errno) << "\n";
    return 2;
}
#endif

} // namespace

int main(int argc, char **argv)
{
#if defined(__GLIBC__)
    // glibc raises its mmap threshold to the size of the largest block freed (up to 32 MiB). The
    // torch trace's byte ranges each free a 17 MiB parser and a 7 MiB buffer, so after the first
    // range these came from the heap, whose freed pages stay resident: 42 MiB free but mapped after
    // loading a 1 GB folder. A fixed threshold maps and unmaps them (docs/performance.md).
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
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
#elif defined(GOBLIN_EXEC_GUI_HELPER)
        if (goblin::reportNeedsGui(arguments))
            return execGuiHelper(argv, "report --png");
#endif
        QCoreApplication app(argc, argv);
        setApplicationIdentity();
        return goblin::runReportCommand(arguments);
    }

    for (const auto &[name, run] : {std::pair{"compare", &goblin::runCompareCommand},
                                    std::pair{"sweep", &goblin::runSweepCommand}, std::pair{"table", &goblin::runTableCommand},
                                    std::pair{"export-trace", &goblin::runExportTraceCommand},
                                    std::pair{"export-sqlite", &goblin::runExportSqliteCommand},
                                    std::pair{"mcp", &goblin::runMcpCommand}})
        if (argc > 1 && std::strcmp(argv[1], name) == 0) {
            // compare --png and sweep --png draw with the widgets, as report --png does.
            const bool png = std::strcmp(name, "table") != 0 && std::strcmp(name, "export-trace") != 0
                && std::strcmp(name, "export-sqlite") != 0 && std::strcmp(name, "mcp") != 0
                && goblin::reportNeedsGui(argumentsAfterCommand(argc, argv));
#ifdef GOBLIN_HAVE_GUI
            if (png) {
                qputenv("QT_QPA_PLATFORM", "offscreen");
                QApplication app(argc, argv);
                setApplicationIdentity();
                return run(argumentsAfterCommand(argc, argv));
            }
#elif defined(GOBLIN_EXEC_GUI_HELPER)
            if (png)
                return execGuiHelper(argv, "--png");
#else
            Q_UNUSED(png);  // no window in this build
#endif
            QCoreApplication app(argc, argv);
            setApplicationIdentity();
            return run(argumentsAfterCommand(argc, argv));
        }

    // --help and --version must work without a display, so they are answered before any
    // QGuiApplication exists.
    {
        QCoreApplication probe(argc, argv);
        setApplicationIdentity();
        QCommandLineParser parser;
        parser.setApplicationDescription(QStringLiteral(
            "Goblin Workbench shows where each training step's time goes (the waste budget) from a profiling "
            "run folder.\n\nCommands:\n  report RUN_DIR [options]   write the report headless (see 'report --help'); RUN_DIR "
            "may be a file, read alone\n"
            "  compare A B [C...]         compare runs under one set of thresholds\n"
            "  sweep RUN_DIR --threshold NAME --from A --to B --by S   each bucket along one threshold\n"
            "  table DIR...               one CSV row per run\n"
            "  export-trace RUN_DIR [--step N] -o FILE   a step (or the run) as a Chrome trace for Perfetto\n"
            "  export-sqlite RUN_DIR -o FILE.sqlite      the run as one SQLite database (pandas, DuckDB)\n"
            "  mcp --allow DIR...         a Model Context Protocol server on stdio for agents"));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addPositionalArgument(QStringLiteral("RUN_DIR"),
                                     QStringLiteral("Run folders to open (a file opens alone: a chrome trace, a kernel "
                                                    "trace, ...)."),
                                     QStringLiteral("[RUN_DIR...]"));
        parser.addOption({QStringLiteral("compare"), QStringLiteral("Open the compare view with the RUN_DIRs side by "
                                                                    "side (the window's File > Compare With...).")});
        if (!parser.parse(probe.arguments())) {
            QTextStream(stderr) << "goblin-workbench: " << parser.errorText()
                                << "\nTry 'goblin-workbench --help' for more information.\n";
            return 2;
        }
        if (parser.isSet(QStringLiteral("help"))) {
            QTextStream(stdout) << goblin::helpTextNamed(parser, QStringLiteral("goblin-workbench"));
            return 0;
        }
        if (parser.isSet(QStringLiteral("version"))) {
            QTextStream(stdout) << "goblin-workbench " << GOBLIN_VERSION << "\n";
            return 0;
        }
    }
#ifdef GOBLIN_HAVE_GUI
    QStringList runDirs;
    bool compare = false;
    for (int i = 1; i < argc; ++i) {
        const QString arg = QString::fromLocal8Bit(argv[i]);
        if (arg == QLatin1String("--compare"))
            compare = true;
        else
            runDirs << arg;
    }
    return goblin::runGui(argc, argv, runDirs, compare);
#elif defined(GOBLIN_EXEC_GUI_HELPER)
    return execGuiHelper(argv, "the window");
#else
    QTextStream(stderr) << "goblin-workbench: this build has no window; use 'goblin-workbench report RUN_DIR'\n";
    return 2;
#endif
}
