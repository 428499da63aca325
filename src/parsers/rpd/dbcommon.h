#pragma once
/// \file What the database readers (rocpd/ via rocpdreader, rpd/, nsys/) share: telling the kinds
/// of SQLite file apart by their tables, the one opener of a stranger's database, and a timeline
/// builder that also takes copies and memsets.
///
/// The connection itself is rocpd::Connection (`file:…?immutable=1`, SQLITE_OPEN_READONLY): no
/// lock, no journal, nothing written beside the file. openUntrusted() puts a Guard on it: views
/// and triggers off, the schema distrusted, an authorizer that allows reads only (no ATTACH, no
/// PRAGMA but table_info/table_xinfo/table_list, no recursive CTE), SQLite's size limits
/// (a value at most 16 MiB, the SQL text, the expression depth), and a progress handler, called
/// every 1000 virtual-machine instructions, that interrupts a statement when the database's
/// wall-clock deadline has passed or when it has produced no row for a while. The readers query
/// plain tables only, and only tables checked by unsafeTables() first: a view, a virtual table or
/// a table with a generated column (whose expression SQLite would evaluate on every read) in place
/// of a table a reader needs is refused before any query. No SQL is built from a name in the
/// file: the readers' table and column names are their own constants (rocpd's table suffix is
/// validated first), a table name from the file is only ever a bound parameter.
/// docs/inputs-databases.md, "Untrusted databases", states these promises for users.

#include "kernels/namepool.h"
#include "progress.h"
#include "results/gputimeline.h"
#include "rocpd/rocpdfile.h"

#include <QString>
#include <QStringList>

#include <algorithm>
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
    NsysWithoutCuda,  ///< an Nsight Systems export (StringIds and its metadata tables) with no CUPTI_ or NVTX_ table
};

struct Recognition {
    DatabaseKind kind = DatabaseKind::Other;
    /// Other with rpd's table names but without the columns the rpd reader needs: what is missing.
    QString incompleteRpd;
};

/// Looks at the schema only (one read of sqlite_master and table_info); never throws, never
/// blocks on a lock. A file that is not SQLite, empty or damaged is Other.
Recognition recognise(const QString &path);

/// The limits openUntrusted() puts on a database.
struct UntrustedLimits {
    /// How long one statement may run without producing a row.
    std::chrono::milliseconds stallLimit = std::chrono::seconds(20);
    /// How long all reading of the database may take (0: no deadline); see deadlineFor().
    std::chrono::milliseconds deadline{0};
    /// The longest string or blob SQLite hands out (SQLITE_LIMIT_LENGTH); a longer value fails its
    /// query with SQLITE_TOOBIG before SQLite allocates it. Kernel names are a few kB.
    int maxValueBytes = 16 << 20;
};

/// The deadline for reading a database file of `bytes`: 10 s, and a second more per MiB (a real
/// file reads many MiB a second: a large one is never cut short; a small crafted one that makes
/// SQLite compute is stopped within seconds).
std::chrono::milliseconds deadlineFor(qint64 bytes);

/// Hardens an open connection for reading a stranger's file (see the file comment). Call once,
/// right after open; openUntrusted() does.
class Guard
{
public:
    enum class Stop {
        None,
        Stalled,  ///< a statement produced no row for longer than the stall limit
        Deadline, ///< the database's deadline passed
    };

    explicit Guard(sqlite3 *db, std::chrono::milliseconds stallLimit = std::chrono::seconds(20),
                   std::chrono::milliseconds deadline = std::chrono::milliseconds(0));
    Guard(sqlite3 *db, const UntrustedLimits &limits);
    ~Guard();
    Guard(const Guard &) = delete;
    Guard &operator=(const Guard &) = delete;

    /// A statement starts or produced a row: the stall watchdog starts again. SQLite's trace hook
    /// counts every statement and row and the progress handler sees the count move, so callers
    /// need not call this.
    void alive()
    {
        m_last = std::chrono::steady_clock::now();
        if (m_stop == Stop::Stalled)
            m_stop = Stop::None;
    }
    /// True once the guard interrupted a statement (stall or deadline).
    bool stalled() const { return m_stop != Stop::None; }
    Stop stop() const { return m_stop; }
    const UntrustedLimits &limits() const { return m_limits; }

