// Byte ranges: planning them, reading one, and merging those that count into the main reader.
#include "kineto/rangejobs.h"

#include "io/rangeplan.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <utility>

namespace goblin::kineto {

bool RangeJobs::takeSegment(size_t &k)
{
    std::lock_guard lock(feedMutex);
    if (cancel || segmentsDone) {
        segmentsDone = true;
        return false;
    }
    k = produced.load();
    // Room past the nominal end to find the cut in (a cut is usually within a few hundred bytes).
    const size_t want = size_t(segmentBytes + std::max<qint64>(segmentBytes / 8, 4096));
    Segment bytes;
    if (!segmentPool.empty()) {
        bytes = std::move(segmentPool.back());
        segmentPool.pop_back();
    }
    // The reader's layout: a spare byte before the data (for its '['), padding after (simdjson).
    const size_t needed = 1 + std::max(want, carry.size()) + kPadding + 1;
    if (bytes.capacity < needed) {
        bytes.capacity = needed;
        bytes.data = allocateByteBuffer(bytes.capacity);
    }
    char *const data = bytes.data.get() + 1;
    if (!carry.empty())
        std::memcpy(data, carry.data(), carry.size());
    bytes.size = carry.size();
    carry.clear();
    if (bytes.size < want) {
        bytes.size += stream->read(data + bytes.size, want - bytes.size);
        feedRaw = stream->rawBytesRead();
    }
    bool last = bytes.size < want;  // the stream ended in this segment
    if (!last) {
        const qint64 cut = k + 1 < starts.size() ? io::findElementStart(data, qint64(bytes.size), segmentBytes) : -1;
        if (cut > 0) {
            carry.assign(data + cut, data + bytes.size);
            bytes.size = size_t(cut);
            starts[k + 1] = starts[k] + cut;
            published = k + 2;
        } else {
            // No cut in sight (or as many ranges as planned): the chain of ranges ends here and
            // the main reader reads on from the last confirmed cut by itself.
            last = true;
            stream.reset();
        }
    }
    jobs[k].segment = std::move(bytes);
    if (last) {
        lastSegment = k;
        segmentsDone = true;
    }
    produced = k + 1;
    return true;
}

void TraceReader::planSegments()
{
    // A compressed trace: the first segment's bytes, inflated once more on a stream of the
    // ranges' own (a few ms), show where range 1 starts.
    auto jobs = std::make_unique<RangeJobs>();
    jobs->stream = std::make_unique<io::ByteSource>();
    QString error;
    if (!jobs->stream->open(m_origin, &error) || !jobs->stream->compressed())
        return;
    // 1 MB with the default 32 MB ranges: a segment is still in cache when its reader copies it,
    // and two threads hold a few of them (0.9 GB .json.gz, docs/performance.md: 0.5 MB segments
    // 0.92 s, 1 MB 0.89 s, 2 MB 0.87 s in 64 MiB, 8 MB 0.93 s in 75 MiB, 32 MB 1.05 s in 95 MiB).
    jobs->segmentBytes = std::max<qint64>(1, m_rangeBytes / 32);
    std::vector<char> head(size_t(jobs->segmentBytes + std::max<qint64>(jobs->segmentBytes / 8, 4096)));
    const size_t n = jobs->stream->read(head.data(), head.size());
    if (n < head.size())
        return;  // small: one reader
    size_t i = 0;
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
        ++i;
    if (i >= n || head[i] != '{')
        return;  // not an object at the root, or a byte order mark: offsets would not be the file's
    const qint64 cut = io::findElementStart(head.data(), qint64(n), jobs->segmentBytes);
    if (cut <= 0)
        return;
    jobs->carry.assign(head.begin() + cut, head.begin() + qint64(n));
    // Up to 4096 ranges (32 GB of JSON at the default size); beyond, the main reader reads on.
    constexpr size_t kMaxSegments = 4096;
    jobs->segmented = true;
    jobs->starts.assign(kMaxSegments + 1, 0);
    jobs->starts[1] = cut;
    jobs->published = 2;
    jobs->jobs.resize(kMaxSegments + 1);
    jobs->jobDone.assign(kMaxSegments + 1, 0);
    jobs->feedRaw = jobs->stream->rawBytesRead();
    jobs->origin = m_origin;
    jobs->name = m_name;
    jobs->mode = m_mode;
    jobs->makers = m_makers;
    jobs->chunkBytes = m_chunkBytes;
    m_rangeStart1 = cut;
    m_pipelineFromOffset = std::numeric_limits<qint64>::max();  // the ranges take the other cores
    jobs->startHelpers();
    m_ranges = std::move(jobs);
}

size_t TraceReader::readInput(io::ByteSource &source, char *dst, size_t want)
{
    if (m_inputLost)
        return 0;
    if (m_tailPos < m_tail.size()) {
        const size_t n = std::min(want, m_tail.size() - m_tailPos);
        std::memcpy(dst, m_tail.data() + m_tailPos, n);
        m_tailPos += n;
        if (m_tailPos == m_tail.size())
            std::vector<char>().swap(m_tail);
        return n < want ? n + input(source).read(dst + n, want - n) : n;
    }
    return input(source).read(dst, want);
}

void TraceReader::planRanges(io::ByteSource &source)
{
    if (source.compressed()) {
        m_pipelineFromOffset = kCompressedPipelineAfterChunks * qint64(m_chunkBytes);
        if (m_rangeBytes > 0 && std::thread::hardware_concurrency() >= 2)
            planSegments();
        return;
    }
    if (m_rangeBytes <= 0 || source.fileSize() < m_rangeBytes + m_rangeBytes / 2)
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
    // The last few ranges are smaller (a quarter): the threads then finish within a small range
    // of each other instead of one waiting up to a whole range for the other.
    const qint64 size = source.fileSize();
    const auto stepAt = [&](qint64 at) { return size - at > 3 * m_rangeBytes ? m_rangeBytes : std::max<qint64>(1, m_rangeBytes / 4); };
    for (qint64 nominal = m_rangeBytes; nominal + stepAt(nominal) / 2 <= size; nominal += stepAt(nominal)) {
        const qint64 start = io::findElementStart(source, nominal);
        if (start > jobs->starts.back())
            jobs->starts.push_back(start);
    }
    if (jobs->starts.size() < 2)
        return;
    jobs->origin = m_origin;
    jobs->name = m_name;
    jobs->mode = m_mode;
    jobs->makers = m_makers;
    jobs->chunkBytes = m_chunkBytes;
    jobs->jobs.resize(jobs->starts.size());
    jobs->jobDone.assign(jobs->starts.size(), 0);
    m_rangeStart1 = jobs->starts[1];
    m_pipelineFromOffset = std::numeric_limits<qint64>::max();  // the ranges take the other cores
    jobs->startHelpers();
    m_ranges = std::move(jobs);
}

bool TraceReader::reportProgress(qint64 done)
{
    return m_throttle.report(done);
}

bool TraceReader::joinRanges(io::ByteSource &source)
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
        if (jobs->segmented)
            return std::max(source.rawBytesRead(), jobs->feedRaw.load());
        return std::min(source.fileSize(), source.rawBytesRead() + jobs->bytesDone.load());
    };
    // Follow the confirmed cuts from range 1, absorbing each range as soon as it and those before
    // it are read: a range's reader (its consumers' state) goes as soon as it counts, so the
    // readers waiting at any time are few, however many ranges a compressed trace has.
    JsonScanner::Resume resume;
    resume.line = m_scanner.line();
    resume.lineStart = m_scanner.lineStart();
    int counted = 0;
    size_t chainAt = 1;
    bool chainOpen = true;
    const auto absorbReady = [&] {
        while (chainOpen) {
            {
                std::lock_guard lock(jobs->mutex);
                if (chainAt >= jobs->jobDone.size() || !jobs->jobDone[chainAt])
                    return;
            }
            RangeJobs::Job &job = jobs->jobs[chainAt];
            if (!job.end.usable || !job.reader) {
                chainOpen = false;
                return;
            }
            const JsonScanner::Resume &r = job.end.resume;
            if (r.line > 1)
                resume.lineStart = r.lineStart;
            resume.line += r.line - 1;
            resume.offset = r.offset;
            resume.afterElement = r.afterElement;
            resume.escapes += r.escapes;
            resume.maxDepth = std::max(resume.maxDepth, r.maxDepth);
            absorb(*job.reader);
            ++counted;
            job.reader.reset();
            job.trace.reset();
            if (job.end.nextIndex < 0) {
                chainOpen = false;
                return;
            }
            chainAt = size_t(job.end.nextIndex);
        }
    };
    while (jobs->runNext()) {
        absorbReady();
        if (!reportProgress(done())) {
            jobs->stop();
            return false;
        }
    }
    while (!jobs->waitAll(std::chrono::milliseconds(20))) {
        absorbReady();
        if (!reportProgress(done())) {
            jobs->stop();
            return false;
        }
    }
    jobs->stop();
    absorbReady();

    // The ranges are read: their threads' buffers and simdjson parsers (tens of MB) go.
    {
        std::lock_guard lock(jobs->mutex);
        jobs->spare.clear();
    }
    // A compressed trace goes on after the ranges from the last segment's bytes, and then from
    // the ranges' stream (at its end), when the ranges reached that segment; else the main
    // reader's own stream skips forward (inflating once more what the ranges read).
    bool onTail = false;
    if (jobs->segmented && counted > 0 && jobs->lastSegment > 0 && jobs->stream &&
        resume.offset >= jobs->starts[jobs->lastSegment]) {
        const RangeJobs::Segment &last = jobs->jobs[jobs->lastSegment].segment;
        const size_t from = size_t(resume.offset - jobs->starts[jobs->lastSegment]);
        if (from <= last.size) {
            m_tail.assign(last.data.get() + 1 + from, last.data.get() + 1 + last.size);
            m_tailPos = 0;
            m_tailSource = std::move(jobs->stream);
            onTail = true;
        }
    }
    if (counted > 0) {
        if (!onTail && !source.seek(resume.offset)) {
            // The ranges read these bytes, so the input has them: only a failing disk gets here.
            diag(Severity::Error, resume.line,
                 QStringLiteral("cannot go on reading at byte %1 after the ranges read in parallel: %2")
                     .arg(resume.offset)
                     .arg(source.problem().isEmpty() ? QStringLiteral("the input is shorter") : source.problem()));
            m_inputLost = true;  // the document then ends here (and says so)
        }
        m_out.parallelRanges = counted;
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
    m_events += range.m_events;
    m_nonObjectEvents += range.m_nonObjectEvents;
    m_scalarEvents += range.m_scalarEvents;
    m_unreadableEvents += range.m_unreadableEvents;
    // The range's consumers were made by the same makers, in the same order.
    for (size_t i = 0; i < m_consumers.size(); ++i)
        m_consumers[i]->absorb(*range.m_consumers[i], m_generation);
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
    io::ByteSource source;
    QString error;
    // A compressed trace's segment is read where it lies (its buffer has the reader's layout), but
    // for the last one, whose bytes after "traceEvents" the main reader reads on from.
    RangeJobs::Segment *segment = nullptr;
    if (jobs.segmented) {
        RangeJobs::Segment &s = jobs.jobs[index].segment;
        if (index != jobs.lastSegment.load())
            segment = &s;
        else if (!source.open(io::ByteOrigin::bytes(QByteArrayView(s.data.get() + 1, qsizetype(s.size))), &error))
            return;
    } else if (!source.open(m_origin, &error) || !source.seek(begin)) {
        return;
    }
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
    if (buffers.parser) {  // (a segment's reader has no buffer of its own)
        m_buf = std::move(buffers.buf);
        m_capacity = buffers.capacity;
        m_parser = std::move(*buffers.parser);
        m_pending.swap(buffers.pending);
        m_fastFields.swap(buffers.fastFields);
    } else {
        buffers.parser = std::make_unique<simdjson::ondemand::parser>();
    }
    ByteBuffer ownBuffer;
    size_t ownCapacity = 0;
    if (segment) {
        ownBuffer = std::move(m_buf);
        ownCapacity = std::exchange(m_capacity, segment->capacity);
        m_buf = std::move(segment->data);
    } else {
        ensureCapacity(2 * m_chunkBytes + kPadding + 2);
    }
    if (m_parser.capacity() < 2 * m_chunkBytes + 2 &&
        m_parser.allocate(2 * m_chunkBytes + 2, kSimdjsonMaxDepth) != simdjson::SUCCESS) {
        if (segment) {
            segment->data = std::move(m_buf);
            m_buf = std::move(ownBuffer);
            m_capacity = ownCapacity;
        }
        return;
    }
    m_deferDiagnostics = true;
    size_t next = index + 1;
    bool ended = false;
    while (!jobs.cancel) {
        const qint64 readFrom = m_bufBase + qint64(m_len);
        size_t want = m_chunkBytes;
        size_t n = 0;
        if (segment) {
            // One round: the segment's bytes are already at at(begin); later rounds find none.
            const size_t left = size_t(begin + qint64(segment->size) - readFrom);
            want = next < jobs.startCount() ? size_t(starts[next] - readFrom) : left + 1;
            n = std::min(want, left);
        } else {
            if (next < jobs.startCount())  // stop exactly at the next cut
                want = size_t(std::min<qint64>(qint64(want), starts[next] - readFrom));
            ensureCapacity(1 + m_len + want + kPadding + 1);
            n = source.read(m_buf.get() + 1 + m_len, want);
        }
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
        if (next < jobs.startCount() && m_bufBase + qint64(m_len) == starts[next]) {
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
    bool consumersSafe = true;
    for (const std::unique_ptr<EventConsumer> &consumer : m_consumers) {
        consumer->finishRange();  // on this range's thread: less to hand over
        consumersSafe = consumersSafe && consumer->rangeSafe();
    }
    end.usable = ended && !jobs.cancel && consumersSafe && m_out.diagnostics.empty() && m_eventIssues.count() == 0 &&
                 m_invalidUtf8Bytes == 0 && m_unreadableEvents == 0 && m_scanner.nonStandardLiterals() == 0 &&
                 source.problem().isEmpty();  // (its lines count from the range)
    releaseBuffers();
    if (segment) {
        segment->data = std::move(m_buf);
        m_buf = std::move(ownBuffer);
        m_capacity = ownCapacity;
    }
    m_pending.clear();
    m_fastFields.clear();
    buffers.pending.swap(m_pending);
    buffers.fastFields.swap(m_fastFields);
    buffers.buf = std::move(m_buf);
    buffers.capacity = std::exchange(m_capacity, 0);
    *buffers.parser = std::move(m_parser);
    jobs.giveBack(std::move(buffers));
}

} // namespace goblin::kineto
