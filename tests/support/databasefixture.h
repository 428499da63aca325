#pragma once
/// \file Helpers of the database readers' tests (rocpd, rpd, nsys): a folder's state (to show it
/// was not written), diagnostics as text and by file, and SQL run on a scratch database.

#include "diagnostic.h"

#include <QByteArray>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QString>
#include <QStringList>

#include <sqlite3.h>

namespace goblin::test {

/// Every file under `dir` with its size and modification time, sorted.
inline QStringList folderState(const QString &dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QFileInfo fi(it.next());
        out << QStringLiteral("%1 %2 %3")
                   .arg(QDir(dir).relativeFilePath(fi.filePath()))
                   .arg(fi.size())
                   .arg(fi.lastModified().toMSecsSinceEpoch());
    }
    out.sort();
    return out;
}

/// One line per diagnostic: "[severity] file: message".
inline QString diagnosticsText(const Diagnostics &diags)
{
    QStringList out;
    for (const Diagnostic &d : diags)
        out << QStringLiteral("[%1] %2: %3").arg(severityName(d.severity), d.file, d.message);
    return out.join(QLatin1Char('\n'));
}

/// The first diagnostic of `file` whose message contains `text`, or null.
inline const Diagnostic *findDiagnostic(const Diagnostics &diags, const QString &file, const QString &text)
{
    for (const Diagnostic &d : diags)
        if (d.file == file && d.message.contains(text))
            return &d;
    return nullptr;
}

/// Runs `sql` on the SQLite database at `path` (created if missing).
inline bool execSql(const QString &path, const QByteArray &sql, QString *error = nullptr)
{
    sqlite3 *db = nullptr;
    bool ok = sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK;
    char *message = nullptr;
    ok = ok && sqlite3_exec(db, sql.constData(), nullptr, nullptr, &message) == SQLITE_OK;
    if (!ok && error)
        *error = QString::fromUtf8(message ? message : sqlite3_errmsg(db));
    sqlite3_free(message);
    sqlite3_close(db);
    return ok;
}

} // namespace goblin::test
