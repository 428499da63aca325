#pragma once
/// \file The report's roofline keys (docs/roofline.md): `gpu_spec` (the run's GPU, its roofs and
/// their sources) and, on each `ops[]` entry, `flops`, `bytes`, `achieved_tflops`, `achieved_tbps`,
/// `roof_tflops`, `efficiency` (%), `time_at_roof_s`, each {value, state, source}.

#include "gpuroofs.h"
#include "run.h"

#include <QJsonObject>

namespace goblin {

/// `gpu_spec`: {known, model, device_name, reason, peak_tflops{dtype: {value, state, source}},
/// achievable_tflops{…}, hbm_tbps{…}, roof_uses: "peak_tflops", note}.
QJsonObject gpuSpecJson(const GpuRoof &roof);

/// Adds `gpu_spec` and the per-op keys to `report`, whose `ops` (attributionjson.h) are the
/// whole trace's rows of `run.torch.attribution` in the same order.
void addRooflineToReport(QJsonObject &report, const RunAnalysis &run);

} // namespace goblin
