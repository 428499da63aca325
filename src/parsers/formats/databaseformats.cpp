// SQLite profiler databases, told apart by their tables (rpd/dbcommon.h's recognise(), read once
// per file and kept in the head): rocmProfileData, Nsight Systems exports, and rocprofv3's rocpd —
// which also takes every other file so named, so that its reader says what the file is.

#include "formats/builtinformats.h"

#include "nsys/nsysreader.h"
#include "kerneltraceparser.h"
#include "rocpdreader.h"
#include "rpd/dbcommon.h"
#include "rpd/rpdreader.h"

namespace goblin::formats {

namespace {

const QStringList kDatabaseNames{QStringLiteral("*.db"),     QStringLiteral("*.rpd"),    QStringLiteral("*.sqlite"),
                                 QStringLiteral("*.sqlite3"), QStringLiteral("*.db.gz"), QStringLiteral("*.rpd.gz"),
                                 QStringLiteral("*.sqlite.gz")};

/// The tables' word on the file, read on the first call (one look at the schema).
const FileHead::Tables &tablesOf(const FileHead &head)
{
    if (!head.tables) {
        const dbread::Recognition r = head.content == HeadContent::Sqlite ? dbread::recognise(head.path)
                                                                          : dbread::Recognition{};
        head.tables = FileHead::Tables{int(r.kind), r.incompleteRpd};
    }
    return *head.tables;
}

bool sniffRpd(const FileHead &head)
{
    return tablesOf(head).kind == int(dbread::DatabaseKind::Rpd);
}

bool sniffNsys(const FileHead &head)
{
    return tablesOf(head).kind == int(dbread::DatabaseKind::Nsys);
}

bool sniffNsysWithoutCuda(const FileHead &head)
{
    return tablesOf(head).kind == int(dbread::DatabaseKind::NsysWithoutCuda);
}

/// An Nsight Systems export with no CUDA activity: said by name, once, as the inventory found it
/// (the rocpd reader would call it an SQLite file without rocpd tables).
ReadOutcome readNsysWithoutCuda(const QString &path, const QString &rel, KernelSink &, KernelTrace &trace,
                                const ProgressCallback &)
{
    DatabaseRow row(path, rel, QStringLiteral("nsys-sqlite"), trace);
    return row.refuse(Severity::Warning,
                      QStringLiteral("is an Nsight Systems export that has no CUDA activity tables "
                                     "(CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, "
                                     "CUPTI_ACTIVITY_KIND_RUNTIME …) and no NVTX_EVENTS: nothing to read (nsys "
                                     "profile ran without --trace=cuda?)"),
                      QStringLiteral("Nsight Systems export without CUDA data"));
}

/// A database gzipped as a whole (vLLM's runs carry `.rpd.gz`): whatever its name, gzip bytes.
bool sniffGzip(const FileHead &head)
{
    return head.content == HeadContent::Gzip;
}

} // namespace

const InputFormat &gzipDatabase()
{
    static const InputFormat f{"gzip-database", InputRole::RocpdDatabase, FormatPlace::Anywhere, kDatabaseNames,
                               &sniffGzip, 810, "a database candidate", "a profiler database",
                               "holds no kernel row the workbench reads", nullptr, nullptr, false, true};
    return f;
}

const InputFormat &rpdDatabase()
{
    static const InputFormat f{"rpd", InputRole::RocpdDatabase, FormatPlace::Anywhere, kDatabaseNames, &sniffRpd,
                               800, "a database candidate", "a profiler database",
                               "holds no kernel row the workbench reads", &readRpdDatabase};
    return f;
}

const InputFormat &nsysDatabase()
{
    static const InputFormat f{"nsys", InputRole::RocpdDatabase, FormatPlace::Anywhere, kDatabaseNames, &sniffNsys,
                               800, "a database candidate", "a profiler database",
                               "holds no kernel row the workbench reads", &readNsysDatabase};
    return f;
}

const InputFormat &nsysWithoutCudaDatabase()
{
    static const InputFormat f{"nsys-without-cuda", InputRole::RocpdDatabase, FormatPlace::Anywhere, kDatabaseNames,
                               &sniffNsysWithoutCuda, 800, "an Nsight Systems export without CUDA activity",
                               "a profiler database", "holds no CUDA activity table", &readNsysWithoutCuda};
    return f;
}

const InputFormat &rocpdDatabase()
{
    // Every file so named that is no rpd or nsys export: the rocpd reader tells rocpd from other
    // SQLite files (and those from non-databases) by their tables, with a diagnostic for each.
    static const InputFormat f{"rocpd", InputRole::RocpdDatabase, FormatPlace::Anywhere, kDatabaseNames, nullptr,
                               790, "a database candidate", "a profiler database",
                               "holds no kernel row the workbench reads", &readRocpdDatabase, nullptr, true};
    return f;
}

} // namespace goblin::formats
