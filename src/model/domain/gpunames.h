#pragma once
/// \file How a GPU name is matched against the GPU table's tokens (resources/gpus.json): the
/// device-model lookup (gpumodels.cpp) and the roofline's variants (gpuroofs.cpp) match alike.

#include <QString>
#include <QStringList>

namespace goblin {

/// "NVIDIA A100-SXM4-80GB" -> "nvidiaa100sxm480gb": the form the table's tokens are written in.
QString squeezedGpuName(const QString &name);

/// Every `match` token is in `squeezedName` and no `exclude` token is.
bool gpuNameMatches(const QString &squeezedName, const QStringList &match, const QStringList &exclude);

} // namespace goblin
