#pragma once
/// \file Bytes in, nothing interpreted: a plain or gzip-compressed input, from a file or from
/// memory, read in chunks. Plain inputs can also be peeked at and seeked in (the range planner).
/// A large gzip input is inflated on its own thread, ahead of the reader (io/inflateahead.h).

#include "io/gzipinflater.h"

#include <QByteArrayView>
#include <QFile>
#include <QString>

#include <cstddef>
#include <memory>

namespace goblin::io {

class InflateAhead;

/// Where an input's bytes are: a file, or a span of memory that stands for a file's content
/// (not owned; it must outlive every ByteSource opened on it).
struct ByteOrigin {
    QString path;           ///< the file (empty for memory)
    QByteArrayView memory;  ///< the bytes, when inMemory
    bool inMemory = false;

    static ByteOrigin file(const QString &path) { return {path, {}, false}; }
    static ByteOrigin bytes(QByteArrayView memory) { return {QString(), memory, true}; }
};

/// How a gzip input is inflated. The defaults are what the workbench uses; tests and benchmarks
/// change them to reach the fallback and the inline path.
struct InflateOptions {
    InflateBackend backend = bestInflateBackend();
    /// Compressed size from which the inflate runs on its own thread (smaller inputs are inflated
    /// by the reader itself: a thread does not pay for a few chunks); negative: never.
    qint64 aheadFromBytes = qint64(256) << 10;
    /// ... and only with this many hardware threads: the trace reader already keeps two busy (scan,
    /// parse), and on two cores a third costs the copy out of the ring (+0.19 CPU s per 0.9 GB,
    /// measured in docs/performance.md) without anything to overlap with.
    int aheadMinThreads = 3;
    /// The inflate thread's ring: `aheadChunks` buffers of `aheadChunkBytes` (4 MiB in all).
    size_t aheadChunkBytes = size_t(1) << 20;
    int aheadChunks = 4;
    /// Compressed bytes read from a file at a time.
    size_t compressedReadBytes = size_t(1) << 20;

    /// The defaults, except what the environment variable GOBLIN_INFLATE asks for, for measuring
    /// each part: a comma list of `zlib` or `isal` (the backend), `inline` (no inflate thread) or
    /// `ahead` (the inflate thread whatever the input's size and the number of cores).
    static InflateOptions fromEnvironment();
};

/// One pass over an input, plain or gzip by its magic bytes (concatenated gzip members are read
/// one after the other, as gzip does).
class ByteSource
{
public:
    ByteSource();
    ByteSource(const ByteSource &) = delete;
    ByteSource &operator=(const ByteSource &) = delete;
    ~ByteSource();

    /// Before open(): how a gzip input is inflated (default: InflateOptions::fromEnvironment()).
    void setInflateOptions(const InflateOptions &options) { m_options = options; }
    bool open(const ByteOrigin &origin, QString *error);

    bool compressed() const { return m_gzip; }
    /// The input's size in bytes (compressed size for gzip).
    qint64 fileSize() const { return m_size; }
    /// The next read() starts at `offset`, which then counts as read. Gzip inputs: forward only,
    /// by inflating the bytes in between (`offset` counts decompressed bytes).
    bool seek(qint64 offset);
    /// Plain inputs only: up to `max` bytes from `offset`, without moving the read position.
    qint64 peek(qint64 offset, char *dst, qint64 max);
    /// Input bytes behind the data read so far (compressed bytes for gzip).
    qint64 rawBytesRead() const;
    /// Set when the input ended badly: I/O error, corrupt or truncated gzip stream.
    const QString &problem() const { return m_problem; }
    /// Trailing bytes after the last gzip member that are not another member.
    bool trailingGarbage() const { return m_trailingGarbage; }
    /// Where those bytes start in the file (-1 without them).
    qint64 trailingGarbageOffset() const { return m_trailingGarbageOffset; }
    /// Gzip inputs: complete members read, once read() has returned less than asked.
    int gzipMembers() const { return m_members; }
    /// Gzip inputs: whether the inflate runs on its own thread, and with which library.
    bool inflatesAhead() const { return m_ahead != nullptr; }
    InflateBackend inflateBackend() const { return m_options.backend; }

    /// Reads up to `max` bytes; fewer only at the end of the data (or after a problem), then 0.
    size_t read(char *dst, size_t max);

private:
    /// The raw (possibly compressed) bytes from the current position, as QFile::read() returns.
    qint64 readRaw(char *dst, qint64 max);
    void takeVerdicts();

    InflateOptions m_options;
    QFile m_file;
    QByteArrayView m_memory;
    bool m_inMemory = false;
    qint64 m_memoryPos = 0;
    qint64 m_size = 0;
    qint64 m_raw = 0;
    bool m_gzip = false;
    bool m_ended = false;
    bool m_trailingGarbage = false;
    qint64 m_trailingGarbageOffset = -1;
    int m_members = 0;
    qint64 m_inflated = 0;  // gzip: decompressed bytes read() returned
    QString m_problem;
    std::unique_ptr<GzipInflater> m_inflater;  // inline inflate (small inputs)
    std::unique_ptr<InflateAhead> m_ahead;     // after m_file: stopped and joined before it closes
};

} // namespace goblin::io
