#pragma once
/// \file A kernel file read in chunks and pushed into a reader, plain or gzip (io::ByteSource):
/// what the rocprofv3 JSON and the pftrace readers share. The reader has feed(data, size) (false:
/// stop), finishInput() (the input has ended) and finish(info, inputProblem), which writes the
/// file's row in the inputs and says how the read went.

#include "io/bytesource.h"
#include "kerneltraceparser.h"
#include "progress.h"
#include "rocpdreader.h"

#include <vector>

namespace goblin::kernels {

template <typename MakeReader>
ReadOutcome readPushedFile(const io::ByteOrigin &origin, qint64 size, const QString &rel, const QString &format,
                            KernelTrace &trace, const ProgressCallback &progress, size_t chunkBytes,
                            MakeReader &&makeReader)
{
    InputFileInfo info;
    info.relativePath = rel;
    info.format = format;
    info.sizeBytes = size;
    io::ByteSource source;
    QString error;
    if (!source.open(origin, &error)) {
        trace.diagnostics.push_back({Severity::Error, rel, 0, QStringLiteral("cannot be opened: %1").arg(error)});
        info.dialect = QStringLiteral("unreadable");
        trace.files.push_back(info);
        return ReadOutcome::Unusable;
    }
    info.compressed = source.compressed();
    auto reader = makeReader();
    ProgressThrottle throttle(&progress);
    std::vector<char> chunk(chunkBytes);
    if (progress && !progress(0))
        return ReadOutcome::Cancelled;
    for (;;) {
        const size_t n = source.read(chunk.data(), chunk.size());
        if (n == 0 || !reader.feed(chunk.data(), n))
            break;
        if (throttle.due(source.rawBytesRead()) && !throttle.report(source.rawBytesRead()))
            return ReadOutcome::Cancelled;
    }
    reader.finishInput();
    const QString problem = source.problem();
    if (source.trailingGarbage() && problem.isEmpty())
        trace.diagnostics.push_back({Severity::Warning, rel, 0,
                                     QStringLiteral("bytes after the end of the gzip data (offset %1) are ignored")
                                         .arg(source.trailingGarbageOffset())});
    const ReadOutcome outcome = reader.finish(info, problem);
    if (progress)
        progress(size);
    return outcome;
}

} // namespace goblin::kernels
