#pragma once
/// \file The descriptors of the built-in formats, one function each, defined in this folder
/// beside their sniffs and listed once in registry.cpp (perfetto's builtin_trace_importers.h).

#include "formats/inputformat.h"

#include <optional>

namespace goblin::formats {

// kerneltraceformats.cpp: kernel-dispatch CSVs
const InputFormat &referenceKernelTrace();   ///< trace.csv in the folder
const InputFormat &processKernelTrace();     ///< rocprofv3's <pid>_kernel_trace.csv
const InputFormat &aloneKernelTraceByName(); ///< results.csv, timestamps.csv, … opened alone
const InputFormat &aloneKernelTraceByHeader(); ///< any CSV with a kernel-name column, opened alone
const InputFormat &kernelDataLookAlike();    ///< results.csv … in a folder: a hint, not read
// databaseformats.cpp: SQLite profiler databases, told by their tables
const InputFormat &gzipDatabase();           ///< a gzipped database (container)
const InputFormat &rpdDatabase();            ///< rocmProfileData
const InputFormat &nsysDatabase();           ///< Nsight Systems `nsys export --type sqlite`
const InputFormat &nsysWithoutCudaDatabase();  ///< an Nsight Systems export with no CUPTI_/NVTX_ table
const InputFormat &rocpdDatabase();          ///< rocprofv3's rocpd, and any other file so named
// rocprofjsonformat.cpp, pftraceformat.cpp
const InputFormat &rocprofJson();
const InputFormat &pftrace();
// chrometraceformats.cpp: torch.profiler / Kineto
const InputFormat &referenceTorchTrace();    ///< torch_profile.json in the folder
const InputFormat &chromeTrace();            ///< any JSON or gzip whose head shows "traceEvents"
const InputFormat &chromeTraceLookAlike();   ///< *.pt.trace.json whose head shows none
/// Does the head start a chrome trace (its first megabyte shows a top-level "traceEvents")?
bool chromeTraceContent(const FileHead &head);
/// The rank a trace's file name states (kineto/tracediscovery.h).
std::optional<int> rankFromTraceName(const QString &fileName);
// apitraceformat.cpp
const InputFormat &apiTraceCsv();
// telemetryformats.cpp
const InputFormat &amdSmiCsv();              ///< amd_smi.csv in the folder
const InputFormat &nvidiaSmiLog();
const InputFormat &dcgmiDmonLog();
const InputFormat &rocmSmiLog();
const InputFormat &telemetryCsvByColumns();  ///< a CSV whose column names say time, util %, memory + unit

} // namespace goblin::formats
