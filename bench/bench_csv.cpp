// CSV tokenizer comparison: goblin::CsvReader against Debian's libcsv (libcsv-dev) on the same
// file, typically a run folder's trace.csv. Both only split the file into fields and records
// here (counting them); neither converts numbers. Built only when libcsv is found.
//
//   goblin-bench-csv FILE_OR_RUN_DIR [--repeat N]
//
// Prints MB/s of each (best of N runs, default 3; wall time from a monotonic clock, the file
// comes from the page cache after the first run) and checks that both saw the same number of
// records and fields. Exit status 1 when the counts differ, 2 on a usage or I/O error.
//
// What is compared, so that the numbers are read right:
//  * CsvReader runs with the options the kernel-trace parser uses (UTF-8 validation on, BOM
//    kept), and also tracks Python's line numbers and field-size limit: the work the app does.
//  * libcsv runs in its default (non-strict) mode. It drops empty lines, where Python's csv
//    module (and CsvReader) yields an empty record: the check counts only non-empty records on
//    both sides. It trims spaces around unquoted fields, which changes no count.

#include "syntax/csvreader.h"

#include <QFile>
#include <QFileInfo>
#include <QString>

#include <csv.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace
{

struct Counts {
    long long records = 0;  ///< non-empty records
    long long fields = 0;   ///< fields of non-empty records
    bool operator==(const Counts &o) const { return records == o.records && fields == o.fields; }
};

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool runGoblin(const QString &path, Counts *counts)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    goblin::CsvReader::Options options;  // as KernelTraceParser sets them
    options.stripUtf8Bom = false;
    options.validateUtf8 = true;
    goblin::CsvReader reader(&file, options);
    std::vector<std::string_view> fields;
    Counts c;
    while (reader.readRecord(fields)) {
        // An empty line is one record with one empty field; libcsv reports nothing for it.
        if (fields.size() == 1 && fields[0].empty())
            continue;
        ++c.records;
        c.fields += qint64(fields.size());
    }
    *counts = c;
    return reader.errorString().isEmpty();
}

struct LibcsvState {
    Counts counts;
    long long fieldsInRecord = 0;
};

void onField(void *, size_t, void *data)
{
    ++static_cast<LibcsvState *>(data)->fieldsInRecord;
}

void onRecord(int, void *data)
{
    auto *s = static_cast<LibcsvState *>(data);
    ++s->counts.records;
    s->counts.fields += s->fieldsInRecord;
    s->fieldsInRecord = 0;
}

bool runLibcsv(const QString &path, Counts *counts)
{
    std::FILE *f = std::fopen(QFile::encodeName(path).constData(), "rb");
    if (!f)
        return false;
    csv_parser parser;
    if (csv_init(&parser, 0) != 0) {
        std::fclose(f);
        return false;
    }
    LibcsvState state;
    std::vector<char> buffer(size_t(4) << 20);  // the same read size as CsvReader's default
    bool ok = true;
    for (;;) {
        const size_t n = std::fread(buffer.data(), 1, buffer.size(), f);
        if (n == 0)
            break;
        if (csv_parse(&parser, buffer.data(), n, onField, onRecord, &state) != n) {
            std::fprintf(stderr, "libcsv: %s\n", csv_strerror(csv_error(&parser)));
            ok = false;
            break;
        }
    }
    ok = ok && !std::ferror(f);
    csv_fini(&parser, onField, onRecord, &state);
    csv_free(&parser);
    std::fclose(f);
    *counts = state.counts;
    return ok;
}

} // namespace

int main(int argc, char **argv)
{
    QString path;
    int repeat = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--repeat" && i + 1 < argc) {
            repeat = std::max(1, std::atoi(argv[++i]));
        } else if (arg == "-h" || arg == "--help") {
            std::printf("usage: goblin-bench-csv FILE_OR_RUN_DIR [--repeat N]\n");
            return 0;
        } else if (path.isEmpty()) {
            path = QString::fromLocal8Bit(argv[i]);
        } else {
            std::fprintf(stderr, "goblin-bench-csv: unexpected argument %s\n", argv[i]);
            return 2;
        }
    }
    if (path.isEmpty()) {
        std::fprintf(stderr, "usage: goblin-bench-csv FILE_OR_RUN_DIR [--repeat N]\n");
        return 2;
    }
    if (QFileInfo(path).isDir())
        path += QStringLiteral("/trace.csv");
    const qint64 bytes = QFileInfo(path).size();
    if (!QFileInfo(path).isFile()) {
        std::fprintf(stderr, "goblin-bench-csv: %s: no such file\n", qPrintable(path));
        return 2;
    }

    Counts goblinCounts, libcsvCounts;
    double goblinBest = 1e300, libcsvBest = 1e300;
    for (int i = 0; i < repeat; ++i) {  // alternately, so that both see the same machine
        double t0 = now();
        if (!runGoblin(path, &goblinCounts)) {
            std::fprintf(stderr, "goblin-bench-csv: CsvReader could not read %s\n", qPrintable(path));
            return 2;
        }
        goblinBest = std::min(goblinBest, now() - t0);
        t0 = now();
        if (!runLibcsv(path, &libcsvCounts)) {
            std::fprintf(stderr, "goblin-bench-csv: libcsv could not read %s\n", qPrintable(path));
            return 2;
        }
        libcsvBest = std::min(libcsvBest, now() - t0);
    }
    const double mb = double(bytes) / 1e6;
    std::printf("file %s  %.1f MB  best of %d\n", qPrintable(path), mb, repeat);
    std::printf("goblin::CsvReader  %8.3f s  %8.1f MB/s  %lld records  %lld fields\n", goblinBest, mb / goblinBest,
                goblinCounts.records, goblinCounts.fields);
    std::printf("libcsv             %8.3f s  %8.1f MB/s  %lld records  %lld fields\n", libcsvBest,
                mb / libcsvBest, libcsvCounts.records, libcsvCounts.fields);
    const bool same = goblinCounts == libcsvCounts;
    std::printf("check: %s\n", same ? "same records and fields" : "DIFFERENT counts");
    return same ? 0 : 1;
}