    /// Why the last statement failed, in plain words: the guard's interruption, a value over the
    /// size limit, or SQLite's own message.
    QString describeError() const;

private:
    static int onProgress(void *self);
    static int onTrace(unsigned type, void *self, void *, void *);
    sqlite3 *m_db;
    UntrustedLimits m_limits;
    std::chrono::steady_clock::time_point m_last;
    std::chrono::steady_clock::time_point m_deadlineAt;
    /// Statements started and rows produced (the trace hook: no clock read per row).
    std::uint64_t m_events = 0;
    std::uint64_t m_eventsSeen = 0;
    Stop m_stop = Stop::None;
};

/// The schema objects of a database: name -> "table" / "view" / "index" / "trigger", and
/// "virtual table" for a table made by a module (CREATE VIRTUAL TABLE).
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
    bool wal = false;   ///< the header's journal mode is WAL (`rocpd merge` output)

    /// Why the last query on the connection failed, in the guard's words when it stopped it.
    QString error() const { return guard ? guard->describeError() : conn.error(); }
};

/// The one opener of a stranger's database, for every reader and for recognise(): the file
/// check, the read-only immutable open, the guard (deadline from the file's size unless
/// `limits` sets one) and the schema. nullopt when all went well.
std::optional<OpenRefusal> openUntrusted(const QString &path, UntrustedConnection &into,
                                         UntrustedLimits limits = {});

/// The column names of a table, generated ones included (pragma table_xinfo, the name bound as a
/// parameter); empty when it has none or cannot be read.
QStringList columnsOf(rocpd::Connection &conn, const QString &table);

/// Tables among `required` that are not plain tables: "rocpd_op (a view, not a table)",
/// "StringIds (missing)", "x (a virtual table, not a table)".
QStringList notTables(const SchemaObjects &schema, const std::vector<const char *> &required);
QStringList notTables(const SchemaObjects &schema, const QStringList &required);

/// Tables among `tables` (plain tables of the schema) with a generated column, whose expression
/// SQLite would evaluate on every read: "rocpd_op.description_id (a generated column)". Read with
/// pragma table_xinfo (hidden 2 or 3), which evaluates nothing.
QStringList generatedColumns(rocpd::Connection &conn, const QStringList &tables);

/// notTables() of `required`, and generatedColumns() of `required` and of those of `optional` that
/// are plain tables: what makes a reader refuse the file (empty: nothing).
QStringList unsafeTables(UntrustedConnection &source, const std::vector<const char *> &required,
                         const std::vector<const char *> &optional = {});
QStringList unsafeTablesOf(UntrustedConnection &source, const QStringList &required,
                         const QStringList &optional = {});

/// A query's failure for a diagnostic: the guard's words when it stopped the query, else SQLite's.
QString queryError(sqlite3 *db, const Guard *guard);

/// Runs `sql` and hands each row to `row` (which may return false to stop early). False with
/// `error` set when SQLite fails (damaged file, interrupted by the guard, a value too long, …).
template <typename Row> bool eachRow(sqlite3 *db, Guard &guard, const QByteArray &sql, QString &error, Row row);
/// The same with `text1` bound to ?1 (a null QByteArray: nothing bound).
template <typename Row>
bool eachRowBound(sqlite3 *db, Guard &guard, const QByteArray &sql, const QByteArray &text1, QString &error, Row row);

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
std::string_view trimmedView(const char *text, int bytes);

