#pragma once
/// \file Bytes in, nothing interpreted: a plain or gzip-compressed input, from a file or from
/// memory, read in chunks. Plain inputs can also be peeked at and seeked in (the range planner).

#include <QByteArrayView>
#include <QFile>
#include <QString>

#include <zlib.h>

#include <cstddef>
#include <vector>

namespace goblin::io {

/// Where an input's bytes are: a file, or a span of memory that stands for a file's content
/// (not owned; it must outlive every ByteSource opened on it).
struct ByteOrigin {
    QString path;           ///< the file (empty for memory)
    QByteArrayView memory;  ///< the bytes, when inMemory
    bool inMemory = false;

    static ByteOrigin file(const QString &path) { return {path, {}, false}; }
    static ByteOrigin bytes(QByteArrayView memory) { return {QString(), memory, true}; }
};

/// One pass over an input, plain or gzip by its magic bytes (concatenated gzip members are read
/// one after the other, as gzip does).
class ByteSource
{
public:
    ByteSource() = default;
    ByteSource(const ByteSource &) = delete;
    ByteSource &operator=(const ByteSource &) = delete;
    ~ByteSource();

    bool open(const ByteOrigin &origin, QString *error);

    bool compressed() const { return m_gzip; }
    /// The input's size in bytes (compressed size for gzip).
    qint64 fileSize() const { return m_size; }
    /// Plain inputs only: the next read() starts at `offset`, which then counts as read.
    bool seek(qint64 offset);
    /// Plain inputs only: up to `max` bytes from `offset`, without moving the read position.
    qint64 peek(qint64 offset, char *dst, qint64 max);
    qint64 rawBytesRead() const { return m_raw; }
    /// Set when the input ended badly: I/O error, corrupt or truncated gzip stream.
    const QString &problem() const { return m_problem; }
    /// Trailing bytes after the last gzip member that are not another member.
    bool trailingGarbage() const { return m_trailingGarbage; }

    /// Reads up to `max` bytes; returns 0 at the end of the data (or after a problem).
    size_t read(char *dst, size_t max);

private:
    /// The raw (possibly compressed) bytes from the current position, as QFile::read() returns.
    qint64 readRaw(char *dst, qint64 max);

    QFile m_file;
    QByteArrayView m_memory;
    bool m_inMemory = false;
    qint64 m_memoryPos = 0;
    qint64 m_size = 0;
    qint64 m_raw = 0;
    bool m_gzip = false;
    z_stream m_z;
    bool m_zInitialised = false;
    std::vector<char> m_in;
    bool m_inputEof = false;
    bool m_memberEnded = false;
    bool m_finished = false;
    bool m_trailingGarbage = false;
    int m_members = 0;
    quint64 m_memberOutput = 0;
    QString m_problem;
};

} // namespace goblin::io
