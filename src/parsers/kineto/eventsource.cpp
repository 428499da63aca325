// The torch trace's event source: reading rounds (thread A), JsonScanner's sink (root keys,
// generations of "traceEvents", events, top-level captures), and run(), which drives it all and
// says where the document breaks.
#include "kineto/rangejobs.h"

#include <algorithm>
#include <cstring>
#include "syntax/bytesearch.h"  // countNewlines

namespace goblin::kineto {

TraceReader::TraceReader(io::ByteOrigin origin, QString displayName, ReferenceMode mode,
                         const ProgressCallback &progress, size_t chunkBytes, qint64 rangeBytes,
                         std::span<const ConsumerMaker> makers, TorchTrace &out)
    : m_origin(std::move(origin)), m_name(std::move(displayName)), m_mode(mode), m_progress(progress),
      m_chunkBytes(chunkFor(m_origin, chunkBytes)), m_rangeBytes(rangeBytes), m_out(out),
      m_pipelineFromOffset(kPipelineAfterChunks * qint64(m_chunkBytes)),
      m_scanner(*this), m_eventIssues(out.diagnostics, m_name, QStringLiteral("unusable events")), m_makers(makers)
{
    m_scanner.setCapturedKeys(kEventKeys, kEventKeyCount);
    m_scanner.setNestedCapturedKeys(kArgsKey, kArgKeys, kArgKeyCount);
    const ConsumerContext context{m_name, m_eventIssues};
    m_consumers.reserve(makers.size());
    for (const ConsumerMaker make : makers)
        m_consumers.push_back(make(context));
}

TraceReader::~TraceReader()
{
    m_ranges.reset();
    stopWorker();
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
            tokens.duplicated = members->duplicated;
            for (unsigned have = members->have; have; have &= have - 1) {
                const int k = __builtin_ctz(have);
                tokens.begin[k] = quint32(members->begin[k] - m_current.begin);
                tokens.length[k] = quint32(members->end[k] - members->begin[k]);
            }
            // Args that repeat a located member are searched by the readers themselves, where the
            // repetition is found and said (EventFields::argDuplicated), on both paths alike.
            tokens.argsScanned = members->nestedScanned && !members->nestedDuplicated &&
                                 (members->have & (1u << kArgsKey));
            tokens.argHave = 0;
            if (tokens.argsScanned) {
                const qint64 argsBegin = members->begin[kArgsKey];
                for (unsigned have = members->nestedHave; have; have &= have - 1) {
                    const int k = __builtin_ctz(have);
                    const qint64 from = members->nestedBegin[k] - argsBegin;
                    const qint64 length = members->nestedEnd[k] - members->nestedBegin[k];
                    if (from > 0xffff || length > 0xffff) {
                        tokens.argsScanned = false;  // the readers search this one themselves
                        break;
                    }
                    tokens.argHave |= quint8(1u << k);
                    tokens.argBegin[k] = quint16(from);
                    tokens.argLength[k] = quint16(length);
                }
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

void TraceReader::endRound(bool lastRound)
{
    // The events of this round are parsed (by thread B) after what thread A reported so far
    // and before what it reports from here on, as when they were parsed right here.
    std::vector<Deferred> beforeEvents;
    const bool haveEvents = !m_pending.empty();
    if (haveEvents)
        beforeEvents.swap(m_deferred);
    const qint64 dataEnd = m_bufBase + qint64(m_len);
    if (m_openCapture >= 0)  // not the bytes checkUtf8() left for the next round: they are not repaired yet
        flushCaptures(std::min(dataEnd, m_utf8From));
    if (m_inEvent && !m_dropEvent && size_t(dataEnd - m_current.begin) > kMaxEventBytes)
        m_dropEvent = true;
    qint64 keep = dataEnd;
    if (m_inEvent && !m_dropEvent && !m_scanner.failed())
        keep = std::min(keep, m_current.begin);
    keep = std::min(keep, m_utf8From);
    if (m_scanner.failed())
        m_lineAtBase += syntax::countNewlines(at(m_bufBase), at(keep));
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
    io::ByteSource source;
    QString openError;
    if (!source.open(m_origin, &openError)) {
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
        size_t n = readInput(source, dst, want);
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
                m_lineAtBase = m_scanner.stopLine() - syntax::countNewlines(at(m_bufBase), at(m_scanner.stopOffset()));
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
        if (m_progress && (eof || m_throttle.due(input(source).rawBytesRead()))) {
            if (!m_throttle.report(input(source).rawBytesRead(), true)) {
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
    finishDuplicatedMembers();
    m_out.eventCount = m_events;

    // Where the document breaks.
    if (!input(source).problem().isEmpty())
        diag(Severity::Error, m_scanner.line(), input(source).problem());
    if (input(source).trailingGarbage())
        diag(Severity::Warning, 0, QStringLiteral("bytes after the end of the gzip stream ignored"));
    if (m_scanner.failed()) {
        const QString where = syntax::pythonJsonMessage(m_scanner.errorMessage(), m_scanner.errorLine(),
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

    finishConsumers(bom, source.compressed());
}

void TraceReader::finishConsumers(bool bom, bool compressed)
{
    KinetoDocument document;
    document.name = m_name;
    document.mode = m_mode;
    document.bom = bom;
    document.compressed = compressed;
    document.invalidUtf8Bytes = m_invalidUtf8Bytes;
    document.utf8Reason = m_utf8Reason;
    document.scanner = &m_scanner;
    document.root = m_root;
    document.rootKeys = m_rootKeys;
    document.lastTraceEventsIsList = m_lastTraceEventsIsList;
    document.lastTraceEventsGeneration = m_lastTraceEventsGeneration;
    document.events = m_events;
    document.nonObjectEvents = m_nonObjectEvents;
    document.scalarEvents = m_scalarEvents;
    document.unreadableEvents = m_unreadableEvents;
    document.captures = &m_captures;
    for (const std::unique_ptr<EventConsumer> &consumer : m_consumers)
        consumer->finish(document, m_out);
}

} // namespace goblin::kineto
