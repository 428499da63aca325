#include "io/bytesource.h"

#include "io/regularfile.h"

#include <algorithm>
#include <cstring>

namespace goblin::io {

namespace {

constexpr size_t kCompressedReadBytes = size_t(1) << 20;  // gzip input read size (files)
constexpr qint64 kMemoryInflateBytes = qint64(1) << 30;   // zlib counts its input in uInt

} // namespace

ByteSource::~ByteSource()
{
    if (m_zInitialised)
        inflateEnd(&m_z);
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
    if (m_gzip) {
        std::memset(&m_z, 0, sizeof(m_z));
        if (inflateInit2(&m_z, 16 + MAX_WBITS) != Z_OK) {
            *error = QStringLiteral("zlib could not be initialised");
            return false;
        }
        m_zInitialised = true;
        if (!m_inMemory)
            m_in.resize(kCompressedReadBytes);
    }
    return true;
}

bool ByteSource::seek(qint64 offset)
{
    if (m_gzip)
        return false;
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
    if (m_finished)
        return 0;
    m_z.next_out = reinterpret_cast<Bytef *>(dst);
    m_z.avail_out = uInt(max);
    while (m_z.avail_out > 0) {
        if (m_z.avail_in == 0 && !m_inputEof) {
            if (m_inMemory) {
                // Inflated straight from the caller's bytes: no input buffer to fill.
                const qint64 n = std::min(kMemoryInflateBytes, m_size - m_memoryPos);
                if (n == 0) {
                    m_inputEof = true;
                } else {
                    m_z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(m_memory.data() + m_memoryPos));
                    m_z.avail_in = uInt(n);
                    m_memoryPos += n;
                    m_raw += n;
                }
            } else {
                const qint64 n = m_file.read(m_in.data(), qint64(m_in.size()));
                if (n < 0) {
                    m_problem = QStringLiteral("read error: %1").arg(m_file.errorString());
                    m_finished = true;
                    break;
                }
                if (n == 0) {
                    m_inputEof = true;
                } else {
                    m_raw += n;
                    m_z.next_in = reinterpret_cast<Bytef *>(m_in.data());
                    m_z.avail_in = uInt(n);
                }
            }
        }
        if (m_memberEnded) {
            if (m_z.avail_in == 0 && m_inputEof) {
                m_finished = true;
                break;
            }
            if (m_z.avail_in == 0)
                continue;
            // Another member follows (gzip allows concatenation), or junk.
            inflateReset(&m_z);
            m_memberEnded = false;
            m_memberOutput = 0;
        }
        if (m_z.avail_in == 0 && m_inputEof) {
            m_problem = QStringLiteral("the compressed stream ends early (truncated .gz file)");
            m_finished = true;
            break;
        }
        const uInt before = m_z.avail_out;
        const int rc = inflate(&m_z, Z_NO_FLUSH);
        m_memberOutput += before - m_z.avail_out;
        if (rc == Z_STREAM_END) {
            m_memberEnded = true;
            ++m_members;
            continue;
        }
        if (rc == Z_OK || rc == Z_BUF_ERROR)
            continue;
        if (m_members > 0 && m_memberOutput == 0) {
            m_trailingGarbage = true;
        } else {
            m_problem = QStringLiteral("corrupt compressed data (zlib: %1)")
                            .arg(QString::fromLatin1(m_z.msg ? m_z.msg : "error"));
        }
        m_finished = true;
        break;
    }
    return max - m_z.avail_out;
}

} // namespace goblin::io
