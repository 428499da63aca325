#include "csvreader.h"

#include "bytebuffer.h"

#include <QBuffer>
#include <QIODevice>

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GOBLIN_CSV_AVX2 1
#endif

namespace goblin
{

namespace
{

/// Python's csv.field_size_limit() default, in characters (code points).
constexpr qint64 kPythonFieldLimit = 131072;

/// First byte in [p, e) equal to a, b or c; e when none. The reader spends most of its time
/// here (kernel names are hundreds of bytes long), so it looks at 32 bytes per step.
[[gnu::always_inline]] inline const char *findAny3(const char *p, const char *e, char a, char b, char c)
{
#if defined(__SSE2__)
    const __m128i va = _mm_set1_epi8(a);
    const __m128i vb = _mm_set1_epi8(b);
    const __m128i vc = _mm_set1_epi8(c);
    while (e - p >= 32) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 16));
        const __m128i mx =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)), _mm_cmpeq_epi8(x, vc));
        const __m128i my =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(y, va), _mm_cmpeq_epi8(y, vb)), _mm_cmpeq_epi8(y, vc));
        const unsigned mask = unsigned(_mm_movemask_epi8(mx)) | (unsigned(_mm_movemask_epi8(my)) << 16);
        if (mask)
            return p + __builtin_ctz(mask);
        p += 32;
    }
    if (e - p >= 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        const __m128i mx =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)), _mm_cmpeq_epi8(x, vc));
        const unsigned mask = unsigned(_mm_movemask_epi8(mx));
        if (mask)
            return p + __builtin_ctz(mask);
        p += 16;
    }
#endif
    for (; p < e; ++p)
        if (*p == a || *p == b || *p == c)
            return p;
    return e;
}

#if defined(GOBLIN_CSV_AVX2)
/// findAny3 with 32-byte AVX2 compares, for the long quoted kernel names (chosen at run time;
/// the build targets baseline x86-64).
__attribute__((target("avx2"))) const char *findAny3Avx2(const char *p, const char *e, char a, char b, char c)
{
    const __m256i va = _mm256_set1_epi8(a);
    const __m256i vb = _mm256_set1_epi8(b);
    const __m256i vc = _mm256_set1_epi8(c);
    while (e - p >= 64) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
        const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 32));
        const __m256i mx = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(x, va), _mm256_cmpeq_epi8(x, vb)),
                                           _mm256_cmpeq_epi8(x, vc));
        const __m256i my = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(y, va), _mm256_cmpeq_epi8(y, vb)),
                                           _mm256_cmpeq_epi8(y, vc));
        const std::uint64_t mask =
            std::uint32_t(_mm256_movemask_epi8(mx)) | (std::uint64_t(std::uint32_t(_mm256_movemask_epi8(my))) << 32);
        if (mask)
            return p + __builtin_ctzll(mask);
        p += 64;
    }
    return findAny3(p, e, a, b, c);
}

const bool kHaveAvx2 = [] {
    __builtin_cpu_init(); // static initialisers may run before libgcc's own
    return __builtin_cpu_supports("avx2") != 0;
}();
#endif

/// The search inside quoted fields, where the long names are.
inline const char *findInQuoted(const char *p, const char *e)
{
#if defined(GOBLIN_CSV_AVX2)
    if (kHaveAvx2)
        return findAny3Avx2(p, e, '"', '\n', '\r');
#endif
    return findAny3(p, e, '"', '\n', '\r');
}

/// Physical line breaks in [p, e) as Python's universal newlines count them (CRLF is one).
qint64 countLineBreaks(const char *p, const char *e)
{
    qint64 n = 0;
    for (; p < e; ++p) {
        if (*p == '\n') {
            ++n;
        } else if (*p == '\r') {
            ++n;
            if (p + 1 < e && p[1] == '\n')
                ++p;
        }
    }
    return n;
}

/// Incremental validator with the rules of Python's strict utf-8 codec (no overlong forms,
/// no surrogates, nothing above U+10FFFF).
struct Utf8Validator {
    int need = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;

