#pragma once
/// \file amd-smi telemetry CSV (`amd-smi metric|monitor --csv`, polled, watch and --file).

#include "diagnostic.h"
#include "results/smitelemetry.h"
#include "results/inputfile.h"
#include "progress.h"

#include <QByteArrayView>
#include <QString>
#include <cmath>
#include <optional>
#include <vector>

namespace goblin {

class RunInventory;  // io/runinventory.h
namespace telemetry {
enum class LogKind;  // telemetry/telemetrylogs.h
}

/// Reads the inventory's telemetry (both readings; io/runinventory.h): `amd_smi.csv`, else the
/// telemetry log the inventory recognised by its content (nvidia-smi `--query-gpu` CSV, `dcgmi
/// dmon`, `rocm-smi --csv`; telemetry/telemetrylogs.h), which only the workbench reads (the
/// reference reads amd_smi.csv only). A missing file is not an error: the reference
/// then warns and the engine falls back to kernel time for utilisation. Also looks up the
/// primary torch trace's wall clock (SmiTelemetry::traceClock).
///
/// Reference reading: the reference's `_read_amd_smi` bit for bit (UTF-8 text, header sniffing,
/// repeated-header and blank-line removal, csv.DictReader, alias columns, unit rules), including
/// its misreadings. A file Python cannot decode as UTF-8 makes the reference crash
/// (UnicodeDecodeError is not caught): `reference.readFailed` is set with that message.
/// After a csv.Error the reference keeps a ROCm version already read from earlier rows.
///
/// Workbench reading: a real CSV reader; the dialect decides the utilisation column (`gfx`,
/// `gfx_activity`, never fan `usage` or power/clock/temperature columns) and the VRAM unit
/// (a total-VRAM column settles GB vs MB). Samples are kept per GPU; idle samples before the
/// first and after the last busy one of each GPU are out of the job window and left out of the
/// utilisation mean and the HBM average. The HBM peak is taken over all samples: memory the job
/// allocated stays resident after its last kernel, and idle samples cannot raise a maximum.
SmiTelemetry parseAmdSmi(const RunInventory &inventory, const ProgressCallback &progress = {});
/// The same for the inventory of the whole folder `runDir`.
SmiTelemetry parseAmdSmi(const QString &runDir, const ProgressCallback &progress = {});
/// Both readings of one file; `displayName` is how diagnostics and the reference columns name it.
SmiTelemetry parseAmdSmiFile(const QString &path, const QString &displayName,
                             const ProgressCallback &progress = {});
/// The same from bytes in memory, with the same result as parseAmdSmiFile of a file holding them
/// (`displayName` names them; the bytes must outlive the call). For the fuzzer and for
/// telemetry that is not a file.
SmiTelemetry parseAmdSmiBytes(QByteArrayView bytes, const QString &displayName,
                              const ProgressCallback &progress = {});

/// A telemetry log the inventory recognised by its content (nvidia-smi, dcgmi dmon, rocm-smi; not
/// amd_smi.csv), read as `kind` says: the workbench reads it, the reference reads no telemetry (it
/// opens amd_smi.csv only).
SmiTelemetry parseTelemetryLogFile(telemetry::LogKind kind, const QString &path, const QString &displayName,
                                   const ProgressCallback &progress = {});

} // namespace goblin
