#pragma once
/// \file Opening a SQLite file from a run folder without writing into the folder, and telling a
/// rocprofv3 rocpd database from anything else (by its tables, never by its extension).
/// Formats: /work/shared/formats/ROCPD.md §2-§5 (a copy of the facts is in docs/formats).

#include <QDir>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <string>
#include <vector>

struct sqlite3;

namespace goblin::rocpd
{

/// A read-only, immutable connection (`file:<path>?immutable=1`): no lock, no journal, and no
/// `-wal`/`-shm` file beside the database, whatever its journal mode.
class Connection
{
public:
    Connection() = default;
    ~Connection();
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    /// False with error() set when SQLite refuses the file.
    bool open(const QString &path);
    sqlite3 *handle() const { return m_db; }
    QString error() const { return m_error; }

    /// Every row of a one-column text query; false with error() set on failure.
    bool texts(const char *sql, QStringList &out);
    /// The single integer a query returns; false with error() set on failure.
    bool integer(const QString &sql, qint64 &out);

private:
    sqlite3 *m_db = nullptr;
    QString m_error;
};

/// What the first 100 bytes and the size of a file say about it.
struct FileCheck {
    bool ok = false;       ///< an SQLite file whose size matches its header
    bool wal = false;      ///< header journal mode 2 (WAL): `rocpd merge` output
    QString problem;       ///< why not ok, in plain words (empty file, not SQLite, truncated)
    QString sideFiles;     ///< a `-wal`/`-journal` beside it: being written or not closed cleanly
};
FileCheck checkFile(const QString &path);

/// One process of a rocpd database: its table suffix ("_0000a3a6_b896_…") and metadata (read by
/// the reader once the metadata table is known to be a plain table).
struct Process {
    QString suffix;
    QString schemaVersion;
    QString guid;
};

/// The rocpd layout of an open database: one Process per `rocpd_metadata_<suffix>` table that
/// has its `rocpd_info_node_<suffix>` companion. Empty `processes` with `foreign` set: an SQLite
/// file of another kind (described in `foreign`). Read from sqlite_master alone.
struct Layout {
    std::vector<Process> processes;
    QString foreign;
    QStringList tables;
    /// Metadata tables whose suffix is not one a rocpd writer makes (validSuffix()): never queried.
    QStringList oddSuffixes;
};
/// False (with conn.error()) when SQLite cannot read the schema (malformed, encrypted, …).
bool readLayout(Connection &conn, Layout &out);

/// A table suffix as rocprofv3 ("_" + a GUID with "-" made "_") and rocprofiler-systems ("_" + 32
/// hex digits, perhaps a pid) write it: "_" and then at most 100 ASCII letters, digits and "_".
/// Only such a suffix is ever put into SQL (a crafted name could otherwise inject it).
bool validSuffix(const QString &suffix);

/// `<table><suffix>` quoted as an SQL identifier.
QString table(const char *base, const QString &suffix);

} // namespace goblin::rocpd