    /// Offset of the first invalid byte in [p, p + n), or -1.
    qint64 feed(const unsigned char *p, qint64 n)
    {
        qint64 i = 0;
        while (i < n) {
            if (need == 0) {
#if defined(__SSE2__)
                while (n - i >= 16) {
                    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
                    if (_mm_movemask_epi8(x))
                        break;
                    i += 16;
                }
#endif
                while (i < n && p[i] < 0x80)
                    ++i;
                if (i == n)
                    break;
                const unsigned char c = p[i];
                lo = 0x80;
                hi = 0xBF;
                if (c >= 0xC2 && c <= 0xDF) {
                    need = 1;
                } else if (c == 0xE0) {
                    need = 2;
                    lo = 0xA0;
                } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
                    need = 2;
                } else if (c == 0xED) {
                    need = 2;
                    hi = 0x9F;
                } else if (c == 0xF0) {
                    need = 3;
                    lo = 0x90;
                } else if (c >= 0xF1 && c <= 0xF3) {
                    need = 3;
                } else if (c == 0xF4) {
                    need = 3;
                    hi = 0x8F;
                } else {
                    return i;
                }
                ++i;
            } else {
                const unsigned char c = p[i];
                if (c < lo || c > hi)
                    return i;
                lo = 0x80;
                hi = 0xBF;
                --need;
                ++i;
            }
        }
        return -1;
    }
};

} // namespace

qint64 utf8CodePoints(std::string_view text)
{
    qint64 n = 0;
    for (char ch : text)
        if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80)
            ++n;
    return n;
}

struct CsvReader::Private {
    enum class State : unsigned char { StartRecord, StartField, InField, InQuoted, QuoteInQuoted, EndRecordCr };

    QIODevice *device = nullptr;
    Options options;

    // The buffer holds the record being parsed (from recordStart) and raw bytes not parsed yet
    // (from r to end). Field content is unescaped in place: the write cursor w never passes the
    // read cursor r, so no scratch buffer is needed and unescaped fields stay views into it.
    ByteBuffer buffer;
    size_t capacity = 0;
    size_t end = 0;
    size_t r = 0;
    size_t w = 0;
    size_t fieldStart = 0;
    size_t recordStart = 0;
    State state = State::StartRecord;
    bool eof = false;
    bool started = false;
    bool bom = false;

    qint64 line = 1; // physical line of the byte at r
    qint64 recordLine = 0;
    qint64 recordEndLine = 0;
    qint64 totalRead = 0;

    qint64 droppedChars = 0; // code points of the current field dropped by the caps
    bool truncated = false;
    int quirkField = -1;
    bool limitExceeded = false;
    qint64 limitLine = 0;
    qint64 limitOffset = -1;

    Utf8Validator utf8;
    bool utf8Done = false;
    qint64 invalidOffset = -1;
    qint64 invalidLine = 0;

    QString error;
    std::vector<std::string_view> *out = nullptr;

    qint64 streamOffset(size_t pos) const { return totalRead - qint64(end - pos); }

    void noteInvalidUtf8(size_t pos)
    {
        invalidOffset = streamOffset(pos);
        invalidLine = line + countLineBreaks(buffer.get() + r, buffer.get() + pos);
        utf8Done = true;
    }

