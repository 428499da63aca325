#include "io/bytesource.h"

#include "io/inflateahead.h"
#include "io/regularfile.h"

#include <QByteArray>
#include <QList>
#include <QThread>

#include <algorithm>
#include <cstring>

namespace goblin::io {

InflateOptions InflateOptions::fromEnvironment()
{
    InflateOptions options;
    const QByteArray wanted = qgetenv("GOBLIN_INFLATE");
    for (const QByteArray &word : wanted.split(',')) {
        const QByteArray w = word.trimmed().toLower();
        if (w == "zlib")
            options.backend = InflateBackend::Zlib;
        else if (w == "isal")
            options.backend = bestInflateBackend();
        else if (w == "inline")
            options.aheadFromBytes = -1;
        else if (w == "ahead") {  // whatever the size and the cores (tests, benchmarks)
            options.aheadFromBytes = 0;
            options.aheadMinThreads = 0;
        }
    }
    return options;
}

ByteSource::ByteSource()
    : m_options(InflateOptions::fromEnvironment())
{
}

ByteSource::~ByteSource()
{
    m_ahead.reset();  // the inflate thread may be reading m_file
}

bool ByteSource::open(const ByteOrigin &origin, QString *error)
{
    char magic[2] = {0, 0};
    qint64 n = 0;
    if (origin.inMemory) {
        m_inMemory = true;
        m_memory = origin.memory;
        m_memoryPos = 0;
        m_size = m_memory.size();
        n = std::min<qint64>(2, m_size);
        if (n > 0)
            std::memcpy(magic, m_memory.data(), size_t(n));
    } else {
        const QString &path = origin.path;
        if (const QString problem = specialFileProblem(path); !problem.isEmpty()) {
            *error = problem;
            return false;
        }
        m_file.setFileName(path);
        if (!m_file.open(QIODevice::ReadOnly | QIODevice::Unbuffered)) {
            *error = m_file.errorString();
            return false;
        }
        m_size = m_file.size();
        n = m_file.read(magic, 2);
        if (!m_file.seek(0)) {
            *error = m_file.errorString();
            return false;
        }
    }
    m_gzip = n == 2 && quint8(magic[0]) == 0x1f && quint8(magic[1]) == 0x8b;
    if (!m_gzip)
        return true;

    auto inflater = std::make_unique<GzipInflater>(m_options.backend);
    m_options.backend = inflater->backend();  // zlib when this build has no ISA-L
    const bool ready = m_inMemory ? inflater->initMemory(m_memory, error)
                                  : inflater->initReader(
                                        [this](char *dst, qint64 max, QString *readError) {
                                            const qint64 got = m_file.read(dst, max);
                                            if (got < 0)
                                                *readError = m_file.errorString();
                                            return got;
                                        },
                                        m_options.compressedReadBytes, error);
    if (!ready)
        return false;
    if (m_options.aheadFromBytes >= 0 && m_size >= m_options.aheadFromBytes &&
        QThread::idealThreadCount() >= m_options.aheadMinThreads)
        m_ahead = std::make_unique<InflateAhead>(std::move(inflater), m_options.aheadChunkBytes,
                                                 m_options.aheadChunks);
    else
        m_inflater = std::move(inflater);
    return true;
}

bool ByteSource::seek(qint64 offset)
{
    if (m_gzip) {
        if (offset < m_inflated)
            return false;
        std::unique_ptr<char[]> discard(new char[size_t(1) << 20]);
        while (m_inflated < offset) {
            const size_t want = size_t(std::min<qint64>(offset - m_inflated, qint64(1) << 20));
            if (read(discard.get(), want) < want)
                return false;
        }
        return true;
    }
    if (m_inMemory) {
        if (offset < 0 || offset > m_size)
            return false;
        m_memoryPos = offset;
    } else if (!m_file.seek(offset)) {
        return false;
    }
    m_raw = offset;
    return true;
}

qint64 ByteSource::peek(qint64 offset, char *dst, qint64 max)
{
    if (m_gzip)
        return -1;
    if (m_inMemory) {
        if (offset < 0 || offset > m_size)
            return -1;
        const qint64 n = std::min(max, m_size - offset);
        if (n > 0)
            std::memcpy(dst, m_memory.data() + offset, size_t(n));
        return n;
    }
    const qint64 position = m_file.pos();
    if (!m_file.seek(offset))
        return -1;
    const qint64 n = m_file.read(dst, max);
    m_file.seek(position);
    return n;
}

qint64 ByteSource::rawBytesRead() const
{
    if (m_ahead)
        return m_ahead->rawBytesRead();
    if (m_inflater)
        return m_inflater->rawBytesRead();
    return m_raw;
}

qint64 ByteSource::readRaw(char *dst, qint64 max)
{
    if (!m_inMemory)
        return m_file.read(dst, max);
    const qint64 n = std::min(max, m_size - m_memoryPos);
    if (n > 0)
        std::memcpy(dst, m_memory.data() + m_memoryPos, size_t(n));
    m_memoryPos += n;
    return n;
}

void ByteSource::takeVerdicts()
{
    m_ended = true;
    if (m_ahead) {
        m_problem = m_ahead->problem();
        m_trailingGarbage = m_ahead->trailingGarbage();
        m_trailingGarbageOffset = m_ahead->trailingGarbageOffset();
        m_members = m_ahead->members();
    } else if (m_inflater) {
        m_problem = m_inflater->problem();
        m_trailingGarbage = m_inflater->trailingGarbage();
        m_trailingGarbageOffset = m_inflater->trailingGarbageOffset();
        m_members = m_inflater->members();
    }
}

size_t ByteSource::read(char *dst, size_t max)
{
    if (!m_gzip) {
        size_t done = 0;
        while (done < max) {
            const qint64 n = readRaw(dst + done, qint64(max - done));
            if (n < 0) {
                m_problem = QStringLiteral("read error: %1").arg(m_file.errorString());
                break;
            }
            if (n == 0)
                break;
            done += size_t(n);
            m_raw += n;
        }
        return done;
    }
    if (m_ended)
        return 0;
    const size_t n = m_ahead ? m_ahead->read(dst, max) : m_inflater->read(dst, max);
    m_inflated += qint64(n);
    if (n < max)
        takeVerdicts();
    return n;
}

} // namespace goblin::io
