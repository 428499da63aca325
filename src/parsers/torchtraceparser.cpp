#include "torchtraceparser.h"

#include "bytebuffer.h"
#include "io/regularfile.h"
#include "jsonscanner.h"
#include "kineto/gpuevents.h"
#include "kineto/tracediscovery.h"
#include "pynumber.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <simdjson.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace goblin {

namespace {

// Decompressed bytes scanned per round. Small enough that the chunk, simdjson's index of it and
// the events stay in cache between the passes (measured: 2 MB beats 8 MB by ~15 % CPU on a
// 650 MB trace and needs a third of the memory).
constexpr size_t kDefaultChunkBytes = size_t(2) << 20;
constexpr size_t kCompressedReadBytes = size_t(1) << 20;  // gzip input read size
constexpr qint64 kProgressStepBytes = qint64(4) << 20;
constexpr size_t kCaptureLimitBytes = size_t(64) << 20;   // one top-level value kept for simdjson
constexpr size_t kMaxEventBytes = size_t(256) << 20;      // one trace event kept whole
constexpr size_t kPadding = simdjson::SIMDJSON_PADDING;
constexpr size_t kSimdjsonMaxDepth = 1024;
/// A plain trace of 1.5 times this size or more (48 MB) is cut into ranges of about this size between two
/// elements of "traceEvents", parsed concurrently (see TraceReader::runRange()).
constexpr qint64 kDefaultRangeBytes = qint64(32) << 20;
/// Deepest nesting that Python 3.11's json module decodes when called from the reference through
/// oracle.py (994 levels raise RecursionError, which the reference does not catch). Measured; the
/// exact value moves by a level or two with the caller's stack depth. Not modelled: a syntax error
/// raised one or two levels below that depth also ends in RecursionError (while Python builds the
/// JSONDecodeError); the reference then crashes where this reading reports the JSON error.
constexpr size_t kPythonMaxNesting = 993;

const QString kTorchFile = QStringLiteral("torch_profile.json");

QString pythonJsonMessage(const std::string &message, qint64 line, qint64 column, qint64 offset)
{
    return QStringLiteral("%1: line %2 column %3 (char %4)")
        .arg(QString::fromStdString(message))
        .arg(line)
        .arg(column)
        .arg(offset);
}

// ------------------------------------------------------------------------------------------------
// Input: plain or gzip, in chunks.

class ByteSource
{
public:
    ~ByteSource()
    {
        if (m_zInitialised)
            inflateEnd(&m_z);
    }

    bool open(const QString &path, QString *error)
    {
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
        char magic[2] = {0, 0};
        const qint64 n = m_file.read(magic, 2);
        m_gzip = n == 2 && quint8(magic[0]) == 0x1f && quint8(magic[1]) == 0x8b;
        if (!m_file.seek(0)) {
            *error = m_file.errorString();
            return false;
        }
        if (m_gzip) {
            std::memset(&m_z, 0, sizeof(m_z));
            if (inflateInit2(&m_z, 16 + MAX_WBITS) != Z_OK) {
                *error = QStringLiteral("zlib could not be initialised");
                return false;
            }
            m_zInitialised = true;
            m_in.resize(kCompressedReadBytes);
        }
        return true;
    }

    bool compressed() const { return m_gzip; }
    qint64 fileSize() const { return m_size; }
    /// Plain files only: the next read() starts at `offset`, which then counts as read.
    bool seek(qint64 offset)
    {
        if (m_gzip || !m_file.seek(offset))
            return false;
        m_raw = offset;
        return true;
    }
    /// Plain files only: up to `max` bytes from `offset`, without moving the read position.
    qint64 peek(qint64 offset, char *dst, qint64 max)
    {
        if (m_gzip)
            return -1;
        const qint64 position = m_file.pos();
        if (!m_file.seek(offset))
            return -1;
        const qint64 n = m_file.read(dst, max);
        m_file.seek(position);
        return n;
    }
    qint64 rawBytesRead() const { return m_raw; }
    /// Set when the input ended badly: I/O error, corrupt or truncated gzip stream.
    const QString &problem() const { return m_problem; }
    /// Trailing bytes after the last gzip member that are not another member.
    bool trailingGarbage() const { return m_trailingGarbage; }