    /// Moves the record in progress to the front (dropping the gap an unescaped or truncated
    /// field left behind), grows the buffer if the record does not leave room for a chunk,
    /// then reads one chunk. Returns false at end of data or on error.
    bool refill()
    {
        if (eof)
            return false;
        if (state == State::StartRecord) {
            recordStart = r;
            fieldStart = r;
            w = r;
        }
        const size_t headLen = w - recordStart;
        const size_t tailLen = end - r;
        const size_t chunk = size_t(std::max<qint64>(1, options.chunkBytes));
        const size_t need = headLen + tailLen + chunk;
        char *oldBase = buffer.get();
        char *newBase = oldBase;
        if (need > capacity) {
            const size_t newCapacity = std::max(need, capacity * 2);
            ByteBuffer grown = allocateByteBuffer(newCapacity);
            newBase = grown.get();
            if (headLen)
                std::memcpy(newBase, oldBase + recordStart, headLen);
            if (tailLen)
                std::memcpy(newBase + headLen, oldBase + r, tailLen);
            buffer = std::move(grown);
            capacity = newCapacity;
        } else {
            if (headLen && recordStart != 0)
                std::memmove(newBase, oldBase + recordStart, headLen);
            if (tailLen && r != headLen)
                std::memmove(newBase + headLen, oldBase + r, tailLen);
        }
        if (out && oldBase) {
            const char *from = oldBase + recordStart;
            for (std::string_view &f : *out)
                f = std::string_view(newBase + (f.data() - from), f.size());
        }
        fieldStart -= std::min(fieldStart, recordStart);
        recordStart = 0;
        w = headLen;
        r = headLen;
        end = headLen + tailLen;

        const qint64 got = device->read(newBase + end, qint64(chunk));
        if (got < 0) {
            error = device->errorString();
            if (error.isEmpty())
                error = QStringLiteral("read error");
            eof = true;
            return false;
        }
        if (got == 0) {
            eof = true;
            if (options.validateUtf8 && !utf8Done && utf8.need != 0)
                noteInvalidUtf8(end);
            return false;
        }
        const size_t oldEnd = end;
        end += size_t(got);
        totalRead += got;
        if (options.validateUtf8 && !utf8Done) {
            const qint64 bad = utf8.feed(reinterpret_cast<const unsigned char *>(newBase + oldEnd), got);
            if (bad >= 0)
                noteInvalidUtf8(oldEnd + size_t(bad));
        }
        return true;
    }

    void startStream()
    {
        started = true;
        while (end - r < 3 && refill()) {
        }
        if (end - r >= 3 && static_cast<unsigned char>(buffer[r]) == 0xEF &&
            static_cast<unsigned char>(buffer[r + 1]) == 0xBB && static_cast<unsigned char>(buffer[r + 2]) == 0xBF) {
            bom = true;
            if (options.stripUtf8Bom)
                r += 3;
        }
    }

    void fieldLimitCheck(const char *data, size_t len, size_t pos)
    {
        if (limitExceeded)
            return;
        if (len <= size_t(kPythonFieldLimit) && droppedChars == 0)
            return;
        const qint64 chars = utf8CodePoints(std::string_view(data, len)) + droppedChars;
        if (chars > kPythonFieldLimit) {
            limitExceeded = true;
            limitLine = line;
            limitOffset = streamOffset(pos);
        }
    }

    /// Slow path of append(): keeps what fits under the caps, counts what is dropped.
    void appendCapped(char *base, size_t src, size_t n, size_t &w, size_t fs)
    {
        const size_t maxField = size_t(std::max<qint64>(0, options.maxFieldBytes));
        const size_t maxRecord = size_t(std::max<qint64>(0, options.maxRecordBytes));
        const size_t haveField = w - fs;
        const size_t haveRecord = w - recordStart;
        size_t keep = n;
        if (haveField >= maxField)
            keep = 0;
        else
            keep = std::min(keep, maxField - haveField);
        if (haveRecord >= maxRecord)
            keep = 0;
        else
            keep = std::min(keep, maxRecord - haveRecord);
        if (keep && w != src)
            std::memmove(base + w, base + src, keep);
        w += keep;
        droppedChars += utf8CodePoints(std::string_view(base + src + keep, n - keep));
        truncated = true;
    }

    enum class Step { Record, NeedData };

