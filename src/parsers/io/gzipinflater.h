#pragma once
/// \file Inflating a gzip stream of one or more members, with Intel ISA-L when the build found it
/// (libisal-dev) and with zlib otherwise. Both backends follow one set of rules: members are read
/// one after the other as gzip does, bytes after the last member that are not another member are
/// trailing garbage (a warning, the data before is complete), a stream that stops inside a member
/// is truncated, anything else the decompressor refuses is corrupt.

#include <QByteArrayView>
#include <QIODevice>
#include <QString>

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace goblin::io {

enum class InflateBackend {
    Isal,  ///< Intel ISA-L's isal_inflate (about 3x zlib's speed on x86-64)
    Zlib,  ///< zlib's inflate, the fallback
};

/// True when this build links ISA-L (found at configure time).
bool isalAvailable();
/// ISA-L when the build has it, else zlib.
InflateBackend bestInflateBackend();
/// "ISA-L" or "zlib", for diagnostics and benchmarks.
QString inflateBackendName(InflateBackend backend);

/// Inflates the gzip file at `gzPath` whole into `out` (open for writing), for readers that need a
/// file (SQLite opens databases by name). `progress(compressedBytesRead)` is asked between blocks;
/// false stops (`*cancelled` is set). More than `maxBytes` inflated is refused (a gzip bomb must not
/// fill the disk). Returns what went wrong, empty when the stream was complete.
QString inflateFileTo(const QString &gzPath, QIODevice &out, qint64 maxBytes, const std::function<bool(qint64)> &progress,
                      bool *cancelled);

/// Reads compressed bytes as QFile::read() does: the count read, 0 at the end, -1 on an error
/// (then `error` says what happened).
using CompressedReader = std::function<qint64(char *dst, qint64 max, QString *error)>;

/// One pass over a gzip stream. Not thread-safe: one thread at a time (ByteSource moves it to
/// the inflate thread and back only through a mutex).
class GzipInflater
{
public:
    explicit GzipInflater(InflateBackend backend);
    ~GzipInflater();
    GzipInflater(const GzipInflater &) = delete;
    GzipInflater &operator=(const GzipInflater &) = delete;

    InflateBackend backend() const { return m_backend; }

    /// The compressed bytes come from `reader`, `bufferBytes` at a time.
    bool initReader(CompressedReader reader, size_t bufferBytes, QString *error);
    /// The compressed bytes are `memory` (not owned; it must outlive the inflater), inflated in place.
    bool initMemory(QByteArrayView memory, QString *error);

    /// Up to `max` decompressed bytes: fewer only at the end of the data or after a problem
    /// (then 0 from the next call on).
    size_t read(char *dst, size_t max);

    /// Compressed bytes taken from the input so far.
    qint64 rawBytesRead() const { return m_raw; }
    /// Decompressed bytes handed out so far.
    qint64 outputBytes() const { return m_output; }
    /// Set when the input ended badly: I/O error, corrupt or truncated stream. Says where.
    const QString &problem() const { return m_problem; }
    /// Bytes after the last member that are not another member.
    bool trailingGarbage() const { return m_trailingGarbage; }
    /// Where those bytes start in the compressed file.
    qint64 trailingGarbageOffset() const { return m_trailingGarbageOffset; }
    /// Complete members read.
    int members() const { return m_members; }
    /// True once read() has nothing more to give.
    bool finished() const { return m_finished; }

    /// The decompressor behind a backend (gzipinflater.cpp).
    class Engine;

private:
    bool refill();

    InflateBackend m_backend;
    std::unique_ptr<Engine> m_engine;
    CompressedReader m_reader;
    std::vector<char> m_buffer;
    QByteArrayView m_memory;
    bool m_fromMemory = false;
    qint64 m_memoryPos = 0;
    const unsigned char *m_in = nullptr;  // compressed bytes not yet given to the engine
    size_t m_inLength = 0;
    bool m_inputEof = false;
    bool m_memberEnded = false;
    bool m_finished = false;
    bool m_trailingGarbage = false;
    qint64 m_trailingGarbageOffset = -1;
    int m_members = 0;
    int m_stalls = 0;
    qint64 m_memberOutput = 0;
    qint64 m_memberStart = 0;  // where the member being read starts in the file
    qint64 m_raw = 0;
    qint64 m_output = 0;
    QString m_problem;
};

} // namespace goblin::io
