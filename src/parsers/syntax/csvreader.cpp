#include "syntax/csvreader.h"

#include "bytebuffer.h"
#include "syntax/bytesearch.h"
#include "syntax/utf8validator.h"

#include <QIODevice>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace goblin
{

namespace
{

using syntax::countLineBreaks;
using syntax::findAny3;
using syntax::findInQuoted;
using syntax::Utf8Validator;

/// Python's csv.field_size_limit() default, in characters (code points).
constexpr qint64 kPythonFieldLimit = 131072;

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
    // Or bytes in memory, copied chunk by chunk into the buffer (the grammar unescapes in place).
    bool memory = false;
    const char *memoryData = nullptr;
    qint64 memorySize = 0;
    qint64 memoryPos = 0;
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
    // Field content kept of the record's finished fields: the record cap counts content, not
    // positions in the buffer (those depend on where a chunk ended and the buffer was compacted).
    size_t recordKept = 0;
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
        // The views move only when the record did: not when it already starts the buffer and
        // the buffer stayed (every refill of a long record read in small chunks).
        if (out && oldBase && (newBase != oldBase || recordStart != 0)) {
            const char *from = oldBase + recordStart;
            for (std::string_view &f : *out)
                f = std::string_view(newBase + (f.data() - from), f.size());
        }
        fieldStart -= std::min(fieldStart, recordStart);
        recordStart = 0;
        w = headLen;
        r = headLen;
        end = headLen + tailLen;

        const qint64 got = memory ? readMemory(newBase + end, qint64(chunk)) : device->read(newBase + end, qint64(chunk));
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

    qint64 readMemory(char *to, qint64 max)
    {
        const qint64 n = std::min(max, memorySize - memoryPos);
        if (n > 0)
            std::memcpy(to, memoryData + memoryPos, size_t(n));
        memoryPos += n;
        return n;
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
        const size_t haveRecord = recordKept + haveField;
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
            if (w - fs + n > maxField || recordKept + (w - fs) + n > maxRecord) {
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
            recordKept += len;
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
                recordKept = 0;
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

CsvReader::CsvReader(QByteArrayView bytes) : CsvReader(bytes, Options()) {}

CsvReader::CsvReader(QByteArrayView bytes, Options options) : d(std::make_unique<Private>())
{
    d->memory = true;
    d->memoryData = bytes.data();
    d->memorySize = bytes.size();
    // The buffer need not be larger than the bytes: small inputs get small buffers.
    options.chunkBytes = std::clamp<qint64>(bytes.size(), 1, std::max<qint64>(1, options.chunkBytes));
    d->options = options;
}

CsvReader::~CsvReader() = default;

bool CsvReader::readRecord(std::vector<std::string_view> &fields)
{
    fields.clear();
    d->out = &fields;
    if (!d->device && !d->memory)
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
    CsvReader::Options options;
    options.stripUtf8Bom = false;
    CsvReader reader(QByteArrayView(line.data(), qsizetype(line.size())), options);
    std::vector<std::string_view> fields;
    std::vector<std::string> out;
    if (reader.readRecord(fields))
        for (std::string_view f : fields)
            out.emplace_back(f);
    return out;
}

} // namespace goblin
