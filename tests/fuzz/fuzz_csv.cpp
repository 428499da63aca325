// libFuzzer target for the CSV grammar alone (syntax/CsvReader), no trace semantics. One input =
// the bytes of a CSV file. The first byte picks the options (BOM kept or stripped, UTF-8 check,
// a small chunk size so records cross chunk boundaries, small caps so the truncation paths run);
// the rest is read twice, with a tiny chunk and in one chunk, and both readings must give the
// same records, lines and flags: the grammar may not depend on where a chunk ends.
// Oracle: the sanitizers, and __builtin_trap on a difference.

#include "syntax/csvreader.h"

#include <QByteArrayView>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Record {
    std::vector<std::string> fields;
    qint64 startLine, endLine, consumed;
    int quirk;
    bool operator==(const Record &) const = default;
};

struct Reading {
    std::vector<Record> records;
    bool limit, truncated, bom;
    qint64 limitLine, limitOffset, badUtf8, badUtf8Line;
    bool operator==(const Reading &) const = default;
};

Reading read(QByteArrayView bytes, goblin::CsvReader::Options options)
{
    goblin::CsvReader reader(bytes, options);
    Reading out;
    std::vector<std::string_view> fields;
    while (reader.readRecord(fields)) {
        Record r;
        r.fields.assign(fields.begin(), fields.end());
        r.startLine = reader.recordStartLine();
        r.endLine = reader.recordEndLine();
        r.consumed = reader.bytesConsumed();
        r.quirk = reader.lastRecordQuoteQuirkField();
        out.records.push_back(std::move(r));
    }
    out.limit = reader.exceededPythonFieldLimit();
    out.truncated = reader.hadTruncatedField();
    out.bom = reader.hadBom();
    out.limitLine = reader.pythonFieldLimitLine();
    out.limitOffset = reader.pythonFieldLimitOffset();
    out.badUtf8 = reader.firstInvalidUtf8Offset();
    out.badUtf8Line = reader.firstInvalidUtf8Line();
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const uint8_t mode = data[0];
    const QByteArrayView bytes(data + 1, qsizetype(size - 1));
    goblin::CsvReader::Options options;
    options.stripUtf8Bom = (mode & 1) != 0;
    options.validateUtf8 = (mode & 2) != 0;
    if (mode & 4) { // small caps: the truncation and record-cap paths
        options.maxFieldBytes = 64;
        options.maxRecordBytes = 256;
        options.maxFieldsPerRecord = 16;
    }
    goblin::CsvReader::Options small = options;
    small.chunkBytes = 1 + (mode >> 4); // 1..16 bytes: every record crosses chunk ends
    const Reading whole = read(bytes, options);
    const Reading pieces = read(bytes, small);
    if (!(whole == pieces))
        __builtin_trap();
    return 0;
}
