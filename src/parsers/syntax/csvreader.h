#pragma once
/// \file Streaming CSV reader with the semantics of Python's csv module (default dialect,
/// strict=False) — the reference reads every CSV with it — in bounded memory.

#include <QByteArrayView>
#include <QString>
#include <QtGlobal>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

class QIODevice;

namespace goblin
{

/// Reads records from a device chunk by chunk (the file is never held whole in memory).
/// Grammar, as Python's csv.reader with the default dialect and strict=False:
///  * records end at LF, CRLF or a bare CR outside quotes; an empty line yields an empty record;
///  * a field that starts with '"' is quoted: '""' is a literal quote, newlines and commas are
///    data; after the closing quote any other character is appended literally (rocprofv3 does
///    not escape embedded quotes, so this is what real files need);
///  * a '"' inside an unquoted field is a literal character;
///  * end of file inside a quoted field ends the field (no error, like Python non-strict).
/// Also tracks what makes Python's reader *fail*, which the reference profile must mirror:
/// a field longer than 131072 characters (csv.field_size_limit).
///
/// Line numbers are Python's: physical lines split at LF, CRLF and bare CR, counted inside
/// quoted fields too (what csv.reader.line_num counts).
class CsvReader
{
public:
    struct Options {
        bool stripUtf8Bom = true;        ///< false keeps the BOM in the first field, as Python's utf-8 codec does
        qint64 chunkBytes = 4 << 20;     ///< read granularity
        qint64 maxFieldBytes = 64 << 20; ///< hard cap against memory blow-up; longer fields are truncated and flagged
        /// Caps for garbage input (a binary file with no line end): a record keeps at most this
        /// many bytes of field content and this many fields; the rest is dropped and flagged.
        qint64 maxRecordBytes = 256 << 20;
        qint64 maxFieldsPerRecord = 1 << 20;
        /// Check that the bytes are UTF-8 as Python's strict utf-8 codec does (the reference
        /// crashes with UnicodeDecodeError otherwise); see firstInvalidUtf8Offset().
        bool validateUtf8 = false;
    };

    explicit CsvReader(QIODevice *device);
    CsvReader(QIODevice *device, Options options);
    /// Reads bytes in memory (they must outlive the reader), with the same records as from a
    /// device holding them; the chunk is capped at their size, so small inputs get small buffers.
    explicit CsvReader(QByteArrayView bytes);
    CsvReader(QByteArrayView bytes, Options options);
    ~CsvReader();
    CsvReader(const CsvReader &) = delete;
    CsvReader &operator=(const CsvReader &) = delete;

    /// Reads the next record. The views stay valid until the next call. Returns false at the
    /// end of the data (or after a read error, see errorString()).
    bool readRecord(std::vector<std::string_view> &fields);

    qint64 recordStartLine() const; ///< 1-based physical line where the last record started
    qint64 recordEndLine() const;   ///< 1-based physical line where the last record ended
    qint64 bytesConsumed() const;   ///< for progress reporting

    /// First field longer than Python's csv.field_size_limit() (131072 characters), if any:
    /// the reference's reader raises csv.Error there and drops the whole file.
    bool exceededPythonFieldLimit() const;
    qint64 pythonFieldLimitLine() const;
    qint64 pythonFieldLimitOffset() const; ///< byte offset just past that field, -1 if none

    /// The last record had a quoted field with text after its closing quote (`"a"b"`): the
    /// writer did not escape an embedded quote (rocprofv3 does this). -1 when none, else the
    /// index of the first such field.
    int lastRecordQuoteQuirkField() const;

    /// With Options::validateUtf8: byte offset (from the start of the device) of the first byte
    /// that makes the input invalid UTF-8, and its physical line; -1 / 0 when the input is valid
    /// so far.
    qint64 firstInvalidUtf8Offset() const;
    qint64 firstInvalidUtf8Line() const;

    bool hadTruncatedField() const; ///< a field hit Options::maxFieldBytes (or a record cap)
    bool hadBom() const;
    QString errorString() const; ///< device read error, empty if none

private:
    struct Private;
    std::unique_ptr<Private> d;
};

/// Splits one already isolated line with the same grammar (used for small texts, headers).
std::vector<std::string> splitCsvLine(std::string_view line);

/// Number of Unicode code points in UTF-8 text (counts lead bytes; what Python's len() gives
/// for valid UTF-8).
qint64 utf8CodePoints(std::string_view text);

} // namespace goblin
