#pragma once
/// \file Streaming CSV reader with the semantics of Python's csv module (default dialect,
/// strict=False) — the reference reads every CSV with it — in bounded memory.

#include <QString>
#include <QtGlobal>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

class QIODevice;

namespace goblin {

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
class CsvReader
{
public:
    struct Options {
        bool stripUtf8Bom = true;       ///< false keeps the BOM in the first field, as Python's utf-8 codec does
        qint64 chunkBytes = 4 << 20;    ///< read granularity
        qint64 maxFieldBytes = 64 << 20;  ///< hard cap against memory blow-up; longer fields are truncated and flagged
    };

    explicit CsvReader(QIODevice *device);
    CsvReader(QIODevice *device, Options options);
    ~CsvReader();
    CsvReader(const CsvReader &) = delete;
    CsvReader &operator=(const CsvReader &) = delete;

    /// Reads the next record. The views stay valid until the next call. Returns false at the
    /// end of the data (or after a read error, see errorString()).
    bool readRecord(std::vector<std::string_view> &fields);

    qint64 recordStartLine() const;  ///< 1-based physical line where the last record started
    qint64 bytesConsumed() const;    ///< for progress reporting

    /// First field longer than Python's csv.field_size_limit() (131072 characters), if any:
    /// the reference's reader raises csv.Error there and drops the whole file.
    bool exceededPythonFieldLimit() const;
    qint64 pythonFieldLimitLine() const;

    bool hadTruncatedField() const;  ///< a field hit Options::maxFieldBytes
    bool hadBom() const;
    QString errorString() const;     ///< device read error, empty if none

private:
    struct Private;
    std::unique_ptr<Private> d;
};

/// Splits one already isolated line with the same grammar (used for small texts, headers).
std::vector<std::string> splitCsvLine(std::string_view line);

} // namespace goblin
