#pragma once
/// \file A gzip stream inflated on its own thread, a few chunks ahead of the reader.
///
/// A gzip stream cannot be split (each byte depends on the 32 KB before it), so the parse of a
/// `.json.gz` cannot start in the middle the way a plain trace's byte ranges do; what can run at
/// the same time is the inflate and the parse. The inflate thread fills a ring of `chunks` buffers
/// of `chunkBytes` and waits when all are full, so memory stays at chunks × chunkBytes whatever
/// the file's size, and the reader copies them out in order.

#include "io/gzipinflater.h"
#include "io/workerthread.h"

#include <QString>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

namespace goblin::io {

class InflateAhead
{
public:
    /// Takes the inflater (initialised) and starts inflating at once.
    InflateAhead(std::unique_ptr<GzipInflater> inflater, size_t chunkBytes, int chunks);
    /// Stops the inflate thread (it finishes the chunk it is filling) and waits for it: this is
    /// what cancelling a read costs, one chunk's inflate.
    ~InflateAhead();
    InflateAhead(const InflateAhead &) = delete;
    InflateAhead &operator=(const InflateAhead &) = delete;

    /// Up to `max` bytes, fewer only at the end of the data (as GzipInflater::read()).
    size_t read(char *dst, size_t max);

    /// Compressed bytes behind the data read so far (for progress).
    qint64 rawBytesRead() const { return m_rawRead; }
    /// The inflater's verdicts; valid once read() returned less than asked.
    const QString &problem() const { return m_problem; }
    bool trailingGarbage() const { return m_trailingGarbage; }
    qint64 trailingGarbageOffset() const { return m_trailingGarbageOffset; }
    int members() const { return m_members; }

private:
    struct Chunk {
        std::unique_ptr<char[]> data;
        size_t size = 0;
        qint64 rawEnd = 0;  // compressed bytes read when the chunk was full
    };
    void produce();  // the inflate thread

    std::unique_ptr<GzipInflater> m_inflater;  // the inflate thread's until it is done
    size_t m_chunkBytes;
    std::vector<Chunk> m_ring;

    std::mutex m_mutex;
    std::condition_variable m_filled;    // a chunk is ready, or the end
    std::condition_variable m_emptied;   // a slot is free, or stop
    quint64 m_produced = 0;              // chunks filled so far (guarded)
    quint64 m_consumed = 0;              // chunks read out so far (guarded)
    bool m_stop = false;                 // guarded

    // The reader's side.
    size_t m_chunkPos = 0;  // bytes of chunk m_consumed already read
    bool m_ended = false;
    qint64 m_rawRead = 0;
    QString m_problem;
    bool m_trailingGarbage = false;
    qint64 m_trailingGarbageOffset = -1;
    int m_members = 0;

    WorkerThread m_thread;  // last: joined (by the destructor) before the rest goes
};

} // namespace goblin::io
