#pragma once
/// \file What the rocmProfileData (rpd/) and Nsight Systems (nsys/) database readers share: telling
/// the kinds of SQLite file apart by their tables, hardening the read-only connection against a
/// stranger's file, and a timeline builder that also takes copies and memsets.
///
/// The connection itself is rocpd::Connection (`file:…?immutable=1`, SQLITE_OPEN_READONLY): no
/// lock, no journal, nothing written beside the file. On top of it harden() disables views and
/// triggers, distrusts the schema, installs an authorizer that allows reads only (no ATTACH, no
/// PRAGMA but table_info, no recursive CTE) and a watchdog that interrupts a statement that has
/// not produced a row for a while. The readers query plain tables only (never a view): a table
/// name that is a view in the file is refused before any query.

#include "results/gputimeline.h"
#include "rocpd/rocpdfile.h"

#include <QString>
#include <QStringList>

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace goblin {
struct KernelSink;
}

namespace goblin::dbread
{

/// What a SQLite file's schema says it is. Recognition by tables (and views of the same names,
/// which the readers then refuse), never by the file's extension.
enum class DatabaseKind {
    Other, ///< anything else, not SQLite, unreadable: the rocpd reader decides and says why
    Rpd,   ///< rocmProfileData (rpd_tracer): rocpd_op, rocpd_api, rocpd_string with their columns
    Nsys,  ///< Nsight Systems `nsys export --type sqlite`: StringIds and CUPTI_/NVTX_ tables
};

struct Recognition {
    DatabaseKind kind = DatabaseKind::Other;
    /// Other with rpd's table names but without the columns the rpd reader needs: what is missing.
    QString incompleteRpd;
};

/// Looks at the schema only (one read of sqlite_master and table_info); never throws, never
/// blocks on a lock. A file that is not SQLite, empty or damaged is Other.
Recognition recognise(const QString &path);

/// Hardens an open connection for reading a stranger's file (see the file comment). Call once,
/// right after open. `stallLimit`: how long a statement may run without a row.
class Guard
{
public:
    explicit Guard(sqlite3 *db, std::chrono::milliseconds stallLimit = std::chrono::seconds(20));
    ~Guard();
    Guard(const Guard &) = delete;
    Guard &operator=(const Guard &) = delete;

