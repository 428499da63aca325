#include "io/gzipinflater.h"

#include <QFile>

#include <zlib.h>

#if GOBLIN_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include <algorithm>
#include <cstring>
#include <limits>

namespace goblin::io {

namespace {

// Both libraries count bytes in 32-bit fields; a call gets at most this much of either side.
constexpr size_t kMaxStepBytes = size_t(1) << 30;
// A call that neither takes input nor gives output this many times in a row is a decompressor
// that cannot go on; without the limit a malformed stream could spin instead of failing.
constexpr int kMaxStalls = 3;

} // namespace

bool isalAvailable()
{
#if GOBLIN_HAVE_ISAL
    return true;
#else
    return false;
#endif
}

InflateBackend bestInflateBackend()
{
    return isalAvailable() ? InflateBackend::Isal : InflateBackend::Zlib;
}

QString inflateBackendName(InflateBackend backend)
{
    return backend == InflateBackend::Isal ? QStringLiteral("ISA-L") : QStringLiteral("zlib");
}

/// One member at a time; the member, garbage and truncation rules are GzipInflater's.
class GzipInflater::Engine
{
public:
    enum class Step { Progress, MemberEnd, Error };
    virtual ~Engine() = default;
    virtual bool init(QString *error) = 0;
    /// Ready for the next member's header.
    virtual void nextMember() = 0;
    /// Inflates from `in` into `out`, advancing both.
    virtual Step inflate(const unsigned char *&in, size_t &inLength, char *&out, size_t &outLength) = 0;
    /// What the last Step::Error was, in the library's words.
    virtual QString errorText() const = 0;
};

namespace {

class ZlibEngine final : public GzipInflater::Engine
{
public:
    ~ZlibEngine() override
    {
        if (m_initialised)
            inflateEnd(&m_z);
    }
    bool init(QString *error) override
    {
        std::memset(&m_z, 0, sizeof(m_z));
        if (inflateInit2(&m_z, 16 + MAX_WBITS) != Z_OK) {  // 16: a gzip wrapper, checked
            *error = QStringLiteral("zlib could not be initialised");
            return false;
        }
        m_initialised = true;
        return true;
    }
    void nextMember() override { inflateReset(&m_z); }
    Step inflate(const unsigned char *&in, size_t &inLength, char *&out, size_t &outLength) override
    {
        m_z.next_in = const_cast<Bytef *>(in);
        m_z.avail_in = uInt(std::min(inLength, kMaxStepBytes));
        m_z.next_out = reinterpret_cast<Bytef *>(out);
        m_z.avail_out = uInt(std::min(outLength, kMaxStepBytes));
        const uInt inBefore = m_z.avail_in;
        const uInt outBefore = m_z.avail_out;
        const int rc = ::inflate(&m_z, Z_NO_FLUSH);
        in += inBefore - m_z.avail_in;
        inLength -= inBefore - m_z.avail_in;
        out += outBefore - m_z.avail_out;
        outLength -= outBefore - m_z.avail_out;
        if (rc == Z_STREAM_END)
            return Step::MemberEnd;
        if (rc == Z_OK || rc == Z_BUF_ERROR)
            return Step::Progress;
        m_error = QStringLiteral("zlib: %1").arg(QString::fromLatin1(m_z.msg ? m_z.msg : "error"));
        return Step::Error;
    }
    QString errorText() const override { return m_error; }

private:
    z_stream m_z;
    bool m_initialised = false;
    QString m_error;
};

#if GOBLIN_HAVE_ISAL
class IsalEngine final : public GzipInflater::Engine
{
public:
    bool init(QString *) override
    {
        // ~45 KB of decoding tables: on the heap, not on the reader's stack.
        m_state = std::make_unique<inflate_state>();
        isal_inflate_init(m_state.get());
        m_state->crc_flag = ISAL_GZIP;  // parse the gzip header, check the CRC-32 and length
        return true;
    }
    void nextMember() override
    {
        isal_inflate_reset(m_state.get());
        m_state->crc_flag = ISAL_GZIP;
    }
    Step inflate(const unsigned char *&in, size_t &inLength, char *&out, size_t &outLength) override
    {
        inflate_state &s = *m_state;
        s.next_in = const_cast<uint8_t *>(in);
        s.avail_in = uint32_t(std::min(inLength, kMaxStepBytes));
        s.next_out = reinterpret_cast<uint8_t *>(out);
        s.avail_out = uint32_t(std::min(outLength, kMaxStepBytes));
        const uint32_t inBefore = s.avail_in;
        const uint32_t outBefore = s.avail_out;
        const int rc = isal_inflate(&s);
        // At a member's end ISA-L gives back the bytes it had read past it, so next_in is where
        // the next member (or the garbage) starts.
        in = s.next_in;
        inLength -= size_t(inBefore) - s.avail_in;
        out += outBefore - s.avail_out;
        outLength -= outBefore - s.avail_out;
        if (rc != ISAL_DECOMP_OK && rc != ISAL_END_INPUT && rc != ISAL_OUT_OVERFLOW) {
            m_error = QStringLiteral("ISA-L: %1").arg(describe(rc));
            return Step::Error;
        }
        return s.block_state == ISAL_BLOCK_FINISH ? Step::MemberEnd : Step::Progress;
    }
    QString errorText() const override { return m_error; }

private:
    static QString describe(int rc)
    {
        switch (rc) {
        case ISAL_INVALID_BLOCK: return QStringLiteral("invalid block");
        case ISAL_INVALID_SYMBOL: return QStringLiteral("invalid code");
        case ISAL_INVALID_LOOKBACK: return QStringLiteral("invalid distance too far back");
        case ISAL_INVALID_WRAPPER: return QStringLiteral("incorrect gzip header");
        case ISAL_UNSUPPORTED_METHOD: return QStringLiteral("unknown compression method");
        case ISAL_INCORRECT_CHECKSUM: return QStringLiteral("incorrect data check");
        case ISAL_NEED_DICT: return QStringLiteral("a preset dictionary is needed");
        default: return QStringLiteral("error %1").arg(rc);
        }
    }

