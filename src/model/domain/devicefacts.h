#pragma once
/// \file A part of the run's facts (runfacts.h): the devices: model, memory capacity (from the file
/// first), one naming for every view. Value types only; decided once at load by
/// analysis/runfacts.h, each value with its state and source.

#include "heuristics.h"

#include <QString>
#include <QtGlobal>

#include <optional>
#include <vector>

namespace goblin {

struct GpuTimelineFile;  // gputimeline.h

/// One GPU model of the shipped table (resources/gpus.json) that a name matched.
struct GpuModelEntry {
    QString model;                  ///< "NVIDIA A100"
    std::optional<double> memoryGb; ///< unset when the name leaves the size open, or shared memory
    bool sharedMemory = false;      ///< an APU: its memory is the system's (the name does not say how much)
    QString source;                 ///< the data sheet the value is from
};
/// The table's entry for a device name ("NVIDIA A100-SXM4-80GB", "AMD Instinct MI300X", "gfx1151"),
/// or nullopt when the table knows no such model.
std::optional<GpuModelEntry> gpuModelFromName(const QString &name);

/// One device the run's files describe.
struct DeviceFact {
    qint64 traceDevice = -1;        ///< the device id as the file writes it (Kineto "device", Nsight deviceId, amd-smi gpu)
    int gpu = -1;                   ///< its place among the file's devices (GPU 0, 1, …), as telemetry numbers them
    QString file;                   ///< the file that describes it (relative to the run folder)
    QString model;                  ///< "NVIDIA H100 80GB HBM3"; empty when nothing names it
    std::optional<double> memoryGb; ///< GB of 2^30 bytes
    ValueState memoryState = ValueState::Unknown;
    QString memorySource;           ///< "deviceProperties' totalGlobalMem", "the GPU name 'X' (table: …)", …
    bool sharedMemory = false;      ///< an APU (gfx1151, MI300A): no memory of its own
};

/// The run's devices and the one memory capacity its budget uses.
struct DeviceFacts {
    std::vector<DeviceFact> devices;
    /// What the HBM capacity threshold defaults to in the workbench profile: the file's own total,
    /// else the GPU name's in the table, else the reference's 192 GB (an MI300X), estimated.
    double capacityGb = 192.0;
    ValueState capacityState = ValueState::Estimated;
    QString capacitySource;
    bool capacityFromRun = false;  ///< capacityGb came from the run's files (not the reference's default)
    bool sharedMemory = false;     ///< the run's GPU shares the system's memory (an APU): capacity is not HBM
};

/// The one name of a device in every view, report and sentence: "GPU 0" (its place among the
/// file's devices, as telemetry counts them) and the trace's own id, which ROCm traces start at 1
/// or 2: "GPU 0 (trace device 2)"; short form "GPU 0 (d2)". `gpu` < 0: "trace device 2" / "d2";
/// `traceDevice` < 0 (a GPU only telemetry knows): "GPU 0".
QString deviceDisplayName(int gpu, qint64 traceDevice, bool shortForm = false);
/// The place of `device` among the devices of `file` in id order (GPU 0, 1, …), or -1.
int gpuIndexInFile(const GpuTimelineFile &file, qint64 device);
/// The one name of trace device `device` of `file`: deviceDisplayName(gpuIndexInFile(…), device).
QString deviceNameInFile(const GpuTimelineFile &file, qint64 device, bool shortForm = false);
/// The one name of telemetry's GPU `gpu` (its place, counted from 0 as telemetry counts): with the
/// trace device when one file of the run describes trace devices ("GPU 0 (trace device 2)", as
/// the timeline names it), else the place alone, "GPU 0" (files number devices their own ways).
QString telemetryGpuName(const DeviceFacts &facts, int gpu, bool shortForm = false);

} // namespace goblin