    /// Reads up to `max` bytes; returns 0 at the end of the data (or after a problem).
    size_t read(char *dst, size_t max)
    {
        if (!m_gzip) {
            size_t done = 0;
            while (done < max) {
                const qint64 n = m_file.read(dst + done, qint64(max - done));
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

private:
    QFile m_file;
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

// ------------------------------------------------------------------------------------------------
// JSON values as Python's json module would hand them to the reference.

struct PyValue {
    enum Kind : quint8 { Missing, Null, Bool, Int, Float, Str, Object, Array };
    Kind kind = Missing;
    bool overflow = false;    ///< Int too large for float(): Python raises OverflowError
    bool nsValid = false;     ///< `ns` holds the number (read as µs) in exact integer ns
    double number = 0.0;      ///< float(v) for Bool, Int and Float
    qint64 ns = 0;
    std::string_view raw;     ///< the token, trimmed; strings with their quotes

    bool isNumeric() const { return kind == Bool || kind == Int || kind == Float; }
    bool isString() const { return kind == Str; }
    /// Body of a string without the quotes, escapes unresolved.
    std::string_view rawBody() const { return raw.size() >= 2 ? raw.substr(1, raw.size() - 2) : std::string_view(); }
    bool hasEscapes() const { return rawBody().find('\\') != std::string_view::npos; }
};

std::string_view trimJson(std::string_view token)
{
    while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                              token.back() == '\t'))
        token.remove_suffix(1);
    while (!token.empty() && (token.front() == ' ' || token.front() == '\n' || token.front() == '\r' ||
                              token.front() == '\t'))
        token.remove_prefix(1);
    return token;
}

constexpr double kExactPowersOf10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/// Classifies one JSON token (already validated by the scanner) the way json.loads types it.
PyValue classify(std::string_view token)
{
    PyValue v;
    token = trimJson(token);
    v.raw = token;
    if (token.empty())
        return v;
    switch (token.front()) {
    case '"':
        v.kind = PyValue::Str;
        return v;
    case '{':
        v.kind = PyValue::Object;
        return v;
    case '[':
        v.kind = PyValue::Array;
        return v;
    case 'n':
        v.kind = PyValue::Null;
        return v;
    case 't':
        v.kind = PyValue::Bool;
        v.number = 1.0;
        return v;
    case 'f':
        v.kind = PyValue::Bool;
        v.number = 0.0;
        return v;
    case 'N':
        v.kind = PyValue::Float;
        v.number = std::numeric_limits<double>::quiet_NaN();
        return v;
    case 'I':
        v.kind = PyValue::Float;
        v.number = std::numeric_limits<double>::infinity();
        return v;
    default:
        break;
    }
    if (token.size() >= 2 && token[0] == '-' && token[1] == 'I') {
        v.kind = PyValue::Float;
        v.number = -std::numeric_limits<double>::infinity();
        return v;
    }
    // Fast path for the plain decimals traces are made of ("3698042544.670", "48213"): with at
    // most 15 significant digits the mantissa and 10^k are exact doubles, so one division rounds
    // correctly, exactly like Python's float(). Integer ns come out of the same digits.
    {
        const char *p = token.data();
        const char *const e = p + token.size();
        const bool negative = *p == '-';
        if (negative)
            ++p;
        quint64 mantissa = 0;
        int digits = 0;
        int fraction = 0;
        bool dot = false;
        while (p < e && *p >= '0' && *p <= '9' && digits < 16) {
            mantissa = mantissa * 10 + quint64(*p - '0');
            ++digits;
            ++p;
        }
        if (p < e && *p == '.') {
            dot = true;
            ++p;
            while (p < e && *p >= '0' && *p <= '9' && digits < 16) {
                mantissa = mantissa * 10 + quint64(*p - '0');
                ++digits;
                ++fraction;
                ++p;
            }
        }
        if (p == e && digits <= 15) {
            v.kind = dot ? PyValue::Float : PyValue::Int;
            double value = double(mantissa);
            if (fraction > 0)
                value /= kExactPowersOf10[fraction];
            v.number = negative && (dot || mantissa != 0) ? -value : value;
            if (fraction <= 3) {
                static constexpr qint64 scale[] = {1000, 100, 10, 1};
                const qint64 ns = qint64(mantissa) * scale[fraction];
                v.ns = negative ? -ns : ns;
                v.nsValid = true;
            }
            return v;
        }
    }
    bool isFloat = false;
    for (const char ch : token)
        if (ch == '.' || ch == 'e' || ch == 'E') {
            isFloat = true;
            break;
        }
    v.kind = isFloat ? PyValue::Float : PyValue::Int;
    double value = 0.0;
    const auto result = std::from_chars(token.data(), token.data() + token.size(), value);
    if (result.ec == std::errc::result_out_of_range) {
        if (isFloat) {
            // json.loads turns 1e400 into inf and 1e-400 into 0.0.
            value = pythonFloat(token).value_or(0.0);
        } else {
            v.overflow = true;  // float(10**400) raises OverflowError
            value = token[0] == '-' ? -std::numeric_limits<double>::infinity()
                                    : std::numeric_limits<double>::infinity();
        }
    }
    if (!isFloat && value == 0.0)
        value = 0.0;  // float(-0) is 0.0 for a Python int
    v.number = value;
    return v;
}

std::string stringValue(const PyValue &v)
{
    const std::string_view body = v.rawBody();
    if (body.find('\\') == std::string_view::npos)
        return std::string(body);
    return JsonScanner::unescape(body);
}

/// Python truthiness of a JSON value.
bool pythonTruthy(const PyValue &v)
{
    switch (v.kind) {
    case PyValue::Missing:
    case PyValue::Null:
        return false;
    case PyValue::Bool:
    case PyValue::Int:
    case PyValue::Float:
        return v.number != 0.0;  // NaN is truthy, and NaN != 0.0
    case PyValue::Str:
        return v.raw.size() > 2;
    case PyValue::Object:
    case PyValue::Array: {
        const std::string_view inner = trimJson(v.raw.substr(1, v.raw.size() - 2));
        return !inner.empty();
    }
    }
    return false;
}

QJsonValue toQJsonValue(const PyValue &v)
{
    switch (v.kind) {
    case PyValue::Missing:
        return QJsonValue(QJsonValue::Undefined);
    case PyValue::Null:
        return QJsonValue(QJsonValue::Null);
    case PyValue::Bool:
        return QJsonValue(v.number != 0.0);
    case PyValue::Int:
    case PyValue::Float:
        return QJsonValue(v.number);
    case PyValue::Str:
        return QJsonValue(QString::fromStdString(stringValue(v)));
    case PyValue::Object:
    case PyValue::Array: {
        const QByteArray wrapped = QByteArray("[") + QByteArray(v.raw.data(), qsizetype(v.raw.size())) + "]";
        const QJsonDocument doc = QJsonDocument::fromJson(wrapped);
        if (doc.isArray() && !doc.array().isEmpty())
            return doc.array().first();
        return QJsonValue(QString::fromUtf8(v.raw.data(), qsizetype(v.raw.size())));
    }
    }
    return QJsonValue(QJsonValue::Undefined);
}

/// µs token -> integer ns, exact for the decimal forms Kineto writes ("123.456", "17331264001234").
std::optional<qint64> microsToNs(const PyValue &v)
{
    if (v.kind != PyValue::Int && v.kind != PyValue::Float)
        return std::nullopt;
    if (!std::isfinite(v.number) || std::fabs(v.number) > 9.0e15)
        return std::nullopt;
    if (v.nsValid)
        return v.ns;
    std::string_view t = v.raw;
    bool negative = false;
    if (!t.empty() && t[0] == '-') {
        negative = true;
        t.remove_prefix(1);
    }
    const size_t dot = t.find('.');
    if (t.find_first_of("eE") == std::string_view::npos) {
        const std::string_view whole = t.substr(0, dot);
        qint64 integer = 0;
        auto r = std::from_chars(whole.data(), whole.data() + whole.size(), integer);
        if (r.ec == std::errc() && integer <= qint64(9000000000000000)) {
            qint64 ns = integer * 1000;
            if (dot != std::string_view::npos) {
                const std::string_view fraction = t.substr(dot + 1);
                qint64 scale = 100;
                for (size_t i = 0; i < fraction.size() && i < 3; ++i, scale /= 10)
                    ns += qint64(fraction[i] - '0') * scale;
                if (fraction.size() > 3 && fraction[3] >= '5')
                    ns += 1;  // round half up on the 4th decimal; sub-ns digits never matter here
            }
            return negative ? -ns : ns;
        }
    }
    return qint64(std::llround(v.number * 1000.0));
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

bool endsWithIgnoreCase(std::string_view s, std::string_view lowerSuffix)
{
    if (s.size() < lowerSuffix.size())
        return false;
    const std::string_view tail = s.substr(s.size() - lowerSuffix.size());
    for (size_t i = 0; i < tail.size(); ++i) {
        char c = tail[i];
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
        if (c != lowerSuffix[i])
            return false;
    }
    return true;
}

/// Python's `"cpu_op" in cat.lower()`. Only ASCII letters lower-case onto the letters of
/// "cpu_op", so an ASCII fold is exact here.
bool containsCpuOpIgnoreCase(std::string_view s)
{
    static constexpr std::string_view needle = "cpu_op";
    if (s.size() < needle.size())
        return false;
    for (size_t i = 0; i + needle.size() <= s.size(); ++i) {
        size_t k = 0;
        for (; k < needle.size(); ++k) {
            char c = s[i + k];
            if (c >= 'A' && c <= 'Z')
                c = char(c - 'A' + 'a');
            if (c != needle[k])
                break;
        }
        if (k == needle.size())
            return true;
    }
    return false;
}

// ------------------------------------------------------------------------------------------------
// Interval arithmetic for the workbench's host-busy union (integer ns, so unions are exact).

struct Interval {
    qint64 begin;
    qint64 end;
};
using Intervals = std::vector<Interval>;

/// Appends an interval, folding it into the last one when it starts inside it. Operators arrive
/// mostly in start order with their children nested inside, so this keeps the vector (and its
/// growth, which costs copies and page faults) several times smaller; mergeIntervals() still
/// sorts and merges whatever order the trace used.
inline void addInterval(Intervals &v, qint64 begin, qint64 end)
{
    if (!v.empty()) {
        Interval &last = v.back();
        if (begin >= last.begin && begin <= last.end) {
            if (end > last.end)
                last.end = end;
            return;
        }
    }
    v.push_back({begin, end});
}

void mergeIntervals(Intervals &v)
{
    std::sort(v.begin(), v.end(), [](const Interval &a, const Interval &b) { return a.begin < b.begin; });
    size_t out = 0;
    for (const Interval &i : v) {
        if (i.end <= i.begin)
            continue;
        if (out > 0 && i.begin <= v[out - 1].end) {
            v[out - 1].end = std::max(v[out - 1].end, i.end);
        } else {
            v[out++] = i;
        }
    }
    v.resize(out);
}

/// Both inputs merged (sorted, disjoint).
Intervals intersectIntervals(const Intervals &a, const Intervals &b)
{
    Intervals out;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const qint64 lo = std::max(a[i].begin, b[j].begin);
        const qint64 hi = std::min(a[i].end, b[j].end);
        if (lo < hi)
            out.push_back({lo, hi});
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return out;
}

qint64 measure(const Intervals &v)
{
    qint64 total = 0;
    for (const Interval &i : v)
        total += i.end - i.begin;
    return total;
}

// ------------------------------------------------------------------------------------------------
// The reference's two passes over traceEvents, fused into one and kept in the same floating-point
// order: _step_time_from_events and _host_busy_from_events of profile_parser.py.

struct ReferenceEvents {
    int generation = -1;          ///< which "traceEvents" key these events belong to
    double stepSum = 0.0;         ///< sum(durations), left to right (Python 3.11 sum() of floats)
    qint64 stepCount = 0;
    bool haveSpan = false;
    double spanStart = 0.0;       ///< overall_start == span_min
    double spanEnd = 0.0;         ///< overall_end == span_max
    double cpuOpUs = 0.0;
    bool stepPassOverflow = false;  ///< float() of a huge int in _step_time_from_events
    bool hostPassOverflow = false;  ///< ... in _host_busy_from_events
    /// A negative or non-finite value went into a sum or the span: then the order of the events
    /// matters beyond the last bits (cancellation, NaN), and a byte range holding it does not
    /// count (see merge()).
    bool orderSensitive = false;

    void add(const PyValue &name, const PyValue &cat, const PyValue &ts, const PyValue &dur,
             std::string_view nameText, std::string_view catText)
    {
        // _step_time_from_events: ProfilerStep durations.
        if (name.isString() && startsWith(nameText, "ProfilerStep") && dur.isNumeric()) {
            if (dur.overflow)
                stepPassOverflow = true;
            if (!(dur.number >= 0.0) || std::isinf(dur.number))
                orderSensitive = true;
            stepSum += dur.number / 1e6;
            ++stepCount;
        }
        if (!(ts.isNumeric() && dur.isNumeric()))
            return;
        if (ts.overflow || dur.overflow) {
            stepPassOverflow = true;
            hostPassOverflow = true;
        }
        const double start = ts.number;
        const double end = start + dur.number;
        if (!std::isfinite(start) || !std::isfinite(end) || !(dur.number >= 0.0))
            orderSensitive = true;
        if (!haveSpan) {
            spanStart = start;
            spanEnd = end;
            haveSpan = true;
        } else {
            // min(a, b) keeps a unless b < a; max(a, b) keeps a unless b > a (NaN never replaces).
            if (start < spanStart)
                spanStart = start;
            if (end > spanEnd)
                spanEnd = end;
        }
        if (cat.isString() && containsCpuOpIgnoreCase(catText))
            cpuOpUs += dur.number;
    }

    /// Adds the events of a later byte range. Its sums are added as a whole, which is
    /// left-to-right summation to within n ulps as long as every addend is finite and not
    /// negative; ranges where one was not (orderSensitive) are read by the main reader instead.
    void merge(const ReferenceEvents &later)
    {
        stepSum += later.stepSum;
        stepCount += later.stepCount;
        stepPassOverflow = stepPassOverflow || later.stepPassOverflow;
        orderSensitive = orderSensitive || later.orderSensitive;
        hostPassOverflow = hostPassOverflow || later.hostPassOverflow;
        if (later.haveSpan) {
            if (!haveSpan) {
                spanStart = later.spanStart;
                spanEnd = later.spanEnd;
                haveSpan = true;
            } else {
                if (later.spanStart < spanStart)
                    spanStart = later.spanStart;
                if (later.spanEnd > spanEnd)
                    spanEnd = later.spanEnd;
            }
        }
        cpuOpUs += later.cpuOpUs;
    }

    std::optional<double> stepTime() const
    {
        if (stepCount > 0)
            return stepSum / double(stepCount);
        if (haveSpan && spanEnd > spanStart)
            return (spanEnd - spanStart) / 1e6;
        return std::nullopt;
    }

    std::optional<double> hostBusy() const
    {
        if (!haveSpan || spanEnd <= spanStart)
            return std::nullopt;
        const double span = spanEnd - spanStart;
        if (span <= 0)
            return std::nullopt;
        const double fraction = cpuOpUs / span;
        return fraction < 1.0 ? fraction : 1.0;
    }
};

// ------------------------------------------------------------------------------------------------

struct EventSpan {
    qint64 begin;
    qint64 end;
    qint64 line;
    int generation;
    char first;
    bool escapes;
    bool preparsed = false;  ///< JsonScanner located its members (Batch::fields): no simdjson pass
};

struct Capture {
    std::string key;
    qint64 begin = 0;
    qint64 end = -1;
    qint64 line = 0;
    std::string text;
    bool overflow = false;
};

bool isCapturedKey(std::string_view key)
{
    return key == "metadata" || key == "tokens_per_sec" || key == "mfu_pct" || key == "step_time_seconds" ||
           key == "host_busy_fraction" || key == "pytorch_version" || key == "torch_version" ||
           key == "distributedInfo";  // the rank, for the GPU timeline
}

/// Members of one JSON object, last occurrence wins as in a Python dict.
struct ObjectMembers : JsonScanner::Sink {
    std::string_view text;
    std::vector<std::pair<std::string, std::string_view>> members;
    std::string pendingKey;
    qint64 valueBeginOffset = 0;
    bool isObject = false;

    void rootKey(std::string_view key, qint64, qint64) override { pendingKey.assign(key); }
    bool valueBegin(int depth, char first, qint64 offset, qint64) override
    {
        if (depth == 0)
            isObject = first == '{';
        valueBeginOffset = offset;
        return depth == 0;
    }
    void valueEnd(int depth, qint64 endOffset, bool) override
    {
        if (depth != 1 || !isObject)
            return;
        const std::string_view value = text.substr(size_t(valueBeginOffset), size_t(endOffset - valueBeginOffset));
        for (auto &m : members)
            if (m.first == pendingKey) {
                m.second = value;
                return;
            }
        members.emplace_back(pendingKey, value);
    }
    std::optional<PyValue> get(std::string_view key) const
    {
        for (const auto &m : members)
            if (m.first == key)
                return classify(m.second);
        return std::nullopt;
    }

    /// Parses `json`; false if it is not a valid object.
    bool parse(std::string_view json)
    {
        text = json;
        JsonScanner scanner(*this);
        scanner.feed(json.data(), json.size());
        scanner.finish();
        return scanner.complete() && isObject;
    }
};

// ------------------------------------------------------------------------------------------------

// ------------------------------------------------------------------------------------------------
// The two-stage pipeline. Thread A (the caller's) reads, checks UTF-8 and splits the document with
// JsonScanner; thread B parses the finished events with simdjson and aggregates them, strictly in
// document order, so the floating-point sums are the same as in one thread.
//
// Before thread B starts (files up to kPipelineAfterChunks chunks, and the start of larger ones),
// JsonScanner also notes where each event's five members lie while it validates the event (see
// JsonScanner::setCapturedKeys): those events are aggregated from these tokens without a simdjson
// pass, so each of their bytes is checked once. Events the scanner did not scan whole in one
// feed() (cut by a chunk boundary, nested deeper than its fast path) still go through simdjson.

/// Something thread A did that must reach the diagnostics in the order the single-threaded reader
/// produced it: a diagnostic, or an event dropped for its size (counted and listed by thread B).
struct Deferred {
    Diagnostic diagnostic;
    bool droppedEvent = false;
};

/// The members an event is read for, in this order; later duplicates win, as in a Python dict.
/// "args" and "pid" feed the GPU timeline only (args.device, args.stream; the host process).
constexpr int kEventKeyCount = 7;
constexpr std::string_view kEventKeys[kEventKeyCount] = {"ph", "cat", "name", "ts", "dur", "args", "pid"};
constexpr int kArgsKey = 5;
constexpr int kPidKey = 6;

/// The raw tokens of those members (as simdjson's raw_json_token() shows them).
struct EventFields {
    std::string_view token[kEventKeyCount];
    quint8 have = 0;  ///< bit i: token[i] was found
};

/// Where JsonScanner found them, for an event it scanned whole (offsets survive the buffer moving).
/// 64 bytes: one is written per event, and its cache misses showed in profiles.
struct EventTokens {
    EventTokens() {}  // user-provided: emplace_back() then does not zero the arrays (a `rep stos` per event)
    quint32 begin[kEventKeyCount];  ///< from the event's first byte (events are at most kMaxEventBytes); set where `have` says so
    quint32 length[kEventKeyCount];
    quint8 have = 0;
};

/// A buffer of document bytes handed from thread A to thread B, with the events that lie whole in
/// it. Byte 0 is the spare slot of TraceReader's buffer; buf[1] holds the byte at offset `base`.
struct Batch {
    ByteBuffer buf;
    size_t capacity = 0;
    qint64 base = 0;
    std::vector<EventSpan> events;
    /// Members of the preparsed events, in order, located by JsonScanner on thread A; the other
    /// events are parsed by simdjson on thread B.
    std::vector<EventTokens> fields;
    std::vector<Deferred> deferred;  ///< applied before the events
    char *at(qint64 offset) const { return buf.get() + 1 + (offset - base); }
};

/// Bounded hand-over between the threads, plus the buffers thread B is done with (so that thread A
/// reuses warm memory instead of faulting in fresh pages). At most `capacity` batches wait.
class BatchQueue
{
public:
    explicit BatchQueue(size_t capacity) : m_capacity(capacity) {}

    /// Thread A. Blocks while the queue is full. Returns false (and drops the batch) once the
    /// consumer has failed.
    bool push(Batch &&batch)
    {
        std::unique_lock lock(m_mutex);
        m_notFull.wait(lock, [&] { return m_queue.size() < m_capacity || m_failed; });
        if (m_failed)
            return false;
        m_queue.push_back(std::move(batch));
        m_notEmpty.notify_one();
        return true;
    }
    /// Thread A: no more batches.
    void close()
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
        m_notEmpty.notify_one();
    }
    /// Thread A: a buffer thread B has finished with, if any.
    bool takeFree(Batch &out)
    {
        std::lock_guard lock(m_mutex);
        if (m_free.empty())
            return false;
        out = std::move(m_free.back());  // the most recently used: the warmest
        m_free.pop_back();
        return true;
    }
    /// Thread B. Blocks while the queue is empty; false once it is closed and drained.
    bool pop(Batch &out)
    {
        std::unique_lock lock(m_mutex);
        m_notEmpty.wait(lock, [&] { return !m_queue.empty() || m_closed; });
        if (m_queue.empty())
            return false;
        out = std::move(m_queue.front());
        m_queue.pop_front();
        m_notFull.notify_one();
        return true;
    }
    /// Thread B: gives a processed buffer back.
    void recycle(Batch &&batch)
    {
        batch.events.clear();
        batch.fields.clear();
        batch.deferred.clear();
        std::lock_guard lock(m_mutex);
        if (m_free.size() < m_capacity + 1)
            m_free.push_back(std::move(batch));
    }
    /// Thread B: it threw; thread A stops waiting for room.
    void fail()
    {
        std::lock_guard lock(m_mutex);
        m_failed = true;
        m_notFull.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_notEmpty;
    std::condition_variable m_notFull;
    std::deque<Batch> m_queue;
    std::vector<Batch> m_free;
    size_t m_capacity;
    bool m_closed = false;
    bool m_failed = false;
};

constexpr size_t kQueuedBatches = 2;
/// Chunks of the document read in one thread before the second thread starts: 128 MB with the
/// default 2 MB chunks (tests pass small chunks to run the pipeline on small documents).
constexpr qint64 kPipelineAfterChunks = 64;

/// How a byte range of the trace ended (see TraceReader::runRange()).
struct RangeEnd {
    bool usable = false;   ///< read to a checked end, with nothing to report: its aggregates count
    int nextIndex = -1;    ///< it ends where range nextIndex starts; -1: at the ']' of "traceEvents"
    /// Where the reader before it goes on; lines count from 1 at the range's start.
    JsonScanner::Resume resume;
};

struct RangeJobs;

enum class ReferenceMode {
    AsJson,        ///< the reference reads these (decompressed) bytes as torch_profile.json
    CrashesOnGzip, ///< the file is torch_profile.json itself: gzip bytes make read_text() fail
};

class TraceReader final : public JsonScanner::Sink
{
public:
    TraceReader(QString path, QString displayName, ReferenceMode mode, const ProgressCallback &progress,
                size_t chunkBytes, qint64 rangeBytes, TorchTrace &out)
        : m_path(std::move(path)), m_name(std::move(displayName)), m_mode(mode), m_progress(progress),
          m_chunkBytes(std::max<size_t>(1, chunkBytes)), m_rangeBytes(rangeBytes), m_out(out),
          m_pipelineFromOffset(kPipelineAfterChunks * qint64(m_chunkBytes)),
          m_scanner(*this), m_eventIssues(out.diagnostics, m_name, QStringLiteral("unusable events"))
    {
        m_scanner.setCapturedKeys(kEventKeys, kEventKeyCount);
    }

    ~TraceReader() override;

    void run();
    /// Reads one byte range of a plain trace on its own: from jobs.starts[index], assumed to be
    /// the start of an element of "traceEvents", to the first later start that the scanner
    /// confirms to be one, or to the array's end. Its aggregates count only if the reader of
    /// the range before confirms this range's start in turn (joinRanges()).
    void runRange(RangeJobs &jobs, size_t index, RangeEnd &end);

    // JsonScanner::Sink
    void rootKey(std::string_view key, qint64 offset, qint64 line) override;
    bool valueBegin(int depth, char first, qint64 offset, qint64 line) override;
    void valueEnd(int depth, qint64 endOffset, bool sawBackslash) override;

private:
    enum class Root { Unknown, Object, Array, Scalar };

    void diag(Severity severity, qint64 line, const QString &message)
    {
        // While thread B may be writing diagnostics, thread A's wait their turn (see Deferred).
        if (m_deferDiagnostics)
            m_deferred.push_back({{severity, m_name, line, message}, false});
        else
            m_out.diagnostics.push_back({severity, m_name, line, message});
    }
    char *at(qint64 offset) { return m_buf.get() + 1 + (offset - m_bufBase); }
    void ensureCapacity(size_t needed);
    void checkUtf8(bool eof);
    // Thread A: hands the events found in this round (and the buffer holding them) to thread B,
    // keeping the bytes from `keep` on for the next round.
    void submitBatch(qint64 keep, std::vector<Deferred> &&before, bool lastRound);
    void startWorker();
    void stopWorker();
    // Thread A, after its last round: waits for thread B, then reports directly again.
    void finishPipeline();
    void applyDeferred(std::vector<Deferred> &deferred);
    // Thread B (or thread A when the whole file fits in one round).
    void processBatch(Batch &batch);
    void parseBatch(Batch &batch, size_t first, size_t last);
    void parseOneEvent(const Batch &batch, const EventSpan &span);
    void handleEvent(simdjson::ondemand::object object, const EventSpan &span, const char *eventEnd);
    static bool collectFields(simdjson::ondemand::object object, bool escapes, const char *eventEnd,
                              EventFields &fields);
    void applyEvent(const EventFields &fields, const EventSpan &span);
    // The GPU timeline's share of a complete event with a string name and category.
    void collectTimeline(const EventFields &fields, const EventSpan &span, std::string_view catText,
                         std::string_view nameText, qint64 begin, qint64 end);
    void flushCaptures(qint64 upTo);
    // The end of a round: hands the finished events on and keeps the unfinished bytes.
    void endRound(bool lastRound);
    // Byte ranges: plans them and starts the helper threads (large plain traces only).
    void planRanges(ByteSource &source);
    // At the start of range 1: helps with the ranges, then goes on after those that count.
    // False when cancelled.
    bool joinRanges(ByteSource &source);
    bool reportProgress(qint64 done);
    void absorb(TraceReader &range);
    void releaseBuffers();
    void finishReference(bool bom, bool compressed);
    void finishWorkbench();
    const Capture *lastCapture(std::string_view key) const;

    QString m_path;
    QString m_name;
    ReferenceMode m_mode;
    const ProgressCallback &m_progress;
    size_t m_chunkBytes;
    qint64 m_rangeBytes;  // 0: one range
    TorchTrace &m_out;
    qint64 m_pipelineFromOffset;  // document offset from which thread B parses the events
    JsonScanner m_scanner;
    DiagnosticLimiter m_eventIssues;

    // Buffer: byte 0 is a spare slot for the '[' that turns a run of events into one array;
    // m_buf[1] holds the byte at absolute offset m_bufBase; m_len bytes are valid.
    ByteBuffer m_buf;
    size_t m_capacity = 0;
    qint64 m_bufBase = 0;
    size_t m_len = 0;
    qint64 m_docSkip = 0;  // a UTF-8 BOM the workbench skips
    qint64 m_lineAtBase = 1;  // line of the byte at m_bufBase, kept once the scanner has stopped

    qint64 m_utf8From = 0;           // absolute offset of the first byte not yet UTF-8 checked
    qint64 m_invalidUtf8Bytes = 0;
    qint64 m_firstInvalidUtf8Offset = -1;
    qint64 m_firstInvalidUtf8Line = 0;
    QString m_utf8Reason;

    Root m_root = Root::Unknown;
    std::string m_lastRootKey;
    QStringList m_rootKeys;
    int m_generation = -1;            // counts "traceEvents" arrays
    int m_traceEventsKeys = 0;
    qint64 m_traceEventsLine = 0;
    bool m_lastTraceEventsIsList = false;
    int m_lastTraceEventsGeneration = -1;
    bool m_inEventsArray = false;
    bool m_inEvent = false;
    bool m_dropEvent = false;
    EventSpan m_current{};
    std::vector<EventSpan> m_pending;
    std::vector<Capture> m_captures;
    int m_openCapture = -1;
    qint64 m_captureCopied = 0;

    simdjson::ondemand::parser m_parser{simdjson::SIMDJSON_MAXSIZE_BYTES};
    std::vector<EventTokens> m_fastFields;  // members of m_pending's preparsed events
    std::unique_ptr<char[]> m_scratch;
    size_t m_scratchSize = 0;
    bool m_batchError = false;  // set by handleEvent when simdjson refuses the event

    // Aggregates.
    ReferenceEvents m_ref;
    qint64 m_events = 0;
    qint64 m_nonObjectEvents = 0;
    qint64 m_unreadableEvents = 0;
    bool m_sawOperatorCategory = false;
    Intervals m_steps;
    qint64 m_stepDurationSumNs = 0;
    Intervals m_busy;
    Intervals m_wait;
    qint64 m_spanBeginNs = std::numeric_limits<qint64>::max();
    qint64 m_spanEndNs = std::numeric_limits<qint64>::min();
    qint64 m_gpuLaneSteps = 0;
    qint64 m_badTimeEvents = 0;
    qint64 m_cpuOps = 0;
    qint64 m_optimizerSteps = 0;
    std::vector<qint64> m_runtimeStarts;
    std::vector<std::vector<qint64>> m_rangeRuntimeStarts;  // those of the ranges, moved, not copied
    qint64 m_nonFiniteTimeEvents = 0;
    std::string m_nameText, m_catText, m_phText;  // unescaped copies, rare
    kineto::GpuEventCollector m_gpu;  // the GPU timeline (src/parsers/kineto/gpuevents.h)
    // The event being applied; a member so that its 7 tokens are not zeroed for every event.
    EventFields m_fields;

    // Byte ranges.
    std::unique_ptr<RangeJobs> m_ranges;  // while the main reader has not reached range 1
    bool m_rangeMode = false;             // this reader reads one range (runRange())
    bool m_rangeClosed = false;           // ... and has met the end of "traceEvents"
    JsonScanner::Resume m_closeResume;
    qint64 m_progressReported = 0;
    qint64 m_rangeStart1 = -1;

    // Pipeline (thread A's side, except the queue).
    bool m_deferDiagnostics = false;
    std::vector<Deferred> m_deferred;  // thread A's diagnostics not yet handed to thread B
    BatchQueue m_queue{kQueuedBatches};
    std::thread m_worker;
    std::exception_ptr m_workerError;  // written by thread B, read after join
};

// ------------------------------------------------------------------------------------------------
// Byte ranges. A plain trace of 1.5 range sizes or more is cut near every multiple of the size,
// at a '{' that follows "}," (where the next element of "traceEvents" starts in every trace
// writer's output). Helper threads read ranges 1, 2, … each with its own scanner that assumes it
// starts there; the main reader reads range 0, then helps. Each reader checks, when it reaches
// the next cut, that its scanner is indeed between two elements of the events array there, which
// confirms the next range's assumption: ranges count from range 1 along the chain of confirmed
// cuts, up to the first one that met anything worth a diagnostic (bad bytes, a syntax error, an
// unusable event), a value that makes the order of the reference's sums matter, or the end of
// the file inside the array. From there the main reader goes on by itself, so what it reports
// is what a single reader would have reported. (Reading with mmap instead was measured: on the
// benchmark machine, mapping the page cache cost more than read()'s copy, 0.75 s against 0.48 s
// for the 642 MB trace.)

struct RangeJobs {
    /// A thread's buffers, handed from range to range: fresh memory costs a page fault per 4 kB.
    struct Buffers {
        ByteBuffer buf;
        size_t capacity = 0;
        std::unique_ptr<simdjson::ondemand::parser> parser;
        std::vector<EventSpan> pending;
        std::vector<EventTokens> fastFields;
    };
    struct Job {
        std::unique_ptr<TorchTrace> trace;  // a range's own diagnostics (it counts only if none)
        std::unique_ptr<TraceReader> reader;
        RangeEnd end;
    };

    QString path;
    QString name;
    ReferenceMode mode = ReferenceMode::AsJson;
    size_t chunkBytes = kDefaultChunkBytes;
    std::vector<qint64> starts;  // starts[0] == 0: the main reader's range
    std::vector<Job> jobs;
    std::vector<std::thread> helpers;
    std::atomic<size_t> next{1};
    std::atomic<bool> cancel{false};
    std::atomic<qint64> bytesDone{0};
    ProgressCallback noProgress;
    std::mutex mutex;
    std::condition_variable changed;
    size_t finished = 0;
    std::vector<Buffers> spare;  // guarded by mutex

    Buffers takeBuffers()
    {
        std::lock_guard lock(mutex);
        if (spare.empty())
            return {};
        Buffers b = std::move(spare.back());
        spare.pop_back();
        return b;
    }
    void giveBack(Buffers &&b)
    {
        std::lock_guard lock(mutex);
        spare.push_back(std::move(b));
    }

    ~RangeJobs() { stop(); }

    /// Reads the next range not taken yet; false when there is none.
    bool runNext()
    {
        const size_t k = next.fetch_add(1);
        if (k >= starts.size())
            return false;
        if (!cancel) {
            Job &job = jobs[k];
            try {
                job.trace = std::make_unique<TorchTrace>();
                job.reader = std::make_unique<TraceReader>(path, name, mode, noProgress, chunkBytes, 0, *job.trace);
                job.reader->runRange(*this, k, job.end);
            } catch (...) {  // out of memory: the main reader reads this range itself
                job.end = RangeEnd{};
                job.reader.reset();
            }
        }
        std::lock_guard lock(mutex);
        ++finished;
        changed.notify_all();
        return true;
    }

    void startHelpers()
    {
        const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
        const size_t count = std::min<size_t>({size_t(cores - 1), starts.size() - 1, 7});
        for (size_t i = 0; i < count; ++i)
            helpers.emplace_back([this] {
                while (runNext()) {
                }
            });
    }

    /// True when every range has been read (or skipped after a cancel).
    bool waitAll(std::chrono::milliseconds timeout)
    {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, timeout, [&] { return finished + 1 >= starts.size(); });
    }

    void stop()
    {
        cancel = true;
        for (std::thread &t : helpers)
            if (t.joinable())
                t.join();
        helpers.clear();
    }
};

TraceReader::~TraceReader()
{
    m_ranges.reset();
    stopWorker();
}

/// Offset of the first '{' at or after `from` that follows '}' and ',' (with whitespace between),
/// or -1 if there is none within a megabyte.
qint64 findElementStart(ByteSource &source, qint64 from)
{
    constexpr qint64 kLookBack = 256;
    constexpr qint64 kWindow = qint64(64) << 10;
    std::vector<char> window(size_t(kLookBack + kWindow));
    const auto isSpace = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
    for (qint64 at = from; at < from + (qint64(1) << 20) && at < source.fileSize(); at += kWindow) {
        const qint64 base = std::max<qint64>(0, at - kLookBack);
        const qint64 n = source.peek(base, window.data(), qint64(window.size()));
        if (n <= 0)
            return -1;
        for (qint64 i = at - base; i < n; ++i) {
            if (window[size_t(i)] != '{')
                continue;
            qint64 j = i - 1;
            while (j >= 0 && isSpace(window[size_t(j)]))
                --j;
            if (j < 0 || window[size_t(j)] != ',')
                continue;
            --j;
            while (j >= 0 && isSpace(window[size_t(j)]))
                --j;
            if (j >= 0 && window[size_t(j)] == '}')
                return base + i;
        }
    }
    return -1;
}

void TraceReader::planRanges(ByteSource &source)
{
    if (m_rangeBytes <= 0 || source.compressed() || source.fileSize() < m_rangeBytes + m_rangeBytes / 2)
        return;
    // An object at the root, no byte order mark: offsets in the document are file offsets.
    char head[16];
    const qint64 headBytes = source.peek(0, head, sizeof head);
    qint64 i = 0;
    while (i < headBytes && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
        ++i;
    if (i >= headBytes || head[i] != '{')
        return;
    auto jobs = std::make_unique<RangeJobs>();
    jobs->starts.push_back(0);
    for (qint64 nominal = m_rangeBytes; nominal + m_rangeBytes / 2 <= source.fileSize(); nominal += m_rangeBytes) {
        const qint64 start = findElementStart(source, nominal);
        if (start > jobs->starts.back())
            jobs->starts.push_back(start);
    }
    if (jobs->starts.size() < 2)
        return;
    jobs->path = m_path;
    jobs->name = m_name;
    jobs->mode = m_mode;
    jobs->chunkBytes = m_chunkBytes;
    jobs->jobs.resize(jobs->starts.size());
    m_rangeStart1 = jobs->starts[1];
    m_pipelineFromOffset = std::numeric_limits<qint64>::max();  // the ranges take the other cores
    jobs->startHelpers();
    m_ranges = std::move(jobs);
}

bool TraceReader::reportProgress(qint64 done)
{
    if (!m_progress || done - m_progressReported < kProgressStepBytes)
        return true;
    m_progressReported = done;
    return m_progress(done);
}

bool TraceReader::joinRanges(ByteSource &source)
{
    std::unique_ptr<RangeJobs> jobs = std::move(m_ranges);
    const bool confirmed = m_scanner.atRootArrayElement() && m_root == Root::Object && m_inEventsArray && !m_inEvent &&
                           m_openCapture < 0 && m_lastTraceEventsGeneration == m_generation && !m_worker.joinable() &&
                           m_len == 0;
    if (!confirmed) {
        // Range 1 does not start at an element (an unusual layout): read on alone.
        jobs->stop();
        m_pipelineFromOffset = kPipelineAfterChunks * qint64(m_chunkBytes);
        return true;
    }
    const auto done = [&] {
        return std::min(source.fileSize(), source.rawBytesRead() + jobs->bytesDone.load());
    };
    while (jobs->runNext()) {
        if (!reportProgress(done())) {
            jobs->stop();
            return false;
        }
    }
    while (!jobs->waitAll(std::chrono::milliseconds(50))) {
        if (!reportProgress(done())) {
            jobs->stop();
            return false;
        }
    }
    jobs->stop();

    // Follow the confirmed cuts from range 1.
    JsonScanner::Resume resume;
    resume.line = m_scanner.line();
    resume.lineStart = m_scanner.lineStart();
    std::vector<TraceReader *> counted;
    for (size_t k = 1;;) {
        const RangeJobs::Job &job = jobs->jobs[k];
        if (!job.end.usable || !job.reader)
            break;
        counted.push_back(job.reader.get());
        const JsonScanner::Resume &r = job.end.resume;
        if (r.line > 1)
            resume.lineStart = r.lineStart;
        resume.line += r.line - 1;
        resume.offset = r.offset;
        resume.afterElement = r.afterElement;
        resume.escapes += r.escapes;
        resume.maxDepth = std::max(resume.maxDepth, r.maxDepth);
        if (job.end.nextIndex < 0)
            break;
        k = size_t(job.end.nextIndex);
    }
    if (!counted.empty() && source.seek(resume.offset)) {
        for (TraceReader *range : counted)
            absorb(*range);
        m_out.parallelRanges = int(counted.size());
        m_bufBase = resume.offset;
        m_len = 0;
        m_utf8From = resume.offset;
        m_scanner.skipTo(resume);
    }
    m_pipelineFromOffset = kPipelineAfterChunks * qint64(m_chunkBytes);
    return true;
}

void TraceReader::absorb(TraceReader &range)
{
    const ReferenceEvents &r = range.m_ref;
    if (r.generation >= 0) {
        if (m_ref.generation != m_generation) {
            m_ref = ReferenceEvents{};
            m_ref.generation = m_generation;
        }
        m_ref.merge(r);
    }
    m_events += range.m_events;
    m_nonObjectEvents += range.m_nonObjectEvents;
    m_unreadableEvents += range.m_unreadableEvents;
    m_sawOperatorCategory = m_sawOperatorCategory || range.m_sawOperatorCategory;
    m_steps.insert(m_steps.end(), range.m_steps.begin(), range.m_steps.end());
    m_stepDurationSumNs += range.m_stepDurationSumNs;
    m_busy.insert(m_busy.end(), range.m_busy.begin(), range.m_busy.end());
    m_wait.insert(m_wait.end(), range.m_wait.begin(), range.m_wait.end());
    m_spanBeginNs = std::min(m_spanBeginNs, range.m_spanBeginNs);
    m_spanEndNs = std::max(m_spanEndNs, range.m_spanEndNs);
    m_gpuLaneSteps += range.m_gpuLaneSteps;
    m_badTimeEvents += range.m_badTimeEvents;
    m_cpuOps += range.m_cpuOps;
    m_optimizerSteps += range.m_optimizerSteps;
    m_rangeRuntimeStarts.push_back(std::move(range.m_runtimeStarts));
    m_nonFiniteTimeEvents += range.m_nonFiniteTimeEvents;
    m_gpu.absorb(std::move(range.m_gpu));
}

void TraceReader::releaseBuffers()
{
    m_len = 0;
    m_scratch.reset();
    m_scratchSize = 0;
}

void TraceReader::runRange(RangeJobs &jobs, size_t index, RangeEnd &end)
{
    const std::vector<qint64> &starts = jobs.starts;
    const qint64 begin = starts[index];
    ByteSource source;
    QString error;
    if (!source.open(m_path, &error) || !source.seek(begin))
        return;
    m_rangeMode = true;
    m_root = Root::Object;
    m_generation = 0;
    m_lastTraceEventsGeneration = 0;
    m_traceEventsKeys = 1;
    m_inEventsArray = true;
    m_bufBase = begin;
    m_len = 0;
    m_utf8From = begin;
    m_pipelineFromOffset = std::numeric_limits<qint64>::max();
    m_scanner.startInsideRootArray(begin);
    RangeJobs::Buffers buffers = jobs.takeBuffers();
    if (buffers.buf) {
        m_buf = std::move(buffers.buf);
        m_capacity = buffers.capacity;
        m_parser = std::move(*buffers.parser);
        m_pending.swap(buffers.pending);
        m_fastFields.swap(buffers.fastFields);
    } else {
        buffers.parser = std::make_unique<simdjson::ondemand::parser>();
    }
    ensureCapacity(2 * m_chunkBytes + kPadding + 2);
    if (m_parser.capacity() < 2 * m_chunkBytes + 2 &&
        m_parser.allocate(2 * m_chunkBytes + 2, kSimdjsonMaxDepth) != simdjson::SUCCESS)
        return;
    m_deferDiagnostics = true;
    size_t next = index + 1;
    bool ended = false;
    while (!jobs.cancel) {
        const qint64 readFrom = m_bufBase + qint64(m_len);
        size_t want = m_chunkBytes;
        if (next < starts.size())  // stop exactly at the next cut
            want = size_t(std::min<qint64>(qint64(want), starts[next] - readFrom));
        ensureCapacity(1 + m_len + want + kPadding + 1);
        const size_t n = source.read(m_buf.get() + 1 + m_len, want);
        const bool eof = n < want;
        m_len += n;
        jobs.bytesDone += qint64(n);
        checkUtf8(eof);
        if (n > 0 && !m_scanner.failed())
            m_scanner.feed(at(readFrom), n);
        if (m_scanner.failed() && !m_rangeClosed)
            break;  // the main reader reports it
        endRound(eof || m_rangeClosed);
        if (m_rangeClosed) {
            end.resume = m_closeResume;
            end.nextIndex = -1;
            ended = true;
            break;
        }
        if (eof)
            break;  // the array never closed
        if (next < starts.size() && m_bufBase + qint64(m_len) == starts[next]) {
            if (m_scanner.atRootArrayElement() && !m_inEvent) {
                end.resume = {starts[next], m_scanner.line(), m_scanner.lineStart(), false, m_scanner.escapes(),
                              m_scanner.maxDepthSeen()};
                end.nextIndex = int(next);
                ended = true;
                break;
            }
            ++next;  // that cut is not between two elements: read on to the next one
        }
    }
    finishPipeline();
    // Unions are all the intervals are used for: merged here, on this range's thread, they are
    // fewer to hand over.
    mergeIntervals(m_busy);
    mergeIntervals(m_wait);
    m_gpu.compact();
    end.usable = ended && !jobs.cancel && !m_ref.orderSensitive && m_out.diagnostics.empty() && m_eventIssues.count() == 0 &&
                 m_invalidUtf8Bytes == 0 && m_unreadableEvents == 0 && m_scanner.nonStandardLiterals() == 0 &&
                 source.problem().isEmpty() && m_gpu.unplacedEvents() == 0;  // (its lines count from the range)
    releaseBuffers();
    m_pending.clear();
    m_fastFields.clear();
    buffers.pending.swap(m_pending);
    buffers.fastFields.swap(m_fastFields);
    buffers.buf = std::move(m_buf);
    buffers.capacity = std::exchange(m_capacity, 0);
    *buffers.parser = std::move(m_parser);
    jobs.giveBack(std::move(buffers));
}

void TraceReader::ensureCapacity(size_t needed)
{
    if (needed <= m_capacity)
        return;
    const size_t capacity = std::max(needed, m_capacity * 2);
    ByteBuffer grown = allocateByteBuffer(capacity);
    if (m_buf)
        std::memcpy(grown.get(), m_buf.get(), 1 + m_len);
    m_buf = std::move(grown);
    m_capacity = capacity;
}

void TraceReader::rootKey(std::string_view key, qint64, qint64 line)
{
    if (m_rangeClosed)
        return;  // past this range's end
    m_lastRootKey.assign(key);
    if (m_rootKeys.size() < 200)
        m_rootKeys << QString::fromUtf8(key.data(), qsizetype(key.size()));
    if (key == "traceEvents")
        m_traceEventsLine = line;
    if (key == "traceEvents" && ++m_traceEventsKeys == 2)
        diag(Severity::Warning, line,
             QStringLiteral("\"traceEvents\" appears more than once; the reference keeps only the last one, "
                            "the workbench reads the events of every copy"));
}

bool TraceReader::valueBegin(int depth, char first, qint64 offset, qint64 line)
{
    if (m_rangeClosed)
        return false;
    if (depth == 0) {
        m_root = first == '{' ? Root::Object : first == '[' ? Root::Array : Root::Scalar;
        if (m_root == Root::Array) {
            ++m_generation;
            m_inEventsArray = true;
        }
        return m_root != Root::Scalar;
    }
    const bool eventLevel = (m_root == Root::Array && depth == 1) || (m_root == Root::Object && depth == 2);
    if (eventLevel && m_inEventsArray) {
        m_inEvent = true;
        m_dropEvent = false;
        m_current = {offset, -1, line, m_generation, first, false};
        return false;
    }
    if (depth == 1 && m_root == Root::Object) {
        if (m_lastRootKey == "traceEvents") {
            m_lastTraceEventsIsList = first == '[';
            if (first == '[') {
                ++m_generation;
                m_lastTraceEventsGeneration = m_generation;
                m_inEventsArray = true;
                return true;
            }
            m_lastTraceEventsGeneration = -1;
            diag(Severity::Warning, line, QStringLiteral("\"traceEvents\" is not an array; no events read from it"));
            return false;
        }
        if (isCapturedKey(m_lastRootKey)) {
            Capture c;
            c.key = m_lastRootKey;
            c.begin = offset;
            c.line = line;
            m_captures.push_back(std::move(c));
            m_openCapture = int(m_captures.size()) - 1;
            m_captureCopied = offset;
        }
    }
    return false;
}

void TraceReader::flushCaptures(qint64 upTo)
{
    if (m_openCapture < 0)
        return;
    Capture &c = m_captures[size_t(m_openCapture)];
    if (upTo > m_captureCopied) {
        const size_t n = size_t(upTo - m_captureCopied);
        if (!c.overflow && c.text.size() + n <= kCaptureLimitBytes)
            c.text.append(at(m_captureCopied), n);
        else if (!c.overflow) {
            c.overflow = true;
            c.text.clear();
            c.text.shrink_to_fit();
            diag(Severity::Warning, c.line,
                 QStringLiteral("top-level \"%1\" is larger than %2 MB; it is not read")
                     .arg(QString::fromStdString(c.key))
                     .arg(kCaptureLimitBytes >> 20));
        }
        m_captureCopied = upTo;
    }
}

void TraceReader::valueEnd(int depth, qint64 endOffset, bool sawBackslash)
{
    if (m_rangeClosed)
        return;
    if (m_rangeMode && depth == 1) {
        // The range began inside "traceEvents": what ends at depth 1 is that array. The reader
        // before goes on at its ']', after the last element.
        m_rangeClosed = true;
        m_closeResume = {endOffset - 1, m_scanner.line(), m_scanner.lineStart(), true, m_scanner.escapes(),
                         m_scanner.maxDepthSeen()};
        return;
    }
    const bool eventLevel = (m_root == Root::Array && depth == 1) || (m_root == Root::Object && depth == 2);
    if (eventLevel && m_inEvent) {
        m_inEvent = false;
        if (m_dropEvent) {
            // Counted by thread B, in its place among the events (see processBatch()).
            Deferred dropped;
            dropped.droppedEvent = true;
            dropped.diagnostic.line = m_current.line;
            m_deferred.push_back(std::move(dropped));
            return;
        }
        m_current.end = endOffset;
        m_current.escapes = sawBackslash;
        const JsonScanner::CapturedMembers *members = m_current.first == '{' ? m_scanner.capturedMembers() : nullptr;
        if (members) {
            // JsonScanner validated the event and located its members on the way: simdjson need
            // not index these bytes again.
            m_current.preparsed = true;
            EventTokens &tokens = m_fastFields.emplace_back();
            tokens.have = members->have;
            for (unsigned have = members->have; have; have &= have - 1) {
                const int k = __builtin_ctz(have);
                tokens.begin[k] = quint32(members->begin[k] - m_current.begin);
                tokens.length[k] = quint32(members->end[k] - members->begin[k]);
            }
        }
        m_pending.push_back(m_current);
        return;
    }
    if (depth == 1 && m_root == Root::Object) {
        if (m_inEventsArray)
            m_inEventsArray = false;
        if (m_openCapture >= 0) {
            flushCaptures(endOffset);
            m_captures[size_t(m_openCapture)].end = endOffset;
            m_openCapture = -1;
        }
    }
    if (depth == 0 && m_root == Root::Array)
        m_inEventsArray = false;
}

const Capture *TraceReader::lastCapture(std::string_view key) const
{
    for (auto it = m_captures.rbegin(); it != m_captures.rend(); ++it)
        if (it->key == key && it->end >= 0)
            return &*it;
    return nullptr;
}

// Python's read_text() decodes the whole file before json.loads sees it: one bad byte anywhere
// makes the reference crash. The workbench replaces bad bytes (they can only sit inside strings
// of a valid document) with '?' so that simdjson, which insists on UTF-8, still reads the event.
void TraceReader::checkUtf8(bool eof)
{
    const qint64 dataEnd = m_bufBase + qint64(m_len);
    qint64 checkEnd = dataEnd;
    if (!eof) {
        // Leave a possibly incomplete sequence at the end for the next round.
        qint64 p = dataEnd;
        int back = 0;
        while (p > m_utf8From && back < 4) {
            const quint8 c = quint8(*at(p - 1));
            --p;
            ++back;
            if ((c & 0xC0) != 0x80) {  // a lead byte or ASCII
                int need = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
                if (need > back)
                    checkEnd = p;
                break;
            }
        }
    }
    if (checkEnd <= m_utf8From)
        return;
    char *begin = at(m_utf8From);
    const size_t length = size_t(checkEnd - m_utf8From);
    if (!simdjson::validate_utf8(begin, length)) {
        // Rare: walk the range, replacing each maximal invalid subsequence with '?'.
        size_t i = 0;
        auto *u = reinterpret_cast<unsigned char *>(begin);
        while (i < length) {
            const unsigned char c = u[i];
            if (c < 0x80) {
                ++i;
                continue;
            }
            size_t need = 0;
            unsigned cp = 0;
            unsigned minimum = 0;
            if ((c & 0xE0) == 0xC0) {
                need = 1;
                cp = c & 0x1F;
                minimum = 0x80;
            } else if ((c & 0xF0) == 0xE0) {
                need = 2;
                cp = c & 0x0F;
                minimum = 0x800;
            } else if ((c & 0xF8) == 0xF0) {
                need = 3;
                cp = c & 0x07;
                minimum = 0x10000;
            }
            bool ok = need > 0 && i + need < length + 1;
            size_t k = 1;
            for (; ok && k <= need; ++k) {
                if (i + k >= length || (u[i + k] & 0xC0) != 0x80) {
                    ok = false;
                    break;
                }
                cp = (cp << 6) | (u[i + k] & 0x3F);
            }
            if (ok && (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)))
                ok = false;
            if (ok) {
                i += need + 1;
                continue;
            }
            const qint64 offset = m_utf8From + qint64(i);
            if (m_firstInvalidUtf8Offset < 0) {
                m_firstInvalidUtf8Offset = offset;
                qint64 line;
                if (m_scanner.failed()) {
                    line = m_lineAtBase + std::count(at(m_bufBase), at(offset), '\n');
                } else {
                    // The scanner has counted lines up to the start of this round's new data.
                    const qint64 scanned = m_scanner.offset();
                    line = m_scanner.line();
                    if (offset >= scanned)
                        line += std::count(at(scanned), at(offset), '\n');
                    else
                        line -= std::count(at(offset), at(scanned), '\n');
                }
                m_firstInvalidUtf8Line = line;
                const size_t bad = std::max<size_t>(1, std::min(k, length - i));
                const bool endOfData = eof && need > 0 && i + k >= length;
                const QString reason = endOfData ? QStringLiteral("unexpected end of data")
                                       : need == 0 ? QStringLiteral("invalid start byte")
                                                   : QStringLiteral("invalid continuation byte");
                const qint64 position = offset + m_docSkip;
                m_utf8Reason = bad > 1 ? QStringLiteral("'utf-8' codec can't decode bytes in position %1-%2: %3")
                                             .arg(position)
                                             .arg(position + qint64(bad) - 1)
                                             .arg(reason)
                                       : QStringLiteral("'utf-8' codec can't decode byte 0x%1 in position %2: %3")
                                             .arg(c, 2, 16, QLatin1Char('0'))
                                             .arg(position)
                                             .arg(reason);
            }
            const size_t bad = std::max<size_t>(1, k);
            for (size_t b = 0; b < bad && i < length; ++b, ++i) {
                u[i] = '?';
                ++m_invalidUtf8Bytes;
            }
        }
    }
    m_utf8From = checkEnd;
}

void TraceReader::applyDeferred(std::vector<Deferred> &deferred)
{
    for (Deferred &d : deferred) {
        if (d.droppedEvent) {
            ++m_events;
            ++m_unreadableEvents;
            m_eventIssues.add(d.diagnostic.line, QStringLiteral("event larger than %1 MB skipped (both readings)")
                                                     .arg(kMaxEventBytes >> 20));
        } else {
            m_out.diagnostics.push_back(std::move(d.diagnostic));
        }
    }
    deferred.clear();
}

void TraceReader::processBatch(Batch &batch)
{
    applyDeferred(batch.deferred);
    const std::vector<EventSpan> &events = batch.events;
    size_t i = 0;
    size_t f = 0;
    while (i < events.size()) {
        if (events[i].preparsed) {
            const EventTokens &tokens = batch.fields[f++];
            EventFields &fields = m_fields;  // reused: tokens are read only where `have` says so
            fields.have = tokens.have;
            for (int k = 0; k < kEventKeyCount; ++k)
                if (tokens.have & (1u << k))
                    fields.token[k] = std::string_view(batch.at(events[i].begin + tokens.begin[k]), tokens.length[k]);
            if ((tokens.have & (1u << kArgsKey)) && fields.token[kArgsKey].size() == 1 &&
                fields.token[kArgsKey][0] == '{')  // the object, to the event's end
                fields.token[kArgsKey] = std::string_view(batch.at(events[i].begin + tokens.begin[kArgsKey]),
                                                          size_t(events[i].end - events[i].begin - tokens.begin[kArgsKey]));
            applyEvent(fields, events[i]);
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (j < events.size() && !events[j].preparsed && events[j].generation == events[i].generation)
            ++j;
        parseBatch(batch, i, j);
        i = j;
    }
}

void TraceReader::startWorker()
{
    m_worker = std::thread([this] {
        Batch batch;
        bool failed = false;
        while (m_queue.pop(batch)) {
            if (!failed) {
                try {
                    processBatch(batch);
                } catch (...) {
                    m_workerError = std::current_exception();
                    failed = true;
                    m_queue.fail();
                }
            }
            m_queue.recycle(std::move(batch));
        }
    });
}

void TraceReader::finishPipeline()
{
    stopWorker();
    if (m_workerError)
        std::rethrow_exception(std::exchange(m_workerError, nullptr));
    applyDeferred(m_deferred);
    m_deferDiagnostics = false;
}

/// Lets thread B finish what it was given (so that a cancelled or failed read leaves the same
/// state as the single-threaded reader did) and joins it. Safe to call more than once.
void TraceReader::stopWorker()
{
    if (!m_worker.joinable())
        return;
    m_queue.close();
    m_worker.join();
}

void TraceReader::submitBatch(qint64 keep, std::vector<Deferred> &&before, bool lastRound)
{
    const qint64 dataEnd = m_bufBase + qint64(m_len);
    const size_t kept = size_t(dataEnd - keep);
    Batch batch;
    batch.buf = std::move(m_buf);
    batch.capacity = m_capacity;
    batch.base = m_bufBase;
    batch.events.swap(m_pending);
    batch.fields.swap(m_fastFields);
    batch.deferred = std::move(before);

    // The second thread costs about 20 % more CPU in all (the bytes move between cores). When the
    // kernel-trace parser has the other core (loadRun), that loses on files up to ~100 MB and wins
    // little beyond, so the events are parsed right here until kPipelineAfterChunks chunks of the
    // document have been read (and always when the last data has been read).
    if (!m_worker.joinable() && (lastRound || dataEnd < m_pipelineFromOffset)) {
        processBatch(batch);
        m_buf = std::move(batch.buf);
        m_pending.swap(batch.events);
        m_pending.clear();
        m_fastFields.swap(batch.fields);
        m_fastFields.clear();
        if (kept > 0)
            std::memmove(m_buf.get() + 1, at(keep), kept);
        m_bufBase = keep;
        m_len = kept;
        return;
    }

    // A buffer for the next round: recycled if thread B has one, with the kept tail copied over.
    Batch next;
    if (!m_queue.takeFree(next)) {
        next.capacity = batch.capacity;
        next.buf = allocateByteBuffer(next.capacity);
    }
    if (next.capacity < 1 + kept) {
        next.capacity = std::max(batch.capacity, 1 + kept);
        next.buf = allocateByteBuffer(next.capacity);
    }
    if (kept > 0)
        std::memcpy(next.buf.get() + 1, batch.at(keep), kept);
    m_buf = std::move(next.buf);
    m_capacity = next.capacity;
    m_pending.swap(next.events);
    m_pending.clear();
    m_fastFields.swap(next.fields);
    m_fastFields.clear();
    m_bufBase = keep;
    m_len = kept;

    // Thread B parses every event of its batches with simdjson, as before the scanner located
    // members: the two threads then share the work evenly (thread A is the busier one, and
    // reading tokens scattered through a buffer filled on the other core costs thread B more than
    // simdjson's sequential pass). So the scanner stops locating members once thread B runs.
    if (!batch.fields.empty()) {
        for (EventSpan &span : batch.events)
            span.preparsed = false;
        batch.fields.clear();
    }
    if (!m_worker.joinable()) {
        m_scanner.setCapturedKeys(nullptr, 0);
        startWorker();
    }
    m_queue.push(std::move(batch));  // false: thread B failed; stopWorker() rethrows its error
}

// Parses events [first, last) of m_pending as one JSON array: the byte before the first event (a
// separator the scanner has already consumed, or the spare slot) becomes '[' and the byte after
// the last becomes ']'. One simdjson pass per round instead of one per event.
void TraceReader::parseBatch(Batch &batch, size_t first, size_t last)
{
    const std::vector<EventSpan> &pending = batch.events;
    char *open = batch.at(pending[first].begin) - 1;
    char *close = batch.at(pending[last - 1].end);
    const char savedOpen = *open;
    const char savedClose = *close;
    *open = '[';
    *close = ']';
    const size_t length = size_t(close + 1 - open);
    const size_t allocated = size_t(batch.buf.get() + batch.capacity - open);
    bool ok = true;
    size_t index = first;
    {
        auto doc = m_parser.iterate(open, length, allocated);
        simdjson::ondemand::array array;
        if (doc.get_array().get(array) != simdjson::SUCCESS) {
            ok = false;
        } else {
            for (auto element : array) {
                simdjson::ondemand::value value;
                if (element.get(value) != simdjson::SUCCESS || index >= last) {
                    ok = false;
                    break;
                }
                const EventSpan &span = pending[index];
                if (span.first == '{') {
                    simdjson::ondemand::object object;
                    if (value.get_object().get(object) != simdjson::SUCCESS) {
                        ok = false;
                        break;
                    }
                    handleEvent(object, span, batch.at(span.end));
                    if (m_batchError) {
                        ok = false;
                        break;
                    }
                } else {
                    ++m_events;
                    ++m_nonObjectEvents;
                }
                ++index;
            }
        }
    }
    *open = savedOpen;
    *close = savedClose;
    if (!ok) {
        // Rare (an event nested deeper than simdjson's limit): the events already counted stay,
        // the rest are parsed one by one so one bad event costs only itself.
        m_batchError = false;
        for (size_t k = index; k < last; ++k)
            parseOneEvent(batch, pending[k]);
    }
}

void TraceReader::parseOneEvent(const Batch &batch, const EventSpan &span)
{
    if (span.first != '{') {
        ++m_events;
        ++m_nonObjectEvents;
        return;
    }
    const size_t length = size_t(span.end - span.begin);
    if (m_scratchSize < length + kPadding) {
        m_scratchSize = length + kPadding;
        m_scratch.reset(new char[m_scratchSize]);
    }
    std::memcpy(m_scratch.get(), batch.at(span.begin), length);
    auto doc = m_parser.iterate(m_scratch.get(), length, m_scratchSize);
    simdjson::ondemand::object object;
    if (doc.get_object().get(object) == simdjson::SUCCESS) {
        handleEvent(object, span, m_scratch.get() + length);
        if (!m_batchError)
            return;
        m_batchError = false;
    }
    // The event was counted by handleEvent only if it got through; count it now.
    ++m_events;
    ++m_unreadableEvents;
    m_eventIssues.add(span.line,
                      QStringLiteral("event could not be read (nested deeper than %1 levels?); skipped")
                          .arg(kSimdjsonMaxDepth));
}

/// Does the raw key (bytes after the opening quote, no escapes in this event) equal `key`?
template <size_t N>
inline bool rawKeyIs(const char *raw, const char (&key)[N])
{
    return std::memcmp(raw, key, N - 1) == 0 && raw[N - 1] == '"';
}

/// The event's "pid" token as written (the process key of the GPU timeline's host busy).
std::string_view eventPid(const EventFields &fields)
{
    return (fields.have & (1u << kPidKey)) ? trimJson(fields.token[kPidKey]) : std::string_view();
}

bool isWaitForGpu(std::string_view name)
{
    // These ops block the host until the GPU catches up: the host is idle, not busy.
    return endsWithIgnoreCase(name, "synchronize") || name == "aten::item" || name == "aten::_local_scalar_dense";
}

} // namespace

bool TraceReader::collectFields(simdjson::ondemand::object object, bool escapes, const char *eventEnd,
                                EventFields &fields)
{
    for (auto fieldResult : object) {
        simdjson::ondemand::field field;
        if (std::move(fieldResult).get(field) != simdjson::SUCCESS)
            return false;
        int which = -1;  // 0 ph, 1 cat, 2 name, 3 ts, 4 dur, 5 args, 6 pid
        if (!escapes) {
            const char *raw = field.key().raw();
            switch (raw[0]) {
            case 'p': which = rawKeyIs(raw, "ph") ? 0 : rawKeyIs(raw, "pid") ? kPidKey : -1; break;
            case 'a': which = rawKeyIs(raw, "args") ? kArgsKey : -1; break;
            case 'c': which = rawKeyIs(raw, "cat") ? 1 : -1; break;
            case 'n': which = rawKeyIs(raw, "name") ? 2 : -1; break;
            case 't': which = rawKeyIs(raw, "ts") ? 3 : -1; break;
            case 'd': which = rawKeyIs(raw, "dur") ? 4 : -1; break;
            default: break;
            }
        } else {
            // Resolved by hand: simdjson rejects lone surrogates (\ud800) that Python keeps.
            const char *raw = field.key().raw();
            size_t length = 0;
            while (raw[length] != '"')
                length += raw[length] == '\\' ? 2 : 1;
            const std::string key = JsonScanner::unescape(std::string_view(raw, length));
            which = key == "ph" ? 0 : key == "cat" ? 1 : key == "name" ? 2 : key == "ts" ? 3 : key == "dur" ? 4
                  : key == "args" ? kArgsKey : key == "pid" ? kPidKey : -1;
        }
        if (which >= 0) {
            // Later duplicates win, as in a Python dict.
            fields.token[which] = field.value().raw_json_token();
            fields.have |= quint8(1u << which);
            if (which == kArgsKey && !fields.token[which].empty() && fields.token[which][0] == '{')
                fields.token[which] = std::string_view(fields.token[which].data(),
                                                       size_t(eventEnd - fields.token[which].data()));
        }
        // The value is skipped by the next iteration.
    }
    return true;
}

void TraceReader::handleEvent(simdjson::ondemand::object object, const EventSpan &span, const char *eventEnd)
{
    EventFields &fields = m_fields;
    fields.have = 0;
    if (!collectFields(object, span.escapes, eventEnd, fields)) {
        m_batchError = true;
        return;
    }
    applyEvent(fields, span);
}

void TraceReader::applyEvent(const EventFields &fields, const EventSpan &span)
{
    const std::string_view phToken = fields.token[0], catToken = fields.token[1], nameToken = fields.token[2],
                           tsToken = fields.token[3], durToken = fields.token[4];
    const bool havePh = fields.have & 1u, haveCat = fields.have & 2u, haveName = fields.have & 4u,
               haveTs = fields.have & 8u, haveDur = fields.have & 16u;
    const PyValue ph = havePh ? classify(phToken) : PyValue{};
    const PyValue cat = haveCat ? classify(catToken) : PyValue{};
    const PyValue name = haveName ? classify(nameToken) : PyValue{};
    const PyValue ts = haveTs ? classify(tsToken) : PyValue{};
    const PyValue dur = haveDur ? classify(durToken) : PyValue{};
    // Strings stay views into the buffer unless this event has escapes to resolve.
    std::string_view nameText, catText, phText;
    if (name.isString()) {
        if (span.escapes) {
            m_nameText = stringValue(name);
            nameText = m_nameText;
        } else {
            nameText = name.rawBody();
        }
    }
    if (cat.isString()) {
        if (span.escapes) {
            m_catText = stringValue(cat);
            catText = m_catText;
        } else {
            catText = cat.rawBody();
        }
    }
    if (ph.isString()) {
        if (span.escapes) {
            m_phText = stringValue(ph);
            phText = m_phText;
        } else {
            phText = ph.rawBody();
        }
    }

    ++m_events;

    // Reference: the events of the last "traceEvents" only (a later key replaces the dict entry).
    if (span.generation != m_ref.generation) {
        m_ref = ReferenceEvents{};
        m_ref.generation = span.generation;
    }
    m_ref.add(name, cat, ts, dur, nameText, catText);

    // Workbench.
    if (cat.isString() && (catText == "Operator" || catText == "Runtime" || catText == "Kernel"))
        m_sawOperatorCategory = true;
    const bool complete = ph.isString() && phText == "X";
    if (!complete)
        return;
    auto timeOf = [&](const PyValue &v, const char *what) -> std::optional<qint64> {
        if (v.kind == PyValue::Int || v.kind == PyValue::Float) {
            const bool literal = !v.raw.empty() && (v.raw[0] == 'N' || v.raw[0] == 'I' || (v.raw.size() > 1 && v.raw[1] == 'I'));
            if (literal) {
                ++m_nonFiniteTimeEvents;
                m_eventIssues.add(span.line, QStringLiteral("\"%1\" is %2 (a NaN/Infinity literal, not valid JSON); "
                                                            "event ignored")
                                                 .arg(QLatin1String(what))
                                                 .arg(QString::fromUtf8(v.raw.data(), qsizetype(v.raw.size()))));
                return std::nullopt;
            }
            if (auto ns = microsToNs(v))
                return ns;
        }
        const QString shown = v.kind == PyValue::Missing
                                  ? QStringLiteral("missing")
                                  : QStringLiteral("%1").arg(QString::fromUtf8(v.raw.data(), qsizetype(std::min<size_t>(v.raw.size(), 40))));
        m_eventIssues.add(span.line, QStringLiteral("complete event with unusable \"%1\" (%2); event ignored")
                                         .arg(QLatin1String(what), shown));
        return std::nullopt;
    };
    const std::optional<qint64> tsNs = timeOf(ts, "ts");
    if (!tsNs) {
        ++m_badTimeEvents;
        return;
    }
    const std::optional<qint64> durNs = timeOf(dur, "dur");
    if (!durNs) {
        ++m_badTimeEvents;
        return;
    }
    if (*durNs < 0) {
        ++m_badTimeEvents;
        m_eventIssues.add(span.line, QStringLiteral("complete event with negative \"dur\"; event ignored"));
        return;
    }
    const qint64 begin = *tsNs;
    const qint64 end = *tsNs + *durNs;
    m_spanBeginNs = std::min(m_spanBeginNs, begin);
    m_spanEndNs = std::max(m_spanEndNs, end);
    if (!cat.isString() || !name.isString())
        return;
    collectTimeline(fields, span, catText, nameText, begin, end);
    const bool cpuOp = catText == "cpu_op" || catText == "Operator";
    if (startsWith(nameText, "ProfilerStep#")) {
        // The CPU lane's step; the GPU lane repeats the name as gpu_user_annotation with the
        // duration of the GPU work, which is not the step time.
        if (catText == "user_annotation" || cpuOp) {
            m_steps.push_back({begin, end});  // kept apart: their count is the step count
            m_stepDurationSumNs += *durNs;
            m_gpu.addStep(nameText, begin, end, false);
            m_gpu.markStepProcess(eventPid(fields));  // the training process
        } else if (catText == "gpu_user_annotation") {
            ++m_gpuLaneSteps;
            m_gpu.addStep(nameText, begin, end, true);
        }
        return;
    }
    if (cpuOp) {
        if (isWaitForGpu(nameText)) {
            addInterval(m_wait, begin, end);
        } else {
            addInterval(m_busy, begin, end);
            m_gpu.addCpuOp(eventPid(fields), begin, end);  // the GPU timeline's host busy, per process
        }
        ++m_cpuOps;
    } else if (catText == "cuda_runtime" || catText == "Runtime") {
        m_runtimeStarts.push_back(begin);  // to check that the CPU operators cover the launches
    } else if (catText == "user_annotation" && startsWith(nameText, "Optimizer.step#")) {
        ++m_optimizerSteps;  // one per optimizer.step(): a step count when ProfilerStep is missing
    }
}

void TraceReader::collectTimeline(const EventFields &fields, const EventSpan &span, std::string_view catText,
                                  std::string_view nameText, qint64 begin, qint64 end)
{
    if (const std::optional<GpuEventKind> kind = kineto::gpuEventKind(catText)) {
        const kineto::DeviceStream where = (fields.have & (1u << kArgsKey))
                                               ? kineto::readDeviceStream(trimJson(fields.token[kArgsKey]))
                                               : kineto::DeviceStream{};
        if (where.device && where.stream)
            m_gpu.addDeviceEvent(*kind, nameText, *where.device, *where.stream, begin, end);
        else
            m_gpu.countUnplaced(span.line);
    } else if (catText == "gpu_user_annotation" && startsWith(nameText, "Optimizer.step")) {
        m_gpu.addStep(nameText, begin, end, true);
    }
    // ProfilerStep windows and the host's operators are collected in applyEvent(), where the
    // workbench reading sorts them. Host busy counts CPU operators only (cat cpu_op; Kineto 2021:
    // Operator), as the workbench's host-busy fraction does, without the ops that block until the
    // GPU catches up (synchronize, aten::item: the host waits, it does not work). user_annotation
    // spans are not operators: ProfilerStep covers the whole step, and record_function /
    // Optimizer.step spans cover regions whose real work is the operators nested in them (counted
    // themselves), so counting them would call the host busy through its launch gaps.
}

void TraceReader::endRound(bool lastRound)
{
    // The events of this round are parsed (by thread B) after what thread A reported so far
    // and before what it reports from here on, as when they were parsed right here.
    std::vector<Deferred> beforeEvents;
    const bool haveEvents = !m_pending.empty();
    if (haveEvents)
        beforeEvents.swap(m_deferred);
    const qint64 dataEnd = m_bufBase + qint64(m_len);
    if (m_openCapture >= 0)
        flushCaptures(dataEnd);
    if (m_inEvent && !m_dropEvent && size_t(dataEnd - m_current.begin) > kMaxEventBytes)
        m_dropEvent = true;
    qint64 keep = dataEnd;
    if (m_inEvent && !m_dropEvent && !m_scanner.failed())
        keep = std::min(keep, m_current.begin);
    keep = std::min(keep, m_utf8From);
    if (m_scanner.failed())
        m_lineAtBase += std::count(at(m_bufBase), at(keep), '\n');
    if (haveEvents) {
        submitBatch(keep, std::move(beforeEvents), lastRound);
    } else {
        const size_t kept = size_t(dataEnd - keep);
        if (kept > 0)
            std::memmove(m_buf.get() + 1, at(keep), kept);
        m_bufBase = keep;
        m_len = kept;
    }
}

void TraceReader::run()
{
    m_out.file.relativePath = m_name;
    m_out.file.format = QStringLiteral("kineto-json");
    ByteSource source;
    QString openError;
    if (!source.open(m_path, &openError)) {
        diag(Severity::Error, 0, QStringLiteral("cannot open the file: %1").arg(openError));
        m_out.reference.readFailed = true;
        m_out.reference.readFailure = openError;
        m_out.workbench.readFailed = true;
        m_out.workbench.readFailure = openError;
        return;
    }
    m_out.file.sizeBytes = source.fileSize();
    m_out.file.compressed = source.compressed();

    // Sized once so that neither the buffer nor simdjson's index reallocates (fresh pages cost a
    // fault each) unless an event is larger than a chunk.
    ensureCapacity(2 * m_chunkBytes + kPadding + 2);
    if (m_parser.allocate(2 * m_chunkBytes + 2, kSimdjsonMaxDepth) != simdjson::SUCCESS) {
        diag(Severity::Error, 0, QStringLiteral("out of memory for the JSON parser"));
        return;
    }
    planRanges(source);
    bool eof = false;
    bool firstRead = true;
    bool bom = false;
    m_deferDiagnostics = true;
    while (!eof) {
        size_t want = firstRead ? std::max<size_t>(m_chunkBytes, 4) : m_chunkBytes;  // room to see a BOM
        if (m_ranges)  // stop exactly where range 1 starts
            want = size_t(std::min<qint64>(qint64(want), m_rangeStart1 - (m_bufBase + qint64(m_len))));
        ensureCapacity(1 + m_len + want + kPadding + 1);
        char *dst = m_buf.get() + 1 + m_len;
        size_t n = source.read(dst, want);
        if (n == 0)
            eof = true;
        const bool shortRead = n < want;  // read() fills the whole request unless the data ended
        if (firstRead) {
            firstRead = false;
            if (n >= 3 && quint8(dst[0]) == 0xEF && quint8(dst[1]) == 0xBB && quint8(dst[2]) == 0xBF) {
                bom = true;
                m_docSkip = 3;
                std::memmove(dst, dst + 3, n - 3);
                n -= 3;
                diag(Severity::Warning, 1, QStringLiteral("the file starts with a UTF-8 byte order mark; the workbench "
                                                          "skips it, Python's json (the reference) rejects the file"));
            }
        }
        const qint64 newFrom = m_bufBase + qint64(m_len);
        m_len += n;
        checkUtf8(eof);
        if (n > 0 && !m_scanner.failed()) {
            if (m_scanner.feed(at(newFrom), n) == JsonScanner::Status::Error) {
                // From here on the rest of the file is only checked for UTF-8 (Python decodes the
                // whole file before parsing), so lines are counted here instead of by the scanner.
                m_lineAtBase = m_scanner.stopLine() - std::count(at(m_bufBase), at(m_scanner.stopOffset()), '\n');
            }
        }
        endRound(shortRead);
        if (m_ranges && m_bufBase + qint64(m_len) == m_rangeStart1) {
            if (!joinRanges(source)) {
                finishPipeline();
                m_out.cancelled = true;
                m_out.eventCount = m_events;
                return;
            }
            continue;
        }
        if (m_progress && (eof || source.rawBytesRead() - m_progressReported >= kProgressStepBytes)) {
            m_progressReported = source.rawBytesRead();
            if (!m_progress(m_progressReported)) {
                // Thread B finishes the (at most kQueuedBatches + 1) batches it was given, so the
                // partial result is the one the single-threaded reader left.
                finishPipeline();
                m_out.cancelled = true;
                m_out.eventCount = m_events;  // how far the read got
                return;
            }
        }
    }
    finishPipeline();
    if (!m_scanner.failed())
        m_scanner.finish();

    m_eventIssues.flush();
    m_out.eventCount = m_events;

    // Where the document breaks.
    if (!source.problem().isEmpty())
        diag(Severity::Error, m_scanner.line(), source.problem());
    if (source.trailingGarbage())
        diag(Severity::Warning, 0, QStringLiteral("bytes after the end of the gzip stream ignored"));
    if (m_scanner.failed()) {
        const QString where = pythonJsonMessage(m_scanner.errorMessage(), m_scanner.errorLine(),
                                                m_scanner.errorColumn(), m_scanner.errorOffset());
        if (m_scanner.errorIsDepthLimit())
            diag(Severity::Error, m_scanner.errorLine(),
                 QStringLiteral("JSON nested deeper than %1 levels; reading stopped here, %2 events read before are used")
                     .arg(JsonScanner::maxDepthLimit())
                     .arg(m_events));
        else if (m_events > 0)
            diag(Severity::Warning, m_scanner.errorLine(),
                 QStringLiteral("invalid or truncated JSON (%1); the %2 events before line %3 are used")
                     .arg(where)
                     .arg(m_events)
                     .arg(m_scanner.errorLine()));
        else
            diag(Severity::Error, m_scanner.errorLine(),
                 QStringLiteral("invalid or truncated JSON (%1); no event could be read").arg(where));
    }
    if (m_scanner.nonStandardLiterals() > 0)
        diag(Severity::Warning, m_scanner.firstNonStandardLine(),
             QStringLiteral("%1 NaN/Infinity literal(s), first at line %2: not valid JSON; Python's json module (the "
                            "reference) accepts them, the workbench ignores those values")
                 .arg(m_scanner.nonStandardLiterals())
                 .arg(m_scanner.firstNonStandardLine()));
    if (m_invalidUtf8Bytes > 0)
        diag(Severity::Warning, m_firstInvalidUtf8Line,
             QStringLiteral("%1 byte(s) that are not UTF-8, first at line %2; the workbench reads them as '?', the "
                            "reference would crash decoding the file")
                 .arg(m_invalidUtf8Bytes)
                 .arg(m_firstInvalidUtf8Line));
    if (m_root == Root::Scalar)
        diag(Severity::Error, 1, QStringLiteral("the document is a single JSON value, not a trace"));
    if (!m_scanner.failed() && m_events == 0 && (m_root == Root::Object || m_root == Root::Array)) {
        if (m_root == Root::Object && m_traceEventsKeys == 0)
            diag(Severity::Warning, 0, QStringLiteral("no \"traceEvents\" in the document: there are no events to read"));
        else if (m_root == Root::Array || m_lastTraceEventsIsList)
            diag(Severity::Warning, m_traceEventsLine, QStringLiteral("the trace holds no events"));
    }

    finishReference(bom, source.compressed());
    finishWorkbench();

    // The GPU timeline: rank from distributedInfo, else from the file name.
    std::optional<int> rank;
    if (const Capture *info = lastCapture("distributedInfo"); info && !info->overflow)
        rank = kineto::rankFromDistributedInfo(info->text);
    if (!rank)
        rank = kineto::rankFromFileName(QFileInfo(m_name).fileName());
    if (m_gpu.unplacedEvents() > 0)
        diag(Severity::Warning, m_gpu.firstUnplacedLine(),
             QStringLiteral("%1 GPU event(s) without a usable args.device and args.stream (the first at line %2) are "
                            "left out of the GPU timeline")
                 .arg(m_gpu.unplacedEvents())
                 .arg(m_gpu.firstUnplacedLine()));
    m_out.timeline.files.push_back(m_gpu.finish(QStringLiteral("torch_profile"), m_name, rank));
}

namespace {

/// _coerce_float: float(v) for numbers, bools and numeric strings; None otherwise.
std::optional<double> coerceFloat(const std::optional<PyValue> &v, bool *overflow)
{
    if (!v)
        return std::nullopt;
    switch (v->kind) {
    case PyValue::Bool:
    case PyValue::Int:
    case PyValue::Float:
        if (v->overflow)
            *overflow = true;
        return v->number;
    case PyValue::Str:
        return pythonFloat(stringValue(*v));
    default:
        return std::nullopt;
    }
}

} // namespace

void TraceReader::finishReference(bool bom, bool compressed)
{
    TorchReading &r = m_out.reference;
    auto crash = [&](const QString &what) {
        r.readFailed = true;
        r.readFailure = QStringLiteral("the reference would crash here: %1").arg(what);
    };
    if (m_mode == ReferenceMode::CrashesOnGzip && compressed) {
        diag(Severity::Warning, 0,
             QStringLiteral("the file is gzip-compressed although it is named .json: the workbench decompresses it, "
                            "the reference would crash reading it as text"));
        crash(QStringLiteral("UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b in position 1: invalid start "
                             "byte (the file is gzip-compressed; read_text() does not decompress)"));
        return;
    }
    if (m_invalidUtf8Bytes > 0) {
        crash(QStringLiteral("UnicodeDecodeError: %1").arg(m_utf8Reason));
        return;
    }
    if (bom) {
        r.readFailed = true;
        r.readFailure = QStringLiteral("Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)");
        return;
    }
    if (m_scanner.maxDepthSeen() > kPythonMaxNesting) {
        crash(QStringLiteral("RecursionError: maximum recursion depth exceeded while decoding a JSON array from a "
                             "unicode string (nesting %1 levels deep)")
                  .arg(m_scanner.maxDepthSeen()));
        diag(Severity::Warning, 0,
             QStringLiteral("JSON nested %1 levels deep: the reference (Python's json, at most %2 levels) would crash "
                            "on this file")
                 .arg(m_scanner.maxDepthSeen())
                 .arg(kPythonMaxNesting));
        return;
    }
    if (m_scanner.failed()) {
        r.readFailed = true;
        r.readFailure = pythonJsonMessage(m_scanner.errorMessage(), m_scanner.errorLine(), m_scanner.errorColumn(),
                                          m_scanner.errorOffset());
        return;
    }
    if (m_root != Root::Object)
        return;  // isinstance(data, dict) fails: metadata and events are None

    bool overflow = false;
    if (const Capture *meta = lastCapture("metadata")) {
        if (meta->overflow) {
            diag(Severity::Warning, meta->line,
                 QStringLiteral("the reference reading ignores the oversized \"metadata\" and may differ"));
        } else {
            ObjectMembers members;
            if (members.parse(meta->text)) {
                r.tokensPerSec = coerceFloat(members.get("tokens_per_sec"), &overflow);
                r.mfuPct = coerceFloat(members.get("mfu_pct"), &overflow);
                const std::optional<PyValue> pytorch = members.get("pytorch_version");
                const std::optional<PyValue> torch = members.get("torch_version");
                if (pytorch && pythonTruthy(*pytorch))
                    r.pytorchVersion = toQJsonValue(*pytorch);
                else if (torch && pythonTruthy(*torch))
                    r.pytorchVersion = toQJsonValue(*torch);
                r.stepTimeSeconds = coerceFloat(members.get("step_time_seconds"), &overflow);
                r.hostBusyFraction = coerceFloat(members.get("host_busy_fraction"), &overflow);
                if (r.stepTimeSeconds)
                    r.stepTimeSource = QStringLiteral("metadata step_time_seconds");
                if (r.hostBusyFraction)
                    r.hostBusySource = QStringLiteral("metadata host_busy_fraction");
            }
        }
    }
    if (overflow) {
        *(&r) = TorchReading{};
        crash(QStringLiteral("OverflowError: int too large to convert to float (a metadata value)"));
        diag(Severity::Warning, 0, QStringLiteral("a metadata number is too large for a double: the reference would crash"));
        return;
    }
    if (!m_lastTraceEventsIsList)
        return;
    const ReferenceEvents empty;
    const ReferenceEvents &events = m_ref.generation == m_lastTraceEventsGeneration ? m_ref : empty;
    if (!r.stepTimeSeconds) {
        if (events.stepPassOverflow) {
            r = TorchReading{};
            crash(QStringLiteral("OverflowError: int too large to convert to float (an event's ts or dur)"));
            diag(Severity::Warning, 0, QStringLiteral("an event's ts or dur is too large for a double: the reference "
                                                      "would crash"));
            return;
        }
        r.stepTimeSeconds = events.stepTime();
        if (events.stepCount > 0) {
            r.profilerSteps = int(events.stepCount);
            r.stepTimeSource = QStringLiteral("mean of %1 events named ProfilerStep* (CPU and GPU lanes alike)")
                                   .arg(events.stepCount);
        } else if (r.stepTimeSeconds) {
            r.stepTimeSource = QStringLiteral("trace span (no ProfilerStep events)");
        }
    }
    if (!r.hostBusyFraction) {
        if (events.hostPassOverflow) {
            r = TorchReading{};
            crash(QStringLiteral("OverflowError: int too large to convert to float (an event's ts or dur)"));
            diag(Severity::Warning, 0, QStringLiteral("an event's ts or dur is too large for a double: the reference "
                                                      "would crash"));
            return;
        }
        r.hostBusyFraction = events.hostBusy();
        if (r.hostBusyFraction)
            r.hostBusySource = QStringLiteral("sum of cpu_op durations (nested ops counted twice) / trace span");
    }
}

namespace {

struct MetadataNumber {
    std::optional<double> value;
    QString where;
};

} // namespace

void TraceReader::finishWorkbench()
{
    TorchReading &w = m_out.workbench;
    InputFileInfo &info = m_out.file;
    info.rowsRead = m_events;
    info.rowsSkipped = m_nonObjectEvents + m_unreadableEvents + m_badTimeEvents;
    const bool hasBaseTime = m_rootKeys.contains(QStringLiteral("baseTimeNanoseconds"));
    if (m_root == Root::Unknown || m_root == Root::Scalar)
        info.dialect = QStringLiteral("not a trace");
    else if (m_root == Root::Array)
        info.dialect = QStringLiteral("legacy top-level array (torch 1.x without Kineto)");
    else if (m_sawOperatorCategory)
        info.dialect = QStringLiteral("Kineto 2021 (Operator categories)");
    else if (hasBaseTime)
        info.dialect = QStringLiteral("Kineto 2024+ (baseTimeNanoseconds, relative µs)");
    else
        info.dialect = QStringLiteral("Kineto (absolute µs timestamps)");
    if (m_nonObjectEvents > 0)
        diag(Severity::Warning, 0, QStringLiteral("%1 entries of traceEvents are not objects; skipped").arg(m_nonObjectEvents));

    // Metadata: the "metadata" object (read by the reference) and top-level keys of the same name,
    // which prof.add_metadata_json() writes and the reference never looks at.
    ObjectMembers metadata;
    bool haveMetadata = false;
    qint64 metadataLine = 0;
    if (const Capture *meta = lastCapture("metadata")) {
        metadataLine = meta->line;
        if (!meta->overflow) {
            haveMetadata = metadata.parse(meta->text);
            if (!haveMetadata)
                diag(Severity::Warning, meta->line, QStringLiteral("top-level \"metadata\" is not an object; ignored"));
        }
    }
    auto numberFrom = [&](const std::optional<PyValue> &v, const QString &where, qint64 line,
                          double low, double high) -> std::optional<double> {
        if (!v || v->kind == PyValue::Null)
            return std::nullopt;
        double value = 0.0;
        if (v->kind == PyValue::Int || v->kind == PyValue::Float) {
            value = v->number;
            if (!std::isfinite(value)) {
                diag(Severity::Warning, line, QStringLiteral("%1 is %2, not a finite number; ignored")
                                                  .arg(where, QString::fromUtf8(v->raw.data(), qsizetype(v->raw.size()))));
                return std::nullopt;
            }
        } else if (v->kind == PyValue::Str) {
            const std::string text = stringValue(*v);
            const StrictNumber n = strictNumber(text);
            if (n.status != StrictNumber::Status::Ok) {
                diag(Severity::Warning, line, QStringLiteral("%1 is the string \"%2\", %3; ignored")
                                                  .arg(where, QString::fromStdString(text).left(60),
                                                       n.status == StrictNumber::Status::NonFinite
                                                           ? QStringLiteral("not a finite number")
                                                           : QStringLiteral("not a number")));
                return std::nullopt;
            }
            value = n.value;
        } else {
            diag(Severity::Warning, line, QStringLiteral("%1 is not a number (%2); ignored")
                                              .arg(where, QString::fromUtf8(v->raw.data(), qsizetype(std::min<size_t>(v->raw.size(), 60)))));
            return std::nullopt;
        }
        if (value < low || value > high) {
            diag(Severity::Warning, line, QStringLiteral("%1 = %2 is outside [%3, %4]; ignored")
                                              .arg(where)
                                              .arg(value)
                                              .arg(low)
                                              .arg(high));
            return std::nullopt;
        }
        return value;
    };
    auto metadataNumber = [&](const char *key, double low, double high) -> MetadataNumber {
        MetadataNumber result;
        if (haveMetadata) {
            result.value = numberFrom(metadata.get(key), QStringLiteral("metadata.%1").arg(QLatin1String(key)),
                                      metadataLine, low, high);
            result.where = QStringLiteral("metadata %1").arg(QLatin1String(key));
        }
        if (const Capture *loose = lastCapture(key)) {
            const std::optional<double> top =
                numberFrom(classify(loose->text), QStringLiteral("top-level %1").arg(QLatin1String(key)), loose->line,
                           low, high);
            if (!result.value) {
                result.value = top;
                result.where = QStringLiteral("top-level %1 (prof.add_metadata_json)").arg(QLatin1String(key));
            } else if (top && *top != *result.value) {
                diag(Severity::Info, loose->line,
                     QStringLiteral("top-level %1 = %2 differs from metadata.%1 = %3; the metadata object wins")
                         .arg(QLatin1String(key))
                         .arg(*top)
                         .arg(*result.value));
            }
        }
        return result;
    };
    const double inf = std::numeric_limits<double>::infinity();
    w.tokensPerSec = metadataNumber("tokens_per_sec", 0.0, inf).value;
    w.mfuPct = metadataNumber("mfu_pct", 0.0, 100.0).value;
    const MetadataNumber stepMeta = metadataNumber("step_time_seconds", 1e-9, inf);
    const MetadataNumber busyMeta = metadataNumber("host_busy_fraction", 0.0, 1.0);

    // PyTorch version: wherever a real trace or a user script put it.
    auto versionFrom = [&](const std::optional<PyValue> &v) -> QJsonValue {
        if (!v)
            return QJsonValue(QJsonValue::Undefined);
        if (v->kind == PyValue::Str) {
            const QString text = QString::fromStdString(stringValue(*v)).trimmed();
            return text.isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonValue(text);
        }
        if ((v->kind == PyValue::Int || v->kind == PyValue::Float) && std::isfinite(v->number) && v->number > 0) {
            const QString text = QString::fromUtf8(v->raw.data(), qsizetype(v->raw.size()));
            diag(Severity::Info, metadataLine, QStringLiteral("the PyTorch version is the number %1, read as text").arg(text));
            return QJsonValue(text);
        }
        return QJsonValue(QJsonValue::Undefined);
    };
    QJsonValue version(QJsonValue::Undefined);
    if (haveMetadata)
        version = versionFrom(metadata.get("pytorch_version"));
    if (version.isUndefined() && haveMetadata)
        version = versionFrom(metadata.get("torch_version"));
    for (const char *key : {"pytorch_version", "torch_version"})
        if (version.isUndefined())
            if (const Capture *loose = lastCapture(key))
                version = versionFrom(classify(loose->text));
    if (version.isUndefined() && haveMetadata) {
        // TraceLens-style traces: metadata.system.torch_env_info.torch_version.
        if (auto system = metadata.get("system"); system && system->kind == PyValue::Object) {
            ObjectMembers systemMembers;
            if (systemMembers.parse(system->raw)) {
                if (auto env = systemMembers.get("torch_env_info"); env && env->kind == PyValue::Object) {
                    ObjectMembers envMembers;
                    if (envMembers.parse(env->raw))
                        version = versionFrom(envMembers.get("torch_version"));
                }
            }
        }
    }
    w.pytorchVersion = version;

    // Step time: the training script's own number when it wrote one (it covers every step, the
    // trace only the profiler's active window), else the CPU lane's ProfilerStep windows, else the
    // span of the trace (one "step" = the whole capture).
    std::sort(m_steps.begin(), m_steps.end(), [](const Interval &a, const Interval &b) { return a.begin < b.begin; });
    if (m_steps.size() >= 2) {
        // The profiler closes the step that is open when it stops, so a trace often ends with a
        // ProfilerStep of a few µs that is not a training step at all.
        const Interval last = m_steps.back();
        const qint64 lastNs = last.end - last.begin;
        const double othersMeanNs = double(m_stepDurationSumNs - lastNs) / double(m_steps.size() - 1);
        if (double(lastNs) < 0.2 * othersMeanNs) {
            m_steps.pop_back();
            m_stepDurationSumNs -= lastNs;
            diag(Severity::Info, 0,
                 QStringLiteral("the last ProfilerStep lasts %1 µs against %2 µs for the others: the profiler stopped "
                                "during it, so it is left out of the step time")
                     .arg(double(lastNs) / 1e3, 0, 'f', 3)
                     .arg(othersMeanNs / 1e3, 0, 'f', 3));
        }
    }
    w.profilerSteps = int(m_steps.size());
    std::optional<double> stepsMean;
    if (!m_steps.empty())
        stepsMean = double(m_stepDurationSumNs) / double(m_steps.size()) / 1e9;
    const bool haveSpan = m_spanEndNs > m_spanBeginNs;
    if (stepMeta.value) {
        w.stepTimeSeconds = stepMeta.value;
        w.stepTimeSource = QStringLiteral("%1 (written by the training script)").arg(stepMeta.where);
        if (stepsMean && std::fabs(*stepsMean - *stepMeta.value) > 0.05 * *stepMeta.value)
            diag(Severity::Info, 0,
                 QStringLiteral("the trace's %1 ProfilerStep events average %2 s, the metadata says %3 s; the metadata "
                                "wins")
                     .arg(m_steps.size())
                     .arg(*stepsMean, 0, 'g', 6)
                     .arg(*stepMeta.value, 0, 'g', 6));
    } else if (stepsMean) {
        w.stepTimeSeconds = stepsMean;
        w.stepTimeSource = QStringLiteral("mean of %1 ProfilerStep event(s) on the CPU lane").arg(m_steps.size());
    } else if (haveSpan && m_optimizerSteps > 1) {
        // Without a profiler schedule there are no ProfilerStep events, but torch records one
        // Optimizer.step#… annotation per optimizer step: the capture holds about that many steps.
        w.stepTimeSeconds = double(m_spanEndNs - m_spanBeginNs) / 1e9 / double(m_optimizerSteps);
        w.stepTimeSource = QStringLiteral("trace span / %1 Optimizer.step annotations (no ProfilerStep events)")
                               .arg(m_optimizerSteps);
        diag(Severity::Warning, 0,
             QStringLiteral("no ProfilerStep events on the CPU lane (the profiler ran without a schedule?) and no "
                            "metadata step_time_seconds: the step time is the trace span divided by the %1 "
                            "optimizer steps in it")
                 .arg(m_optimizerSteps));
    } else if (haveSpan) {
        w.stepTimeSeconds = double(m_spanEndNs - m_spanBeginNs) / 1e9;
        w.stepTimeSource = QStringLiteral("trace span (no ProfilerStep events on the CPU lane)");
        diag(Severity::Warning, 0,
             QStringLiteral("no ProfilerStep events on the CPU lane (the profiler ran without a schedule?) and no "
                            "metadata step_time_seconds: the whole trace span is taken as one step"));
    }

    // Host busy: the time the CPU spends inside operators, as the union of their intervals (nested
    // ops count once), minus the time they spend waiting for the GPU, within the ProfilerStep windows.
    Intervals windows = m_steps;
    mergeIntervals(windows);
    QString windowText;
    if (windows.empty() && haveSpan) {
        windows.push_back({m_spanBeginNs, m_spanEndNs});
        windowText = QStringLiteral("the trace span");
    } else {
        windowText = QStringLiteral("%1 ProfilerStep window(s)").arg(m_steps.size());
    }
    std::optional<double> computedBusy;
    const qint64 cpuOps = m_cpuOps;
    if (!windows.empty() && cpuOps > 0) {
        mergeIntervals(m_busy);
        mergeIntervals(m_wait);
        const Intervals busyInWindows = intersectIntervals(m_busy, windows);
        const Intervals waiting = intersectIntervals(busyInWindows, m_wait);
        const qint64 windowNs = measure(windows);
        if (windowNs > 0)
            computedBusy = double(measure(busyInWindows) - measure(waiting)) / double(windowNs);
        if (busyInWindows.empty())
            diag(Severity::Warning, 0,
                 QStringLiteral("none of the %1 CPU operators runs inside %2, so host busy reads 0")
                     .arg(cpuOps)
                     .arg(windowText));
        // Every kernel launch runs inside some operator when torch recorded CPU ops fully; launches
        // outside any operator mean the ops are sparse and the union understates the host's work.
        Intervals ops = m_busy;
        ops.insert(ops.end(), m_wait.begin(), m_wait.end());
        mergeIntervals(ops);
        qint64 covered = 0;
        qint64 launches = 0;
        m_rangeRuntimeStarts.push_back(std::move(m_runtimeStarts));
        for (const std::vector<qint64> &starts : m_rangeRuntimeStarts) {
            launches += qint64(starts.size());
            for (const qint64 start : starts) {
                auto it = std::upper_bound(ops.begin(), ops.end(), start,
                                           [](qint64 t, const Interval &i) { return t < i.begin; });
                if (it != ops.begin() && start < std::prev(it)->end)
                    ++covered;
            }
        }
        if (launches >= 10 && covered * 2 < launches)
            diag(Severity::Warning, 0,
                 QStringLiteral("only %1 of %2 runtime calls (kernel launches, copies) run inside a CPU operator: the "
                                "trace holds few CPU operators, so the host busy time read from them is too low")
                     .arg(covered)
                     .arg(launches));
    }
    if (busyMeta.value) {
        w.hostBusyFraction = busyMeta.value;
        w.hostBusySource = QStringLiteral("%1 (written by the training script)").arg(busyMeta.where);
        if (computedBusy && std::fabs(*computedBusy - *busyMeta.value) > 0.05)
            diag(Severity::Info, 0,
                 QStringLiteral("the trace's CPU operators give host busy %1, the metadata says %2; the metadata wins")
                     .arg(*computedBusy, 0, 'f', 3)
                     .arg(*busyMeta.value, 0, 'f', 3));
    } else if (computedBusy) {
        w.hostBusyFraction = computedBusy;
        w.hostBusySource = QStringLiteral("union of %1 CPU operator intervals (nested ops once, waits for the GPU "
                                          "excluded) / %2")
                               .arg(cpuOps)
                               .arg(windowText);
    } else if (m_events > 0) {
        diag(Severity::Warning, 0,
             QStringLiteral("no CPU operator events (cat cpu_op or Operator) and no metadata host_busy_fraction: "
                            "host busy is unknown"));
    }
}

namespace {

TorchTrace readFile(const QString &path, const QString &displayName, ReferenceMode mode,
                    const ProgressCallback &progress, size_t chunkBytes = kDefaultChunkBytes,
                    qint64 rangeBytes = kDefaultRangeBytes)
{
    TorchTrace out;
    out.referenceFileFound = true;
    TraceReader reader(path, displayName, mode, progress, chunkBytes, rangeBytes, out);
    reader.run();
    return out;
}

} // namespace

TorchTrace parseTorchTraceFile(const QString &path, const QString &displayName, const ProgressCallback &progress)
{
    return readFile(path, displayName, ReferenceMode::AsJson, progress);
}

TorchTrace parseTorchTraceFile(const QString &path, const QString &displayName, const ProgressCallback &progress,
                               size_t chunkBytes)
{
    return readFile(path, displayName, ReferenceMode::AsJson, progress, chunkBytes, 0);
}

TorchTrace parseTorchTraceFile(const QString &path, const QString &displayName, const ProgressCallback &progress,
                               size_t chunkBytes, qint64 rangeBytes)
{
    return readFile(path, displayName, ReferenceMode::AsJson, progress, chunkBytes, rangeBytes);
}

namespace {

/// The GPU timelines of the run folder's other chrome traces (one per rank), after the primary's.
/// Progress goes on counting from the primary's bytes; a cancel stops here too.
void addOtherTimelines(const QString &runDir, const QString &primary,
                       const std::vector<kineto::FoundTrace> &found, const ProgressCallback &progress,
                       TorchTrace &out)
{
    if (out.cancelled)
        return;
    const QDir dir(runDir);
    qint64 before = out.file.sizeBytes;
    for (const kineto::FoundTrace &trace : found) {
        if (trace.relativePath == primary)
            continue;
        ProgressCallback onward;
        if (progress)
            onward = [&progress, before](qint64 done) { return progress(before + done); };
        TorchTrace other =
            readFile(dir.filePath(trace.relativePath), trace.relativePath, ReferenceMode::AsJson, onward);
        before += other.file.sizeBytes;
        for (Diagnostic &d : other.diagnostics)
            out.diagnostics.push_back(std::move(d));
        if (other.cancelled) {
            out.cancelled = true;
            return;
        }
        for (GpuTimelineFile &file : other.timeline.files)
            out.timeline.files.push_back(std::move(file));
    }
}

} // namespace

TorchTrace parseTorchTrace(const QString &runDir, const ProgressCallback &progress)
{
    const QDir dir(runDir);
    const QString referencePath = dir.filePath(kTorchFile);
    const QFileInfo referenceInfo(referencePath);
    Diagnostics notes;
    TorchReading referenceFailure;
    const bool referenceExists = referenceInfo.exists();
    // Every chrome trace of the folder, by content (a rank each in multi-GPU jobs).
    const std::vector<kineto::FoundTrace> found = kineto::findChromeTraces(runDir);
    if (referenceExists && referenceInfo.isFile() && referenceInfo.isReadable()) {
        TorchTrace out = readFile(referencePath, kTorchFile, ReferenceMode::CrashesOnGzip, progress);
        out.referenceFileFound = true;
        addOtherTimelines(runDir, kTorchFile, found, progress, out);
        return out;
    }
    if (referenceExists) {
        // Path.read_text() raises OSError, which the reference catches: a warning, nothing read.
        referenceFailure.readFailed = true;
        const QString special = specialFileProblem(referencePath);
        referenceFailure.readFailure =
            referenceInfo.isDir() ? QStringLiteral("[Errno 21] Is a directory: '%1'").arg(referencePath)
            : !special.isEmpty()  ? QStringLiteral("'%1' %2").arg(referencePath, special)
                                  : QStringLiteral("[Errno 13] Permission denied: '%1'").arg(referencePath);
    }

    // The workbench also takes what tensorboard_trace_handler writes.
    QString chosen;
    const QFileInfo gz(dir.filePath(QStringLiteral("torch_profile.json.gz")));
    if (gz.isFile()) {
        chosen = gz.fileName();
    } else {
        QFileInfoList candidates =
            dir.entryInfoList({QStringLiteral("*.pt.trace.json"), QStringLiteral("*.pt.trace.json.gz")}, QDir::Files);
        std::sort(candidates.begin(), candidates.end(), [](const QFileInfo &a, const QFileInfo &b) {
            if (a.lastModified() != b.lastModified())
                return a.lastModified() > b.lastModified();
            if (a.size() != b.size())
                return a.size() > b.size();
            return a.fileName() < b.fileName();
        });
        if (!candidates.isEmpty()) {
            chosen = candidates.front().fileName();
            if (candidates.size() > 1) {
                QStringList others;
                for (qsizetype i = 1; i < candidates.size(); ++i)
                    others << candidates[i].fileName();
                notes.push_back({Severity::Warning, chosen, 0,
                                 QStringLiteral("%1 torch traces in the run folder; read the newest (%2), not %3")
                                     .arg(candidates.size())
                                     .arg(chosen, others.join(QStringLiteral(", ")))});
            }
        } else if (!found.empty()) {
            // Traces named otherwise (`sampled_rank-0.json.gz`, `rank-3.json.gz`, in a sub-folder…),
            // recognised by their content: the lowest rank's is read (found is in rank order).
            chosen = found.front().relativePath;
        }
    }
    if (referenceExists) {
        const QString special = specialFileProblem(referencePath);
        const QString problem = referenceInfo.isDir() ? QStringLiteral("torch_profile.json is a folder, not a file")
                                : !special.isEmpty()  ? QStringLiteral("torch_profile.json %1").arg(special)
                                                      : QStringLiteral("torch_profile.json cannot be read");
        notes.push_back({Severity::Error, kTorchFile, 0,
                         chosen.isEmpty() ? problem
                                          : QStringLiteral("%1; the workbench reads %2 instead").arg(problem, chosen)});
    }
    TorchTrace out;
    if (!chosen.isEmpty()) {
        out = readFile(dir.filePath(chosen), chosen, ReferenceMode::AsJson, progress);
    } else {
        notes.push_back({Severity::Warning, kTorchFile, 0,
                         QStringLiteral("no torch_profile.json, torch_profile.json.gz or *.pt.trace.json[.gz] in the "
                                        "run folder")});
    }
    out.reference = referenceFailure;
    out.referenceFileFound = referenceExists;
    out.diagnostics.insert(out.diagnostics.begin(), notes.begin(), notes.end());
    addOtherTimelines(runDir, chosen, found, progress, out);
    return out;
}

} // namespace goblin