    /// A statement starts or produced a row: the watchdog starts again.
    void alive()
    {
        m_last = std::chrono::steady_clock::now();
        m_stalled = false;
    }
    /// True once the watchdog interrupted a statement.
    bool stalled() const { return m_stalled; }

private:
    static int onProgress(void *self);
    sqlite3 *m_db;
    std::chrono::milliseconds m_stallLimit;
    std::chrono::steady_clock::time_point m_last;
    bool m_stalled = false;
};

/// The schema objects of a database: name -> "table" / "view" / "index" / "trigger".
using SchemaObjects = std::unordered_map<std::string, std::string>;
bool readSchema(rocpd::Connection &conn, SchemaObjects &out, QString &error);

/// Why a stranger's database was not opened: the diagnostic and the dialect its file row shows.
struct OpenRefusal {
    bool error = false;  ///< Error (else Warning) severity
    QString message;
    QString dialect;
};

/// A stranger's database opened for reading: the connection, its guard, its schema.
struct UntrustedConnection {
    rocpd::Connection conn;
    std::optional<Guard> guard;
    SchemaObjects schema;
    QString sideFiles;  ///< the file check's word on a journal or WAL beside the file (empty: none)
};

/// The first steps every reader of a stranger's database takes: the file check, the read-only
/// immutable open, the guard and the schema. nullopt when all went well.
std::optional<OpenRefusal> openUntrusted(const QString &path, UntrustedConnection &into);

/// The column names of a table (pragma table_info); empty when it has none or cannot be read.
QStringList columnsOf(rocpd::Connection &conn, const QString &table);

/// Tables among `required` that are not plain tables: "rocpd_op (a view)", "StringIds (missing)".
QStringList notTables(const SchemaObjects &schema, const std::vector<const char *> &required);

/// Runs `sql` and hands each row to `row` (which may return false to stop early). False with
/// `error` set when SQLite fails (damaged file, interrupted by the guard, …).
template <typename Row> bool eachRow(sqlite3 *db, Guard &guard, const QByteArray &sql, QString &error, Row row);

/// One device event as a reader found it, before sorting.
struct DeviceRow {
    qint64 startNs = 0;
    qint64 endNs = 0;
    qint64 pid = -1;
    qint64 device = 0;
    qint64 stream = 0;
    std::uint32_t nameId = 0; ///< run-wide id for kernels (NamePool), local id (LocalNames) for the rest
    GpuEventKind kind = GpuEventKind::Kernel;
    qint64 order = 0; ///< storage order, the last tie-break
};

/// Sorts rows by start, then end descending, device, stream and storage order: the order a
/// chronological trace.csv would list them in (first uses follow it).
void sortRows(std::vector<DeviceRow> &rows);

/// Builds one GpuTimelineFile of kernels, copies and memsets: one GpuDeviceTimeline per
/// (process, device), names interned per file by their text.
class EventTimeline
{
public:
    EventTimeline(const QString &source, const QString &file);
    void add(std::string_view name, qint64 pid, qint64 device, qint64 stream, GpuEventKind kind, qint64 startNs,
             qint64 endNs);
    qint64 eventCount() const { return m_events; }
    bool streamOverflow() const { return m_streamOverflow; }
    GpuTimelineFile take() { return std::move(m_file); }

private:
    GpuTimelineFile m_file;
    std::unordered_map<std::string, std::uint32_t> m_names;
    qint64 m_events = 0;
    bool m_streamOverflow = false;
};

/// What sweepSortedRows() counted.
struct RowCounts {
    qint64 used = 0;             ///< kernels summed
    qint64 skippedKernels = 0;   ///< kernels left out of the sums: end before start, zero or implausible
    qint64 negativeRows = 0;     ///< rows of every kind with end before start (not on the timeline)
    qint64 zeroRows = 0;         ///< zero-length kernels (on the timeline, not summed)
    qint64 implausibleRows = 0;  ///< kernels longer than a day
    qint64 copyRows = 0, memsetRows = 0;  ///< on the timeline
    std::set<qint64> devices;    ///< of the rows that do not end before they start
};

/// The rows, sorted (sortRows()), onto `timeline`, and their kernels into the workbench's sums as
/// a chronological trace.csv's would go: kernels that end before they start, last zero time or
/// more than a day are counted and left out (the reading's rowsSkipped… say which).
/// `localNames` names the copies and memsets (DeviceRow::nameId), the sink's pool the kernels.
RowCounts sweepSortedRows(const std::vector<DeviceRow> &rows, const std::vector<std::string> &localNames,
                          KernelSink &sink, EventTimeline &timeline);

/// Trims ASCII white space at both ends (names as the CSV readers strip them).
std::string trimmed(const char *text, int bytes);

/// Looks strings up by integer id in one table (rpd's rocpd_string, nsys's StringIds), each id
/// once, trimmed.
class StringLookup
{
public:
    StringLookup(sqlite3 *db, const QString &table, const QString &column);
    ~StringLookup();
    StringLookup(const StringLookup &) = delete;
    StringLookup &operator=(const StringLookup &) = delete;

    /// The string of `id`, nullopt when there is no such row (or on an error, see error()).
    const std::optional<std::string> &get(qint64 id);
    QString error() const { return m_error; }

private:
    sqlite3 *m_db;
    sqlite3_stmt *m_stmt = nullptr;
    bool m_ok = false;
    QString m_error;
    std::unordered_map<qint64, std::optional<std::string>> m_cache;
};

/// "1.5 GiB" for a byte count.
QString describeBytes(qint64 bytes);

} // namespace goblin::dbread

#include <sqlite3.h>

namespace goblin::dbread
{

template <typename Row> bool eachRow(sqlite3 *db, Guard &guard, const QByteArray &sql, QString &error, Row row)
{
    sqlite3_stmt *stmt = nullptr;
    guard.alive();
    if (sqlite3_prepare_v2(db, sql.constData(), -1, &stmt, nullptr) != SQLITE_OK) {
        error = QString::fromUtf8(sqlite3_errmsg(db));
        return false;
    }
    int rc;
    bool stopped = false;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        guard.alive();
        if (!row(stmt)) {
            stopped = true;
            break;
        }
    }
    const bool ok = stopped || rc == SQLITE_DONE;
    if (!ok)
        error = guard.stalled() ? QStringLiteral("a query ran for seconds without a row and was stopped (%1)")
                                      .arg(QString::fromUtf8(sqlite3_errmsg(db)))
                                : QString::fromUtf8(sqlite3_errmsg(db));
    sqlite3_finalize(stmt);
    return ok;
}

} // namespace goblin::dbread
