#include "amdsmiparser.h"

#include "io/regularfile.h"
#include "io/runinventory.h"

#include "amdsmi/smicommon.h"
#include "reference/amdsmi.h"
#include "reference/openfailures.h"
#include "reference/pytext.h"
#include "telemetry/telemetrylogs.h"
#include "workbench/smireader.h"

#include <QFile>
#include <QFileInfo>
namespace goblin {

namespace {

using amdsmi::ProgressGate;
using reference::ReferenceOutcome;
using reference::readReference;
using reference::RefHbmRule;
using workbench::unitName;
using workbench::VramUnit;
using workbench::WorkbenchReader;

const QString kFormat = QStringLiteral("amd-smi-csv");

/// Plain-words description of what a column the reference might read as utilisation holds.
QString describeReferenceUtilColumn(const QString &column)
{
    const QString l = reference::asciiLower(column);
    if (l == QLatin1String("usage"))
        return QStringLiteral("fan usage, or the single column amd-smi writes when it cannot read utilisation; "
                              "usually N/A");
    if (l.contains(QLatin1String("power")))
        return QStringLiteral("W");
    if (l.contains(QLatin1String("clk")) || l.contains(QLatin1String("clock")))
        return QStringLiteral("MHz");
    if (l.contains(QLatin1String("temp")))
        return QStringLiteral("°C");
    if (l.contains(QLatin1String("energy")))
        return QStringLiteral("an energy counter");
    if (l.contains(QLatin1String("usage")))
        return QStringLiteral("not GFX utilisation");
    return QStringLiteral("%");
}

// ---------------------------------------------------------------------------------------------

/// Diagnostics wherever the reference reads a different column or unit than the workbench.
void compareReadings(const ReferenceOutcome &ref, const WorkbenchReader &wb, SmiTelemetry &out,
                     const QString &file)
{
    auto note = [&](const QString &message) { out.diagnostics.push_back({Severity::Info, file, 0, message}); };
    if (!wb.headerFound)
        return;
    if (!ref.gotHeader) {
        if (!ref.reading.readFailed)
            note(QStringLiteral("the reference finds no parseable header in this file and reads no telemetry"));
        return;
    }
    // The reference keeps header cells as written (nvidia-smi puts a space after each comma).
    const QString refUtil = ref.utilColumn.trimmed();
    const QString refHbm = ref.hbmColumn.trimmed();
    auto unparsable = [&](const QString &what, const QString &column) {
        note(QStringLiteral("the reference reads '%1' too, but none of its values is a plain number to Python's "
                            "float() (units or N/A in the cells), so it has no %2")
                 .arg(column, what));
    };
    // Utilisation.
    if (!refUtil.isEmpty() && refUtil == wb.utilColumn && ref.reading.utilSamples == 0 &&
        out.workbench.utilSamples > 0)
        unparsable(QStringLiteral("utilisation"), wb.utilColumn);
    if (refUtil != wb.utilColumn) {
        const QString refPart =
            ref.utilColumn.isEmpty()
                ? QStringLiteral("the reference finds no utilisation column")
                : QStringLiteral("the reference reads '%1' (%2) here")
                      .arg(ref.utilColumn, describeReferenceUtilColumn(ref.utilColumn));
        if (wb.utilColumn.isEmpty())
            note(QStringLiteral("utilisation unavailable; %1").arg(refPart));
        else
            note(QStringLiteral("utilisation read from '%1' (%); %2").arg(wb.utilColumn, refPart));
    }
    // VRAM.
    if (ref.hbmColumn.isEmpty() && wb.hbmColumn.isEmpty())
        return;
    const RefHbmRule rule = reference::referenceHbmRule(ref.hbmColumn);
    const QString wbPart = wb.hbmColumn.isEmpty()
                               ? QStringLiteral("no used-VRAM column")
                               : QStringLiteral("VRAM read from '%1' as %2 (%3)")
                                     .arg(wb.hbmColumn, unitName(wb.hbmUnit), wb.hbmUnitReason);
    if (!refHbm.isEmpty() && refHbm == wb.hbmColumn && ref.reading.hbmSamples == 0 &&
        (out.workbench.hbmSamples > 0 || out.workbench.hbmPeakGb)) {
        unparsable(QStringLiteral("HBM usage"), wb.hbmColumn);
        return;
    }
    if (refHbm != wb.hbmColumn) {
        note(QStringLiteral("%1; %2")
                 .arg(wbPart, ref.hbmColumn.isEmpty() ? QStringLiteral("the reference finds no VRAM column")
                                                      : reference::referenceHbmRuleWords(rule, ref.hbmColumn)));
        return;
    }
    const bool refGb = rule == RefHbmRule::AsGb;
    const bool refMb = rule == RefHbmRule::DivideMb || rule == RefHbmRule::DivideVramMem;
    const bool wbGb = wb.hbmUnit == VramUnit::GB;
    const bool wbMbLike = wb.hbmUnit == VramUnit::MB || wb.hbmUnit == VramUnit::MiB;
    const bool differs = rule == RefHbmRule::ByValue || (refGb && !wbGb) || (refMb && !wbMbLike);
    if (differs)
        note(QStringLiteral("VRAM read as %1 (%2); %3")
                 .arg(unitName(wb.hbmUnit), wb.hbmUnitReason, reference::referenceHbmRuleWords(rule, ref.hbmColumn)));
}

/// Both readings of the whole file, into `out` (which names the file and knows it exists).
SmiTelemetry readBothFrom(const QByteArray &bytes, SmiTelemetry out, const QString &displayName,
                          const ProgressCallback &progress)
{
    out.file.sizeBytes = bytes.size();
    ProgressGate gate(progress, bytes.size());

    // A cancelled parse returns no readings at all, so nothing half-read can be mistaken for data.
    auto cancelled = [&] {
        SmiTelemetry stopped;
        stopped.file.relativePath = displayName;
        stopped.file.format = kFormat;
        stopped.file.sizeBytes = bytes.size();
        stopped.referenceFileFound = true;
        stopped.cancelled = true;
        return stopped;
    };
    // dcgmi dmon text is no CSV: the amd-smi reader would find no header in it.
    const telemetry::LogKind kind = telemetry::sniffTelemetryLog(QByteArrayView(bytes).first(std::min<qsizetype>(bytes.size(), 4096)));
    WorkbenchReader wb(bytes, displayName, out, gate);
    if (kind == telemetry::LogKind::Dcgm)
        telemetry::readTelemetryLog(kind, bytes, displayName, out);
    else
        wb.run();
    if (gate.cancelled())
        return cancelled();
    ReferenceOutcome ref = readReference(bytes, gate);
    if (gate.cancelled())
        return cancelled();
    out.reference = ref.reading;
    out.file.referenceColumns = ref.columns;
    if (out.reference.readFailed)
        out.diagnostics.push_back({Severity::Warning, displayName, 0,
                                   QStringLiteral("reference reading failed: %1").arg(out.reference.readFailure)});
    compareReadings(ref, wb, out, displayName);
    gate.report(1, 1.0);
    return out;
}

} // namespace

SmiTelemetry parseAmdSmiFile(const QString &path, const QString &displayName, const ProgressCallback &progress)
{
    SmiTelemetry out;
    out.file.relativePath = displayName;
    out.file.format = kFormat;
    const QFileInfo info(path);
    if (!info.exists()) {
        out.diagnostics.push_back({Severity::Warning, displayName, 0,
                                   QStringLiteral("no amd-smi telemetry file: HBM usage is unknown, and GPU "
                                                  "utilisation comes from the GPU timeline (or kernel time)")});
        return out;
    }
    out.referenceFileFound = true;  // Path.exists() is true for folders too
    if (info.isDir()) {
        out.reference.readFailed = true;
        out.reference.fileUnreadable = true;
        out.reference.readFailure = reference::smiOpenFailure(path, true, QString(), nullptr);
        out.diagnostics.push_back({Severity::Error, displayName, 0,
                                   QStringLiteral("is a folder, not a file: no telemetry")});
        return out;
    }
    if (const QString problem = specialFileProblem(path); !problem.isEmpty()) {
        // The reference would block in open() or read without end here.
        out.reference.readFailed = true;
        out.reference.fileUnreadable = true;
        out.reference.readFailure = reference::smiOpenFailure(path, false, problem, nullptr);
        out.diagnostics.push_back({Severity::Error, displayName, 0, problem});
        return out;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        out.reference.readFailed = true;
        out.reference.fileUnreadable = true;
        out.reference.readFailure = reference::smiOpenFailure(path, false, QString(), &file);
        out.diagnostics.push_back({Severity::Error, displayName, 0,
                                   QStringLiteral("cannot be opened: %1").arg(file.errorString())});
        return out;
    }
    // Telemetry files are small (about 10^5 rows at most): both readings work on the whole file.
    return readBothFrom(file.readAll(), std::move(out), displayName, progress);
}

SmiTelemetry parseAmdSmiBytes(QByteArrayView bytes, const QString &displayName, const ProgressCallback &progress)
{
    SmiTelemetry out;
    out.file.relativePath = displayName;
    out.file.format = kFormat;
    out.referenceFileFound = true;
    // The readings take a QByteArray; this one borrows the bytes, no copy.
    return readBothFrom(QByteArray::fromRawData(bytes.data(), bytes.size()), std::move(out), displayName, progress);
}

SmiTelemetry parseTelemetryLogFile(telemetry::LogKind kind, const QString &path, const QString &displayName,
                                   const ProgressCallback &progress)
{
    SmiTelemetry out;
    out.file.relativePath = displayName;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        out.diagnostics.push_back({Severity::Error, displayName, 0,
                                   QStringLiteral("cannot be opened: %1").arg(file.errorString())});
        return out;
    }
    const QByteArray bytes = file.readAll();
    out.file.sizeBytes = bytes.size();
    telemetry::readTelemetryLog(kind, bytes, displayName, out);
    out.diagnostics.push_back({Severity::Info, displayName, 0,
                               QStringLiteral("%1 log read as the run's telemetry by the workbench; the reference "
                                              "reads amd_smi.csv only, so it has no telemetry for this run")
                                   .arg(out.tool)});
    if (progress)
        progress(bytes.size());
    return out;
}

SmiTelemetry parseAmdSmi(const RunInventory &inventory, const ProgressCallback &progress)
{
    const QString name = kSmiFileName;
    SmiTelemetry out;
    const InputRow *row = inventory.smiTelemetry();
    if (row)  // amd_smi.csv (whatever it holds: the reference reads it by its name), or a log known by its content
        out = row->format->readTelemetry(inventory.filePath(*row), row->relativePath, progress);
    else
        // Not in the folder, or not among the files opened: what parseAmdSmiFile() says of a
        // missing file, without looking at a file the caller left out.
        out = parseAmdSmiFile(QString(), name, progress);
    // The torch trace's wall clock, for placing the samples on its steps; only worth a look when
    // the samples have a wall clock of their own.
    if (!out.cancelled && !std::isnan(out.startEpochS))
        if (const InputRow *torch = inventory.torchPrimary(); torch && torch->content != HeadContent::NotAFile)
            out.traceClock = telemetry::readTraceWallClock(inventory.filePath(*torch), torch->relativePath);
    return out;
}

SmiTelemetry parseAmdSmi(const QString &runDir, const ProgressCallback &progress)
{
    return parseAmdSmi(RunInventory::scanFolder(runDir), progress);
}

} // namespace goblin