    std::unique_ptr<inflate_state> m_state;
    QString m_error;
};
#endif

} // namespace

GzipInflater::GzipInflater(InflateBackend backend)
    : m_backend(isalAvailable() ? backend : InflateBackend::Zlib)
{
#if GOBLIN_HAVE_ISAL
    if (m_backend == InflateBackend::Isal)
        m_engine = std::make_unique<IsalEngine>();
#endif
    if (!m_engine)
        m_engine = std::make_unique<ZlibEngine>();
}

GzipInflater::~GzipInflater() = default;

bool GzipInflater::initReader(CompressedReader reader, size_t bufferBytes, QString *error)
{
    m_reader = std::move(reader);
    m_buffer.resize(std::max<size_t>(1, bufferBytes));
    return m_engine->init(error);
}

bool GzipInflater::initMemory(QByteArrayView memory, QString *error)
{
    m_memory = memory;
    m_fromMemory = true;
    return m_engine->init(error);
}

bool GzipInflater::refill()
{
    if (m_fromMemory) {
        // Inflated straight from the caller's bytes: no input buffer to fill.
        const qint64 n = std::min<qint64>(qint64(kMaxStepBytes), m_memory.size() - m_memoryPos);
        if (n == 0) {
            m_inputEof = true;
        } else {
            m_in = reinterpret_cast<const unsigned char *>(m_memory.data() + m_memoryPos);
            m_inLength = size_t(n);
            m_memoryPos += n;
            m_raw += n;
        }
        return true;
    }
    QString error;
    const qint64 n = m_reader(m_buffer.data(), qint64(m_buffer.size()), &error);
    if (n < 0) {
        m_problem = QStringLiteral("read error: %1").arg(error);
        return false;
    }
    if (n == 0) {
        m_inputEof = true;
    } else {
        m_raw += n;
        m_in = reinterpret_cast<const unsigned char *>(m_buffer.data());
        m_inLength = size_t(n);
    }
    return true;
}

size_t GzipInflater::read(char *dst, size_t max)
{
    if (m_finished)
        return 0;
    char *out = dst;
    size_t outLength = max;
    while (outLength > 0) {
        if (m_inLength == 0 && !m_inputEof && !refill()) {
            m_finished = true;
            break;
        }
        if (m_memberEnded) {
            if (m_inLength == 0 && m_inputEof) {
                m_finished = true;
                break;
            }
            if (m_inLength == 0)
                continue;
            // Another member follows (gzip allows concatenation), or junk. A byte that cannot
            // start a member is junk at once: even a single one, which a decompressor would wait
            // on for the rest of a header and then call a truncated stream.
            if (m_in[0] != 0x1f) {
                m_trailingGarbage = true;
                m_trailingGarbageOffset = m_raw - qint64(m_inLength);
                m_finished = true;
                break;
            }
            m_engine->nextMember();
            m_memberStart = m_raw - qint64(m_inLength);
            m_memberEnded = false;
            m_memberOutput = 0;
        }
        // With the input gone the engine is still called: it may hold decoded bytes it has not
        // handed out yet (ISA-L decodes ahead into its own buffer when the output is small).
        const bool inputGone = m_inLength == 0 && m_inputEof;
        const size_t inBefore = m_inLength;
        const size_t outBefore = outLength;
        const Engine::Step step = m_engine->inflate(m_in, m_inLength, out, outLength);
        m_memberOutput += qint64(outBefore - outLength);
        if (step == Engine::Step::MemberEnd) {
            m_memberEnded = true;
            ++m_members;
            m_stalls = 0;
            continue;
        }
        if (step == Engine::Step::Progress) {
            const bool moved = m_inLength != inBefore || outLength != outBefore;
            if (inputGone) {
                if (moved)
                    continue;
                m_problem = QStringLiteral("the compressed stream ends early (truncated .gz file): it stops at byte "
                                           "%1 of the file, after %2 decompressed bytes")
                                .arg(m_raw)
                                .arg(m_output + qint64(max - outLength));
                m_finished = true;
                break;
            }
            m_stalls = moved ? 0 : m_stalls + 1;
            if (m_stalls < kMaxStalls)
                continue;
        }
        // Where the decompressor stopped, in the file (the engines read a few bytes ahead).
        const qint64 offset = m_raw - qint64(m_inLength);
        if (step == Engine::Step::Error && m_members > 0 && m_memberOutput == 0) {
            m_trailingGarbage = true;
            m_trailingGarbageOffset = m_memberStart;
        } else {
            const QString why = step == Engine::Step::Error ? m_engine->errorText()
                                                            : QStringLiteral("the decompressor made no progress");
            m_problem = QStringLiteral("corrupt compressed data (%1) near byte %2 of the file, after %3 decompressed "
                                       "bytes")
                            .arg(why)
                            .arg(offset)
                            .arg(m_output + qint64(max - outLength));
        }
        m_finished = true;
        break;
    }
    m_output += qint64(max - outLength);
    return max - outLength;
}

QString inflateFileTo(const QString &gzPath, QIODevice &out, qint64 maxBytes, const std::function<bool(qint64)> &progress,
                      bool *cancelled)
{
    *cancelled = false;
    QFile in(gzPath);
    if (!in.open(QIODevice::ReadOnly))
        return in.errorString();
    GzipInflater inflater(bestInflateBackend());
    QString error;
    const bool ok = inflater.initReader(
        [&in](char *dst, qint64 max, QString *why) {
            const qint64 n = in.read(dst, max);
            if (n < 0)
                *why = in.errorString();
            return n;
        },
        size_t(1) << 20, &error);
    if (!ok)
        return error;
    std::vector<char> block(size_t(4) << 20);
    for (;;) {
        const size_t n = inflater.read(block.data(), block.size());
        if (inflater.outputBytes() > maxBytes)
            return QStringLiteral("it inflates to more than %1 MiB, the free space of the temporary folder")
                .arg(maxBytes >> 20);
        if (n > 0 && out.write(block.data(), qint64(n)) != qint64(n))
            return QStringLiteral("cannot write the inflated copy (%1)").arg(out.errorString());
        if (progress && !progress(inflater.rawBytesRead())) {
            *cancelled = true;
            return QStringLiteral("cancelled");
        }
        if (n < block.size())
            break;
    }
    if (!inflater.problem().isEmpty())
        return inflater.problem();
    return QString();
}

} // namespace goblin::io
