#include "quantity.h"

namespace goblin {

QString Quantities::jsonKey(QuantityKey key)
{
    switch (key) {
    case QuantityKey::GpuUtilPct:
        return QStringLiteral("gpu_util_pct");
    case QuantityKey::HostBusyFraction:
        return QStringLiteral("host_busy_fraction");
    case QuantityKey::StepTimeS:
        return QStringLiteral("step_time_s");
    case QuantityKey::HbmPeakGb:
        return QStringLiteral("hbm_peak_gb");
    case QuantityKey::HbmCapacityGb:
        return QStringLiteral("hbm_capacity_gb");
    case QuantityKey::TokensPerSec:
        return QStringLiteral("tokens_per_sec");
    case QuantityKey::MfuPct:
        return QStringLiteral("mfu_pct");
    case QuantityKey::Count:
        break;
    }
    return QString();
}

QString Quantities::label(QuantityKey key)
{
    switch (key) {
    case QuantityKey::GpuUtilPct:
        return QStringLiteral("GPU utilisation");
    case QuantityKey::HostBusyFraction:
        return QStringLiteral("Host busy");
    case QuantityKey::StepTimeS:
        return QStringLiteral("Step time");
    case QuantityKey::HbmPeakGb:
        return QStringLiteral("HBM peak");
    case QuantityKey::HbmCapacityGb:
        return QStringLiteral("HBM capacity");
    case QuantityKey::TokensPerSec:
        return QStringLiteral("Tokens per second");
    case QuantityKey::MfuPct:
        return QStringLiteral("MFU");
    case QuantityKey::Count:
        break;
    }
    return QString();
}

} // namespace goblin
