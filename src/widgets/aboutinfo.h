#pragma once
/// \file Versions for the About box, and the GPUs of the open run.

#include <QString>
#include <QStringList>

namespace goblin {

struct RunAnalysis;

/// "3.0.1": the simdjson the JSON parser was built against.
QString simdjsonVersion();
/// The GPUs the run's files name, each once with its count in file order ("AMD Instinct MI300X ×8"):
/// the traces' deviceProperties (every rank's trace), else the telemetry's GPU count ("4 GPUs in
/// the telemetry (amd-smi names no model)"); empty when nothing names one.
QStringList runGpuNames(const RunAnalysis &run);
/// Rich text for the About box: the app version (the caller passes GOBLIN_VERSION, which only
/// the application target defines), the Qt it runs on and was built with, simdjson and
/// QCustomPlot, and the GPUs of `run` (none open: said so).
QString aboutText(const QString &appVersion, const RunAnalysis *run = nullptr);

} // namespace goblin
