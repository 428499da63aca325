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
#include <string_view>
#include <vector>

namespace {

/// What a reader says about the input after its last record.
struct Flags {
    bool limit, truncated, bom;
    qint64 limitLine, limitOffset, badUtf8, badUtf8Line;
    bool operator==(const Flags &) const = default;
};

Flags flagsOf(const goblin::CsvReader &reader)
{
    return {reader.exceededPythonFieldLimit(), reader.hadTruncatedField(), reader.hadBom(),
            reader.pythonFieldLimitLine(),     reader.pythonFieldLimitOffset(), reader.firstInvalidUtf8Offset(),
            reader.firstInvalidUtf8Line()};
}

/// The two readers' last records are the same: fields, lines, bytes consumed, quote quirk.
bool sameRecord(const goblin::CsvReader &a, const std::vector<std::string_view> &fa, const goblin::CsvReader &b,
                const std::vector<std::string_view> &fb)
{
    return fa == fb && a.recordStartLine() == b.recordStartLine() && a.recordEndLine() == b.recordEndLine() &&
           a.bytesConsumed() == b.bytesConsumed() && a.lastRecordQuoteQuirkField() == b.lastRecordQuoteQuirkField();
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
    // Both readers advance in lockstep and each record is compared where it lies (views into
    // the readers' buffers, valid until their next record): no copy of any field.
    goblin::CsvReader whole(bytes, options);
    goblin::CsvReader pieces(bytes, small);
    std::vector<std::string_view> fw, fp;
    for (;;) {
        const bool more = whole.readRecord(fw);
        if (more != pieces.readRecord(fp))
            __builtin_trap();
        if (!more)
            break;
        if (!sameRecord(whole, fw, pieces, fp))
            __builtin_trap();
    }
    if (!(flagsOf(whole) == flagsOf(pieces)))
        __builtin_trap();
    return 0;
}
