#pragma once
/// \file The reference's reading of a run folder, alone: `profile_parser.parse()`'s three reads
/// (`_read_kernels` of trace.csv, `_read_torch_profile` of torch_profile.json, `_read_amd_smi` of
/// amd_smi.csv) with only the reference's readings attached: no fallback files, no workbench
/// reading, no progress. Parity tests and tools that need the reference without the workbench
/// link goblin_parsers_reference (and the core) only. The app reads both readings in one pass
/// through the entries (kerneltraceparser, torchtraceparser, amdsmiparser) instead; the two agree
/// on every reference field, except that the entries also feed a rocpd database standing in for a
/// missing trace.csv to the reference's kernel reading (a workbench choice; Python reads none).

#include "amdsmiparser.h"
#include "kerneltraceparser.h"
#include "torchtraceparser.h"

#include <QString>

namespace goblin::reference {

/// Only the reference's fields are filled: KernelTrace::{names, reference, referenceFileFound,
/// referenceFileEmpty, diagnostics}, TorchTrace::{reference, referenceFileFound, diagnostics},
/// SmiTelemetry::{reference, referenceFileFound, file.referenceColumns}.
struct ReferenceInputs {
    KernelTrace kernels;
    TorchTrace torch;
    SmiTelemetry smi;
};

ReferenceInputs readReferenceInputs(const QString &runDir);

KernelTrace readReferenceKernels(const QString &path, const QString &displayName);
/// `plan` as for parseTorchTraceFile(): every plan gives the same reading (tests cut tiny ranges).
TorchTrace readReferenceTorch(const QString &path, const QString &displayName, const TorchReadPlan &plan = {});
SmiTelemetry readReferenceSmi(const QString &path, const QString &displayName);

} // namespace goblin::reference