    Step scan()
    {
        char *const base = buffer.get();
        const char *const e = base + end;
        size_t r = this->r;
        size_t w = this->w;
        size_t fs = this->fieldStart;
        State st = state;
        const size_t maxField = size_t(std::max<qint64>(0, options.maxFieldBytes));
        const size_t maxRecord = size_t(std::max<qint64>(0, options.maxRecordBytes));
        const size_t maxFields = size_t(std::max<qint64>(0, options.maxFieldsPerRecord));
        std::vector<std::string_view> &fields = *out;

        // always_inline: at -O2 (RelWithDebInfo) GCC keeps these lambdas out of line and the
        // reader runs at half speed.
        auto append = [&](size_t src, size_t n) __attribute__((always_inline))
        {
            if (w - fs + n > maxField || w - recordStart + n > maxRecord) {
                appendCapped(base, src, n, w, fs);
                return;
            }
            if (w != src)
                std::memmove(base + w, base + src, n);
            w += n;
        };
        auto save = [&]() __attribute__((always_inline))
        {
            const size_t len = w - fs;
            if (fields.size() < maxFields)
                fields.emplace_back(base + fs, len);
            else
                truncated = true;
            if (len > size_t(kPythonFieldLimit) || droppedChars)
                fieldLimitCheck(base + fs, len, r);
            droppedChars = 0;
        };

        for (;;) {
            switch (st) {
            case State::StartRecord: {
                if (r == end)
                    goto needData;
                recordStart = r;
                recordLine = line;
                quirkField = -1;
                const char c = base[r];
                if (c == '\n') {
                    ++r;
                    ++line;
                    recordEndLine = line - 1;
                    goto recordDone;
                }
                if (c == '\r') {
                    st = State::EndRecordCr;
                    continue;
                }
                st = State::StartField;
                [[fallthrough]];
            }
            case State::StartField: {
                fs = w = r;
                if (r == end) {
                    if (eof) {
                        save();
                        recordEndLine = line;
                        goto recordDone;
                    }
                    goto needData;
                }
                const char c = base[r];
                if (c == '"') {
                    ++r;
                    fs = w = r;
                    st = State::InQuoted;
                    continue;
                }
                if (c == ',') {
                    save();
                    ++r;
                    continue;
                }
                if (c == '\n') {
                    save();
                    ++r;
                    ++line;
                    recordEndLine = line - 1;
                    goto recordDone;
                }
                if (c == '\r') {
                    save();
                    w = r;
                    st = State::EndRecordCr;
                    continue;
                }
                st = State::InField;
                [[fallthrough]];
            }
            case State::InField: {
                const size_t q = size_t(findAny3(base + r, e, ',', '\n', '\r') - base);
                append(r, q - r);
                r = q;
                if (q == end) {
                    if (eof) {
                        save();
                        recordEndLine = line;
                        goto recordDone;
                    }
                    goto needData;
                }
                const char c = base[q];
                save();
                if (c == ',') {
                    ++r;
                    st = State::StartField;
                    continue;
                }
                if (c == '\n') {
                    ++r;
                    ++line;
                    recordEndLine = line - 1;
                    goto recordDone;
                }
                w = r;
                st = State::EndRecordCr;
                continue;
            }
            case State::InQuoted: {
                const size_t q = size_t(findInQuoted(base + r, e) - base);
                append(r, q - r);
                r = q;
                if (q == end) {
                    if (eof) {
                        // A newline at the very end of an unterminated quoted field does not
                        // start a line of its own (Python's line_num counts lines read).
                        const bool endsInNewline = w > fs && (base[w - 1] == '\n' || base[w - 1] == '\r');
                        save();
                        recordEndLine = endsInNewline ? line - 1 : line;
                        goto recordDone;
                    }
                    goto needData;
                }
                const char c = base[q];
                if (c == '"') {
                    ++r;
                    st = State::QuoteInQuoted;
                    continue;
                }
                if (c == '\n') {
                    append(r, 1);
                    ++r;
                    ++line;
                    continue;
                }
                // '\r': a CRLF inside quotes is one physical line, so look at the next byte.
                if (q + 1 == end && !eof)
                    goto needData;
                append(r, 1);
                ++r;
                ++line;
                if (r < end && base[r] == '\n') {
                    append(r, 1);
                    ++r;
                }
                continue;
            }
            case State::QuoteInQuoted: {
                if (r == end) {
                    if (eof) {
                        save();
                        recordEndLine = line;
                        goto recordDone;
                    }
                    goto needData;
                }
                const char c = base[r];
                if (c == '"') {
                    // "" inside quotes: one literal quote. w < r here (the quote before was
                    // skipped), so writing at w never clobbers unread bytes.
                    append(r, 1);
                    ++r;
                    st = State::InQuoted;
                    continue;
                }
                if (c == ',') {
                    save();
                    ++r;
                    st = State::StartField;
                    continue;
                }
                if (c == '\n') {
                    save();
                    ++r;
                    ++line;
                    recordEndLine = line - 1;
                    goto recordDone;
                }
                if (c == '\r') {
                    save();
                    w = r;
                    st = State::EndRecordCr;
                    continue;
                }
                // Text after the closing quote: Python (strict=False) appends it literally.
                if (quirkField < 0)
                    quirkField = int(fields.size());
                st = State::InField;
                continue;
            }
            case State::EndRecordCr: {
                if (r + 1 == end && !eof) {
                    w = r;
                    goto needData;
                }
                ++r;
                ++line;
                recordEndLine = line - 1;
                if (r < end && base[r] == '\n')
                    ++r;
                goto recordDone;
            }
            }
        }

    recordDone:
        this->r = r;
        this->w = r;
        this->fieldStart = r;
        state = State::StartRecord;
        return Step::Record;

    needData:
        this->r = r;
        this->w = w;
        this->fieldStart = fs;
        state = st;
        return Step::NeedData;
    }
};

