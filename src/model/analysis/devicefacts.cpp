// The run's devices, decided once at load: each device's model and memory from the files
// themselves (deviceProperties, Nsight's TARGET_INFO_GPU, telemetry totals), then the shipped
// table of GPU names (resources/gpus.json; the telemetry logs' GPU names too), and the one
// capacity the budget uses.
#include "decidefacts.h"

#include "formatting.h"
#include "thresholds.h"
#include "tracememoryfigures.h"

#include <set>

namespace goblin {

namespace {

constexpr double kReferenceCapacityGb = 192.0;  // the reference's default: an MI300X

bool inKnobRange(double gb)
{
    const ThresholdDescriptor *knob = thresholdDescriptor(ThresholdField::HbmCapacity);
    return knob && knob->contains(gb);
}

/// Where a file's own device memory comes from, in words: Kineto's deviceProperties, or the
/// database's GPU table (Nsight's TARGET_INFO_GPU).
QString fileMemoryWords(const GpuTimelineFile &file)
{
    return file.source == QLatin1String("torch_profile") || file.source.isEmpty()
               ? QStringLiteral("deviceProperties' totalGlobalMem in %1").arg(file.file)
               : QStringLiteral("the GPU's total memory in %1 (TARGET_INFO_GPU / agent info)").arg(file.file);
}

/// Fills `d`'s model and memory from entry `i` of the file's device list.
void fromIdentity(DeviceFact &d, const GpuTimelineFile &file, qsizetype i)
{
    const TraceIdentity &id = file.traits.identity;
    if (i < 0 || i >= id.deviceNames.size())
        return;
    d.model = id.deviceNames[i];
    if (size_t(i) < id.deviceMemoryBytes.size() && id.deviceMemoryBytes[size_t(i)] > 0) {
        d.memoryGb = double(id.deviceMemoryBytes[size_t(i)]) / kBytesPerHbmGb;
        d.memoryState = ValueState::Measured;
        d.memorySource = fileMemoryWords(file);
    }
}

/// The entry of the file's device list that describes `device`: its own ordinal when listed; else,
/// when every listed device is the same model (a job's GPUs are in practice), the first.
qsizetype identityIndexOf(const GpuTimelineFile &file, qint64 device)
{
    const TraceIdentity &id = file.traits.identity;
    if (device >= 0 && device < id.deviceNames.size())
        return qsizetype(device);
    if (id.deviceNames.isEmpty())
        return -1;
    for (const QString &n : id.deviceNames)
        if (n != id.deviceNames.front())
            return -1;
    return 0;
}

void addFileDevices(const GpuTimeline &timeline, std::vector<DeviceFact> &out)
{
    for (const GpuTimelineFile &file : timeline.files) {
        std::set<qint64> seen;
        for (const GpuDeviceTimeline &dev : file.devices) {
            if (!seen.insert(dev.device).second)
                continue;
            DeviceFact d;
            d.traceDevice = dev.device;
            d.gpu = gpuIndexInFile(file, dev.device);
            d.file = file.file;
            fromIdentity(d, file, identityIndexOf(file, dev.device));
            out.push_back(std::move(d));
        }
        if (!file.devices.empty())
            continue;
        // No GPU event (a CPU-only capture): the devices the file describes all the same.
        const TraceIdentity &id = file.traits.identity;
        for (qsizetype i = 0; i < id.deviceNames.size(); ++i) {
            DeviceFact d;
            d.traceDevice = i;
            d.gpu = int(i);
            d.file = file.file;
            fromIdentity(d, file, i);
            out.push_back(std::move(d));
        }
    }
}

/// Telemetry's total column, as the devices' memory where no file gave one.
void fromTelemetry(DeviceFact &d, const SmiTelemetry &smi)
{
    if (d.memoryGb || !smi.hbmTotalGb)
        return;
    d.memoryGb = *smi.hbmTotalGb;
    d.memoryState = ValueState::Measured;
    d.memorySource = QStringLiteral("total memory in %1, %2").arg(smi.file.relativePath, smi.hbmTotalSource);
}

/// The GPU name a telemetry log writes for the device's place (GPU 0, 1, …), as its model where no
/// file named it: the table then knows its memory.
void modelFromTelemetry(DeviceFact &d, const SmiTelemetry &smi)
{
    if (!d.model.isEmpty() || d.gpu < 0)
        return;
    const auto it = smi.gpuNames.find(d.gpu);
    if (it != smi.gpuNames.end())
        d.model = it->second;
}

void fromTable(DeviceFact &d)
{
    if (d.memoryGb || d.model.isEmpty())
        return;
    const std::optional<GpuModelEntry> entry = gpuModelFromName(d.model);
    if (!entry)
        return;
    d.sharedMemory = entry->sharedMemory;
    if (entry->sharedMemory) {
        d.memorySource = QStringLiteral("the GPU name '%1': %2 shares the system's memory (%3); no device memory of its own")
                             .arg(d.model, entry->model, entry->source);
        return;
    }
    if (!entry->memoryGb)
        return;
    d.memoryGb = *entry->memoryGb;
    d.memoryState = ValueState::Estimated;
    d.memorySource = QStringLiteral("the GPU name '%1' (%2, %3 GB: %4)")
                         .arg(d.model, entry->model, QString::number(*entry->memoryGb, 'g', 6), entry->source);
}

} // namespace

DeviceFacts decideDevices(const RunAnalysis &run)
{
    DeviceFacts out;
    addFileDevices(run.torch.timeline, out.devices);
    addFileDevices(run.kernels.timeline, out.devices);
    if (out.devices.empty())
        for (int g = 0; g < run.smi.gpuCount; ++g) {
            DeviceFact d;
            d.gpu = g;  // no trace device: telemetry alone knows it
            d.file = run.smi.file.relativePath;
            out.devices.push_back(std::move(d));
        }
    for (DeviceFact &d : out.devices) {
        fromTelemetry(d, run.smi);
        modelFromTelemetry(d, run.smi);
        fromTable(d);
        if (!d.memoryGb && d.memorySource.isEmpty())
            d.memorySource = d.model.isEmpty() ? QStringLiteral("nothing in the run names the device or its memory")
                                               : QStringLiteral("the GPU name '%1' is not one whose memory is known "
                                                                "(or it leaves the size open)")
                                                     .arg(d.model);
    }

    // The one capacity: telemetry's total column (its peak is measured against it), else the
    // trace's own (the device whose [memory] events peaked, else the smallest listed), else any
    // file's device memory, else a device's name (a file's or telemetry's) in the table, else the
    // reference's default.
    const auto take = [&](double gb, ValueState state, const QString &source) {
        out.capacityGb = gb;
        out.capacityState = state;
        out.capacitySource = source;
        out.capacityFromRun = true;
    };
    const TraceMemoryFigures traceMemory = traceMemoryFigures(run.torch);
    if (run.smi.hbmTotalGb && inKnobRange(*run.smi.hbmTotalGb)) {
        take(*run.smi.hbmTotalGb, ValueState::Measured,
             QStringLiteral("total memory in %1, %2").arg(run.smi.file.relativePath, run.smi.hbmTotalSource));
    } else if (traceMemory.capacityGb && inKnobRange(*traceMemory.capacityGb)) {
        take(*traceMemory.capacityGb, ValueState::Measured, traceMemory.capacitySource);
    } else {
        const DeviceFact *measured = nullptr, *named = nullptr, *shared = nullptr;
        for (const DeviceFact &d : out.devices) {
            if (d.memoryGb && d.memoryState == ValueState::Measured && inKnobRange(*d.memoryGb) &&
                (!measured || *d.memoryGb < *measured->memoryGb))
                measured = &d;
            if (!named && d.memoryGb && d.memoryState == ValueState::Estimated && inKnobRange(*d.memoryGb))
                named = &d;
            if (!shared && d.sharedMemory)
                shared = &d;
        }
        if (measured) {
            // The device named by its model too, as the trace-memory and table sources do: the
            // capacity is the file's word for that GPU, and the model says which GPU it is.
            const QString device = deviceDisplayName(measured->gpu, measured->traceDevice);
            take(*measured->memoryGb, ValueState::Measured,
                 measured->model.isEmpty()
                     ? QStringLiteral("%1 of %2").arg(measured->memorySource, device)
                     : QStringLiteral("%1 of %2: %3").arg(measured->memorySource, device, measured->model));
        }
        else if (named)
            take(*named->memoryGb, ValueState::Estimated, named->memorySource);
        else if (shared) {
            out.sharedMemory = true;
            out.capacitySource = QStringLiteral("%1: the reference's %2 GB stands in, set the HBM capacity to the "
                                                "memory the GPU may use")
                                     .arg(shared->memorySource)
                                     .arg(kReferenceCapacityGb, 0, 'g', 4);
        }
    }
    if (!out.capacityFromRun && !out.sharedMemory)
        out.capacitySource = QStringLiteral("the reference's default (an MI300X's 192 GB): nothing in the run states "
                                            "the device's memory or names a GPU the table knows");
    return out;
}

} // namespace goblin
