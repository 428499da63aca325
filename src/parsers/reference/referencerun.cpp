// The reference's three reads of a run folder, with only the reference's readings attached.
#include "reference/referencerun.h"

#include "io/regularfile.h"
#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "kineto/tracereader.h"
#include "reference/amdsmi.h"
#include "reference/kernelrows.h"
#include "reference/openfailures.h"
#include "reference/torchconsumer.h"
#include "syntax/csvreader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace goblin::reference {

KernelTrace readReferenceKernels(const QString &path, const QString &displayName)
{
    KernelTrace trace;
    const QFileInfo info(path);
    trace.referenceFileFound = info.exists();  // Path.exists() follows symlinks, as QFileInfo does
    if (!trace.referenceFileFound)
        return trace;
    const QString special = specialFileProblem(path);
    if (info.isDir() || !special.isEmpty()) {
        failKernelReading(trace.reference, kernelOpenFailure(path, info.isDir(), special, nullptr), 0, false);
        return trace;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Unbuffered)) {
        failKernelReading(trace.reference, kernelOpenFailure(path, false, QString(), &file), 0, false);
        return trace;
    }
    CsvReader::Options options;
    options.stripUtf8Bom = false;  // the reference keeps the BOM in its first header name
    options.chunkBytes = 1 << 20;
    options.validateUtf8 = true;
    CsvReader reader(&file, options);
    std::vector<std::string_view> fields;
    if (!reader.readRecord(fields)) {
        if (!reader.errorString().isEmpty())
            failKernelReading(trace.reference, QStringLiteral("[Errno 5] Input/output error"), 0, false);
        else
            trace.referenceFileEmpty = true;
        return trace;
    }
    kernels::NamePool names;
    kernels::Accumulator accumulator;
    accumulator.reading = &trace.reference;
    kernels::RowNameIds nameIds{names};
    KernelRows rows(accumulator, nameIds, 0);
    InputFileInfo fileInfo;
    rows.onHeader(fields, reader, fileInfo);  // the first record is the header, BOM kept
    while (reader.readRecord(fields)) {
        if (fields.empty())
            continue;  // csv.DictReader skips blank lines
        nameIds.reset();
        rows.onRecord(fields, reader, reader.recordStartLine(), reader.bytesConsumed());
    }
    rows.finish(reader, displayName, trace.diagnostics);  // which of Python's failures comes first
    trace.names = names.take();
    accumulator.finish(trace.names.size(), QStringList{QString()});
    return trace;
}

TorchTrace readReferenceTorch(const QString &path, const QString &displayName, const TorchReadPlan &plan)
{
    TorchTrace out;
    const QFileInfo info(path);
    out.referenceFileFound = info.exists();
    if (!out.referenceFileFound)
        return out;
    if (!info.isFile() || !info.isReadable()) {
        out.reference.readFailed = true;
        out.reference.readFailure = torchOpenFailure(path, info.isDir(), specialFileProblem(path));
        return out;
    }
    static constexpr kineto::ConsumerMaker kReferenceOnly[] = {&TorchConsumer::make};
    const ProgressCallback noProgress;
    kineto::TraceReader reader(io::ByteOrigin::file(path), displayName, kineto::ReferenceMode::CrashesOnGzip,
                               noProgress, plan.chunkBytes, plan.rangeBytes, kReferenceOnly,
                               out);
    reader.run();
    return out;
}

SmiTelemetry readReferenceSmi(const QString &path, const QString &displayName)
{
    SmiTelemetry out;
    out.file.relativePath = displayName;
    const QFileInfo info(path);
    out.referenceFileFound = info.exists();  // Path.exists() is true for folders too
    if (!out.referenceFileFound)
        return out;
    const QString special = specialFileProblem(path);
    QFile file(path);
    if (info.isDir() || !special.isEmpty() || !file.open(QIODevice::ReadOnly)) {
        out.reference.readFailed = true;
        out.reference.fileUnreadable = true;
        out.reference.readFailure =
            smiOpenFailure(path, info.isDir(), special, info.isDir() || !special.isEmpty() ? nullptr : &file);
        return out;
    }
    const QByteArray bytes = file.readAll();
    const ProgressCallback noProgress;
    amdsmi::ProgressGate gate(noProgress, bytes.size());
    ReferenceOutcome ref = readReference(bytes, gate);
    out.reference = ref.reading;
    out.file.referenceColumns = ref.columns;
    return out;
}

ReferenceInputs readReferenceInputs(const QString &runDir)
{
    const QDir dir(runDir);
    ReferenceInputs in;
    in.kernels = readReferenceKernels(dir.filePath(QStringLiteral("trace.csv")), QStringLiteral("trace.csv"));
    in.torch = readReferenceTorch(dir.filePath(QStringLiteral("torch_profile.json")),
                                  QStringLiteral("torch_profile.json"));
    in.smi = readReferenceSmi(dir.filePath(QStringLiteral("amd_smi.csv")), QStringLiteral("amd_smi.csv"));
    return in;
}

} // namespace goblin::reference