CsvReader::CsvReader(QIODevice *device) : CsvReader(device, Options()) {}

CsvReader::CsvReader(QIODevice *device, Options options) : d(std::make_unique<Private>())
{
    d->device = device;
    d->options = options;
}

CsvReader::~CsvReader() = default;

bool CsvReader::readRecord(std::vector<std::string_view> &fields)
{
    fields.clear();
    d->out = &fields;
    if (!d->device)
        return false;
    if (!d->started)
        d->startStream();
    for (;;) {
        if (d->state == Private::State::StartRecord && d->r == d->end && d->eof)
            return false;
        if (d->scan() == Private::Step::Record)
            return true;
        if (!d->refill()) {
            if (!d->error.isEmpty()) {
                fields.clear();
                return false;
            }
        }
    }
}

qint64 CsvReader::recordStartLine() const
{
    return d->recordLine;
}
qint64 CsvReader::recordEndLine() const
{
    return d->recordEndLine;
}
qint64 CsvReader::bytesConsumed() const
{
    return d->streamOffset(d->r);
}
bool CsvReader::exceededPythonFieldLimit() const
{
    return d->limitExceeded;
}
qint64 CsvReader::pythonFieldLimitLine() const
{
    return d->limitLine;
}
qint64 CsvReader::pythonFieldLimitOffset() const
{
    return d->limitOffset;
}
int CsvReader::lastRecordQuoteQuirkField() const
{
    return d->quirkField;
}
qint64 CsvReader::firstInvalidUtf8Offset() const
{
    return d->invalidOffset;
}
qint64 CsvReader::firstInvalidUtf8Line() const
{
    return d->invalidLine;
}
bool CsvReader::hadTruncatedField() const
{
    return d->truncated;
}
bool CsvReader::hadBom() const
{
    return d->bom;
}
QString CsvReader::errorString() const
{
    return d->error;
}

std::vector<std::string> splitCsvLine(std::string_view line)
{
    QByteArray bytes(line.data(), qsizetype(line.size()));
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::ReadOnly);
    CsvReader::Options options;
    options.stripUtf8Bom = false;
    options.chunkBytes = std::max<qint64>(64, qint64(line.size()));
    CsvReader reader(&buffer, options);
    std::vector<std::string_view> fields;
    std::vector<std::string> out;
    if (reader.readRecord(fields))
        for (std::string_view f : fields)
            out.emplace_back(f);
    return out;
}

} // namespace goblin
