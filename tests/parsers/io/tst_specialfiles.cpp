// Special files in a run folder's place of an input (issue 11): a FIFO, a symbolic link to
// /dev/zero, a socket and a folder. Each must be refused at once with a diagnostic naming the
// file, in both profiles, through the real `report` command — never read until killed — and
// nothing may be written into the folder.

#include "testsupport.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

class TestSpecialFiles : public QObject
{
    Q_OBJECT

    /// Puts a special file of `kind` at `path`. Returns an fd to close for a socket, else -1.
    static int makeSpecial(const QString &kind, const QString &path)
    {
        const QByteArray native = QFile::encodeName(path);
        if (kind == QLatin1String("fifo")) {
            if (::mkfifo(native.constData(), 0644) != 0)
                qFatal("mkfifo failed");
        } else if (kind == QLatin1String("devzero")) {
            if (!QFile::link(QStringLiteral("/dev/zero"), path))
                qFatal("symlink failed");
        } else if (kind == QLatin1String("socket")) {
            const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un address{};
            address.sun_family = AF_UNIX;
            if (fd < 0 || size_t(native.size()) >= sizeof(address.sun_path))
                qFatal("socket path too long");
            std::memcpy(address.sun_path, native.constData(), size_t(native.size()));
            if (::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) != 0)
                qFatal("bind failed");
            ::listen(fd, 1);
            return fd;
        } else if (kind == QLatin1String("folder")) {
            if (!QDir().mkpath(path + QStringLiteral("/inner")))
                qFatal("mkdir failed");
        }
        return -1;
    }

    static QStringList listing(const QString &dir)
    {
        QStringList entries;
        QDirIterator it(dir, QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            entries << it.fileInfo().fileName() + QLatin1Char(' ') + QString::number(it.fileInfo().size());
        }
        entries.sort();
        return entries;
    }

private slots:
    void refusedAtOnce_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QString>("profile");
        QTest::addColumn<QString>("expectedWords");
        const QStringList files{QStringLiteral("trace.csv"), QStringLiteral("torch_profile.json"),
                                QStringLiteral("amd_smi.csv")};
        const QList<QPair<QString, QString>> kinds{{QStringLiteral("fifo"), QStringLiteral("FIFO")},
                                                   {QStringLiteral("devzero"), QStringLiteral("/dev/zero")},
                                                   {QStringLiteral("socket"), QStringLiteral("socket")},
                                                   {QStringLiteral("folder"), QStringLiteral("folder")}};
        for (const auto &[kind, words] : kinds)
            for (const QString &file : files)
                for (const char *profile : {"workbench", "reference"})
                    QTest::addRow("%s as %s, %s", qPrintable(kind), qPrintable(file), profile)
                        << kind << file << QString::fromLatin1(profile) << words;
    }

    void refusedAtOnce()
    {
        QFETCH(QString, kind);
        QFETCH(QString, fileName);
        QFETCH(QString, profile);
        QFETCH(QString, expectedWords);

        // A short path: a socket's path must fit in sun_path (108 bytes).
        QTemporaryDir scratch(QStringLiteral("/tmp/gw-special-XXXXXX"));
        QVERIFY(scratch.isValid());
        const QString runDir = scratch.filePath(QStringLiteral("run"));
        QVERIFY(QDir().mkpath(runDir));
        const QDir example(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run"));
        for (const QString &name : example.entryList(QDir::Files))
            if (name != fileName)
                QVERIFY(QFile::copy(example.filePath(name), runDir + QLatin1Char('/') + name));
        const int socketFd = makeSpecial(kind, runDir + QLatin1Char('/') + fileName);
        const QStringList before = listing(runDir);

        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY"));
        process.setProcessEnvironment(env);
        const QString jsonPath = scratch.filePath(QStringLiteral("report.json"));
        QElapsedTimer clock;
        clock.start();
        process.start(QStringLiteral(GOBLIN_APP_BINARY),
                      {QStringLiteral("report"), runDir, QStringLiteral("--profile"), profile, QStringLiteral("--json"),
                       jsonPath});
        // The issue asks for "within a second"; the watchdog is wider so that a loaded CI machine
        // does not flake, and the time is printed. A file read until killed fails here either way.
        const bool finished = process.waitForFinished(15000);
        if (!finished)
            process.kill();
        if (socketFd >= 0)
            ::close(socketFd);
        QVERIFY2(finished, "report did not finish: the special file was read or waited on");
        qInfo("%s as %s (%s): %lld ms", qPrintable(kind), qPrintable(fileName), qPrintable(profile),
              qlonglong(clock.elapsed()));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);

        QFile json(jsonPath);
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(json.readAll()).object();
        bool named = false;
        for (const QJsonValue &value : report.value(QStringLiteral("diagnostics")).toArray()) {
            const QJsonObject diagnostic = value.toObject();
            const QString text = diagnostic.value(QStringLiteral("file")).toString() + QLatin1Char(' ') +
                                 diagnostic.value(QStringLiteral("message")).toString();
            if (diagnostic.value(QStringLiteral("severity")).toString() == QLatin1String("error") &&
                text.contains(fileName) && text.contains(expectedWords))
                named = true;
        }
        QVERIFY2(named, qPrintable(QStringLiteral("no error diagnostic names %1 as %2").arg(fileName, expectedWords)));
        QCOMPARE(listing(runDir), before); // nothing written into the run folder
    }

    /// `--json` into a FIFO (or /dev/null, /dev/stdout) is written in place: QSaveFile's rename
    /// would replace the FIFO with a regular file — run as root, `--json /dev/null` replaced
    /// /dev/null itself — and the reader would get nothing.
    void exportIntoAFifoWritesInPlace()
    {
        QTemporaryDir scratch;
        QVERIFY(scratch.isValid());
        const QString fifo = scratch.filePath(QStringLiteral("report.fifo"));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0644) == 0);
        // The read end is opened first and non-blocking, so that nothing here can hang; it is
        // drained while the process runs (the report is larger than a pipe's 64 kB buffer).
        const int readEnd = ::open(QFile::encodeName(fifo).constData(), O_RDONLY | O_NONBLOCK);
        QVERIFY(readEnd >= 0);
        QProcess process;
        process.start(QStringLiteral(GOBLIN_APP_BINARY),
                      {QStringLiteral("report"), QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run"),
                       QStringLiteral("--json"), fifo});
        QByteArray received;
        char buffer[4096];
        const auto drain = [&] {
            for (ssize_t n; (n = ::read(readEnd, buffer, sizeof buffer)) > 0;)
                received.append(buffer, n);
        };
        QElapsedTimer waited;
        waited.start();
        bool finished = false;
        while (!finished && waited.elapsed() < 60000) {
            finished = process.waitForFinished(50);
            drain();
        }
        if (!finished)
            process.kill();
        drain();
        ::close(readEnd);
        QVERIFY(finished);
        QCOMPARE(process.exitCode(), 0);
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(received, &parseError);
        QCOMPARE(parseError.error, QJsonParseError::NoError);
        QVERIFY(document.object().contains(QStringLiteral("metrics")));
        struct stat after {};
        QVERIFY(::lstat(QFile::encodeName(fifo).constData(), &after) == 0);
        QVERIFY2(S_ISFIFO(after.st_mode), "the FIFO was replaced by a regular file");
    }
};

QTEST_GUILESS_MAIN(TestSpecialFiles)
#include "tst_specialfiles.moc"
