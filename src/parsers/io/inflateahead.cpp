#include "io/inflateahead.h"

#include <algorithm>
#include <cstring>

namespace goblin::io {

InflateAhead::InflateAhead(std::unique_ptr<GzipInflater> inflater, size_t chunkBytes, int chunks)
    : m_inflater(std::move(inflater))
    , m_chunkBytes(std::max<size_t>(1, chunkBytes))
    , m_ring(size_t(std::max(2, chunks)))
{
    m_thread.start([this] { produce(); });
}

InflateAhead::~InflateAhead()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_emptied.notify_all();
    m_thread.join();
}

void InflateAhead::produce()
{
    const quint64 ringSize = m_ring.size();
    for (;;) {
        quint64 index = 0;
        {
            std::unique_lock lock(m_mutex);
            m_emptied.wait(lock, [&] { return m_stop || m_produced - m_consumed < ringSize; });
            if (m_stop)
                return;
            index = m_produced;
        }
        // The slot is this thread's until m_produced moves past it: filled without the lock.
        Chunk &chunk = m_ring[size_t(index % ringSize)];
        if (!chunk.data)  // allocated on first use: a small file needs one chunk, not the ring
            chunk.data.reset(new char[m_chunkBytes]);
        chunk.size = m_inflater->read(chunk.data.get(), m_chunkBytes);
        chunk.rawEnd = m_inflater->rawBytesRead();
        const bool last = chunk.size < m_chunkBytes;
        {
            std::lock_guard lock(m_mutex);
            ++m_produced;
        }
        m_filled.notify_one();
        if (last)
            return;
    }
}

size_t InflateAhead::read(char *dst, size_t max)
{
    const quint64 ringSize = m_ring.size();
    size_t done = 0;
    while (done < max && !m_ended) {
        if (m_chunkPos == 0) {
            // The chunk at m_consumed may not be filled yet; once it is, it stays this thread's
            // until m_consumed moves past it.
            std::unique_lock lock(m_mutex);
            m_filled.wait(lock, [&] { return m_produced > m_consumed; });
        }
        Chunk &chunk = m_ring[size_t(m_consumed % ringSize)];
        const size_t n = std::min(max - done, chunk.size - m_chunkPos);
        if (n > 0)
            std::memcpy(dst + done, chunk.data.get() + m_chunkPos, n);
        done += n;
        m_chunkPos += n;
        m_rawRead = chunk.rawEnd;
        if (m_chunkPos < chunk.size)
            continue;
        const bool last = chunk.size < m_chunkBytes;
        {
            std::lock_guard lock(m_mutex);
            ++m_consumed;
        }
        m_emptied.notify_one();
        m_chunkPos = 0;
        if (last) {
            // The inflate thread has returned from its last read() before it counted the last
            // chunk (under the mutex, seen above): its verdicts are final and safe to read.
            m_ended = true;
            m_problem = m_inflater->problem();
            m_trailingGarbage = m_inflater->trailingGarbage();
            m_trailingGarbageOffset = m_inflater->trailingGarbageOffset();
            m_members = m_inflater->members();
        }
    }
    return done;
}

} // namespace goblin::io