/// Looks strings up by integer id in one table (rpd's rocpd_string, nsys's StringIds, rocpd's
/// kernel symbols), each id once, trimmed, and cut at kernels::kMaxNameBytes (cuts()): a long
/// string costs its length once while it is read, never while it is kept.
class StringLookup
{
public:
    /// `table` and `column`: the reader's own names (constants), quoted here.
    StringLookup(sqlite3 *db, const QString &table, const QString &column);
    /// How a value is stripped (default: trimmedView()).
    using Strip = std::string_view (*)(std::string_view);
    /// `sql` selects one text column for the id bound to ?1 (and `text2` bound to ?2 when not null).
    StringLookup(sqlite3 *db, const QByteArray &sql, const QByteArray &text2 = QByteArray(), Strip strip = nullptr);
    ~StringLookup();
    StringLookup(const StringLookup &) = delete;
    StringLookup &operator=(const StringLookup &) = delete;

    /// The string of `id`, nullopt when there is no such row, when it is longer than the
    /// connection's value limit (tooLong()) or on an error (see error()).
    const std::optional<std::string> &get(qint64 id);
    QString error() const { return m_error; }
    /// Errors are described in the guard's words when it stopped the lookup.
    void describeWith(const Guard &guard) { m_guard = &guard; }
    /// Strings longer than the connection's SQLITE_LIMIT_LENGTH: not read (SQLite refuses them
    /// before it allocates them).
    qint64 tooLong() const { return m_tooLong; }
    const kernels::NameCuts &cuts() const { return m_cuts; }

private:
    sqlite3 *m_db;
    sqlite3_stmt *m_stmt = nullptr;
    bool m_ok = false;
    QByteArray m_text2;
    Strip m_strip = nullptr;
    const Guard *m_guard = nullptr;
    QString m_error;
    qint64 m_tooLong = 0;
    kernels::NameCuts m_cuts;
    std::unordered_map<qint64, std::optional<std::string>> m_cache;
};

/// "1.5 GiB" for a byte count.
QString describeBytes(qint64 bytes);

/// Progress by rows for a database reader: the callback gets 0 at the start, then every 65536
/// rows the file's bytes scaled by the share of `totalRows` seen; once it returns false, tick()
/// returns false (the row loop stops) and cancelled() is true.
class RowTicker
{
public:
    RowTicker(const ProgressCallback &progress, qint64 totalRows, qint64 fileBytes)
        : m_progress(progress), m_totalRows(totalRows), m_fileBytes(fileBytes),
          m_cancelled(progress && !progress(0))
    {
    }
    bool tick()
    {
        ++m_rowsSeen;
        if (m_progress && m_rowsSeen % kRowsPerReport == 0 &&
            !m_progress(m_totalRows > 0 ? m_fileBytes * std::min(m_rowsSeen, m_totalRows) / m_totalRows : 0))
            m_cancelled = true;
        return !m_cancelled;
    }
    bool cancelled() const { return m_cancelled; }

private:
    static constexpr qint64 kRowsPerReport = 1 << 16;
    const ProgressCallback &m_progress;
    qint64 m_totalRows;
    qint64 m_fileBytes;
    qint64 m_rowsSeen = 0;
    bool m_cancelled;
};


} // namespace goblin::dbread

#include <sqlite3.h>

namespace goblin::dbread
{

template <typename Row> bool eachRow(sqlite3 *db, Guard &guard, const QByteArray &sql, QString &error, Row row)
{
    return eachRowBound(db, guard, sql, {}, error, row);
}

template <typename Row>
bool eachRowBound(sqlite3 *db, Guard &guard, const QByteArray &sql, const QByteArray &text1, QString &error, Row row)
{
    sqlite3_stmt *stmt = nullptr;
    guard.alive();
    if (sqlite3_prepare_v2(db, sql.constData(), -1, &stmt, nullptr) != SQLITE_OK) {
        error = queryError(db, &guard);
        return false;
    }
    if (!text1.isNull())
        sqlite3_bind_text(stmt, 1, text1.constData(), int(text1.size()), SQLITE_STATIC);
    int rc;
    bool stopped = false;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (!row(stmt)) {
            stopped = true;
            break;
        }
    }
    const bool ok = stopped || rc == SQLITE_DONE;
    if (!ok)
        error = queryError(db, &guard);
    sqlite3_finalize(stmt);
    return ok;
}

} // namespace goblin::dbread
