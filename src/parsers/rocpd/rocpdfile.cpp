#include "rocpdfile.h"

#include "io/regularfile.h"

#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <QUrl>
#include <sqlite3.h>

#include <cstring>

namespace goblin::rocpd
{

Connection::~Connection()
{
    if (m_db)
        sqlite3_close_v2(m_db);
}

bool Connection::open(const QString &path)
{
    // Percent-encode everything a URI would read as syntax ('?', '#', '%', spaces, …).
    const QByteArray encoded = QUrl::toPercentEncoding(QFileInfo(path).absoluteFilePath(), "/");
    const QByteArray uri = "file:" + encoded + "?immutable=1";
    const int rc = sqlite3_open_v2(uri.constData(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    if (rc != SQLITE_OK) {
        m_error = m_db ? QString::fromUtf8(sqlite3_errmsg(m_db)) : QString::fromUtf8(sqlite3_errstr(rc));
        if (m_db)
            sqlite3_close_v2(m_db);
        m_db = nullptr;
        return false;
    }
    // No mmap: mapped pages of a large database would count in the resident size, and reading
    // through SQLite's small page cache is as fast here (measured on 1M dispatches).
    return true;
}

bool Connection::texts(const char *sql, QStringList &out)
{
    sqlite3_stmt *stmt = nullptr;
    if (sqlite3_prepare_v2(m_db, sql, -1, &stmt, nullptr) != SQLITE_OK) {
        m_error = QString::fromUtf8(sqlite3_errmsg(m_db));
        return false;
    }
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0));
        out << QString::fromUtf8(text ? text : "");
    }
    if (rc != SQLITE_DONE)
        m_error = QString::fromUtf8(sqlite3_errmsg(m_db));
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE;
}

bool Connection::integer(const QString &sql, qint64 &out)
{
    sqlite3_stmt *stmt = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.toUtf8().constData(), -1, &stmt, nullptr) != SQLITE_OK) {
        m_error = QString::fromUtf8(sqlite3_errmsg(m_db));
        return false;
    }
    const int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW)
        out = sqlite3_column_int64(stmt, 0);
    else
        m_error = rc == SQLITE_DONE ? QStringLiteral("no row") : QString::fromUtf8(sqlite3_errmsg(m_db));
    sqlite3_finalize(stmt);
    return rc == SQLITE_ROW;
}

FileCheck checkFile(const QString &path)
{
    FileCheck out;
    if (const QString problem = specialFileProblem(path); !problem.isEmpty()) {
        out.problem = problem;
        return out;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        out.problem = QStringLiteral("cannot be opened: %1").arg(f.errorString());
        return out;
    }
    const qint64 size = f.size();
    if (size == 0) {
        out.problem = QStringLiteral("is empty (0 bytes): not a database");
        return out;
    }
    const QByteArray head = f.read(100);
    static const char kMagic[] = "SQLite format 3"; // 16 bytes with its NUL
    if (head.size() < 16 || std::memcmp(head.constData(), kMagic, 16) != 0) {
        out.problem = QStringLiteral("is not an SQLite database (its first bytes are not \"SQLite format 3\")");
        return out;
    }
    if (head.size() < 100) {
        out.problem = QStringLiteral("is truncated: %1 bytes, shorter than an SQLite header (100 bytes)").arg(size);
        return out;
    }
    auto u8 = [&](int i) { return std::uint32_t(static_cast<unsigned char>(head[i])); };
    auto be32 = [&](int i) { return (u8(i) << 24) | (u8(i + 1) << 16) | (u8(i + 2) << 8) | u8(i + 3); };
    std::uint32_t pageSize = (u8(16) << 8) | u8(17);
    if (pageSize == 1)
        pageSize = 65536;
    out.wal = u8(18) == 2 || u8(19) == 2;
    // The in-header page count is valid when "version-valid-for" equals the change counter.
    const std::uint32_t pages = be32(28);
    if (pages > 0 && be32(92) == be32(24) && qint64(pages) * pageSize > size) {
        out.problem = QStringLiteral("is truncated: its header says %1 bytes (%2 pages of %3), the file has %4 (a "
                                     "half-copied file?)")
                          .arg(qint64(pages) * pageSize)
                          .arg(pages)
                          .arg(pageSize)
                          .arg(size);
        return out;
    }
    for (const char *side : {"-wal", "-journal"}) {
        const QFileInfo fi(path + QLatin1String(side));
        if (fi.exists() && fi.size() > 0)
            out.sideFiles = QStringLiteral("%1 (%2 bytes) lies beside it: the database is being written (locked) or "
                                           "was not closed cleanly; what that file holds is not read")
                                .arg(fi.fileName())
                                .arg(fi.size());
    }
    out.ok = true;
    return out;
}

QString table(const char *base, const QString &suffix)
{
    QString name = QLatin1String(base) + suffix;
    name.replace(QLatin1Char('"'), QLatin1String("\"\""));
    return QLatin1Char('"') + name + QLatin1Char('"');
}

bool validSuffix(const QString &suffix)
{
    if (suffix.size() < 2 || suffix.size() > 101 || suffix.front() != QLatin1Char('_'))
        return false;
    for (const QChar c : suffix)
        if (!(c == QLatin1Char('_') || (c >= QLatin1Char('0') && c <= QLatin1Char('9')) ||
              (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('A') && c <= QLatin1Char('Z'))))
            return false;
    return true;
}

bool readLayout(Connection &conn, Layout &out)
{
    if (!conn.texts("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", out.tables))
        return false;
    const QString metaPrefix = QStringLiteral("rocpd_metadata_");
    const QSet<QString> tables(out.tables.begin(), out.tables.end()); // a crafted file may hold many
    for (const QString &t : out.tables) {
        if (!t.startsWith(metaPrefix))
            continue;
        const QString suffix = t.mid(int(std::strlen("rocpd_metadata")));
        if (!tables.contains(QStringLiteral("rocpd_info_node") + suffix))
            continue;
        if (!validSuffix(suffix)) {
            out.oddSuffixes << t.left(120);
            continue;
        }
        Process p;
        p.suffix = suffix;
        out.processes.push_back(p);
    }
    if (!out.processes.empty())
        return true;
    if (!out.oddSuffixes.isEmpty())
        out.foreign = QStringLiteral("an SQLite database with rocpd table names whose suffixes no rocpd writer "
                                     "makes (%1); such names are never put into a query")
                          .arg(out.oddSuffixes.size());
    else if (out.tables.isEmpty())
        out.foreign = QStringLiteral("an SQLite database with no tables");
    else if (out.tables.contains(QStringLiteral("rocpd_op")) && out.tables.contains(QStringLiteral("rocpd_api")))
        out.foreign = QStringLiteral("an older rocmProfileData (RPD, rocpd_op/rocpd_api tables) database, not "
                                     "rocprofv3's rocpd format; convert the run with rocprofv3 or use rpd2tracing");
    else {
        QStringList some; // a file's table names may be of any length: a few, shortened
        for (const QString &t : out.tables.mid(0, 6))
            some << (t.size() > 64 ? t.left(64) + QStringLiteral("...") : t);
        out.foreign = QStringLiteral("an SQLite database without rocpd tables (rocpd_metadata_<guid>, "
                                     "rocpd_info_node_<guid>); its tables: %1%2")
                          .arg(some.join(QStringLiteral(", ")), out.tables.size() > 6 ? QStringLiteral(", ...") : QString());
    }
    return true;
}

} // namespace goblin::rocpd
