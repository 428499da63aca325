#pragma once
/// \file Thresholds, heuristics profiles and the waste budget: pure arithmetic on aggregates
/// computed once at load, so a threshold change never touches per-kernel data.

#include <QString>
#include <array>
#include <optional>

namespace goblin {

enum class HeuristicsProfile {
    Workbench,  ///< the reference's formulas on data read right (default)
    Reference,  ///< bit for bit the gpu-goblin reference's RunMetrics, misreadings included
};
QString profileName(HeuristicsProfile profile);
std::optional<HeuristicsProfile> profileFromName(const QString &name);

enum class Precision { None, Fp32, Fp16, Bf16, Fp8 };
QString precisionName(Precision precision);  ///< "none", "fp32", …
std::optional<Precision> precisionFromName(const QString &name);

/// Every knob of the heuristics, with the reference's defaults.
struct Thresholds {
    double gpuUtilBelowPct = 30.0;   ///< data_wait needs GPU utilisation below this
    double hostBusyAbove = 0.5;      ///< … and the host busier than this (fraction)
    double hbmTargetPct = 70.0;      ///< HBM use below this share of capacity is headroom
    double hbmCapacityGb = 192.0;    ///< MI300X
    double precisionWeight = 0.10;   ///< share of fp16 GEMM time recoverable by bf16
    double headroomWeight = 0.05;    ///< step-time share per unit of HBM slack
    Precision precision = Precision::None;  ///< None = no workload config (reference: config=None)
    std::optional<int> steps;        ///< labels the report; enters no bucket. nullopt = profile default

    bool operator==(const Thresholds &) const = default;
};

/// Where a number came from: measured on a trace or by telemetry, estimated (a heuristic, a
/// name pattern or a stand-in), or unknown (nothing said; shown as "—", never as 0).
enum class ValueState : quint8 { Measured, Estimated, Unknown };
QString valueStateName(ValueState state);  ///< "measured", "estimated", "unknown"
/// The weaker of two states, for a value made of both: unknown beats estimated beats measured.
ValueState weakerState(ValueState a, ValueState b);

/// What computeWasteBudget decided for one bucket: it counted, or why it is 0.
enum class BucketGate : quint8 {
    Counted,                ///< the formula applied (its value may still be 0)
    NoStepTime,             ///< step time <= 0: every bucket is 0
    DataWaitNotMet,         ///< GPU util not below its threshold, or the host not busier than its threshold
    NoHbmTelemetry,         ///< no (positive) HBM peak
    NoHbmCapacity,          ///< capacity <= 0
    HbmNotBelowTarget,      ///< peak / capacity is at or above the target
    PrecisionFastPath,      ///< the workload runs bf16 or fp8
    NoPrecisionTaggedTime,  ///< no fp16- or bf16-tagged kernel time
    UtilNotMeasured,        ///< useful GPU, workbench profile: nothing measured utilisation
    HostNotTraced,          ///< data wait / host gap: no CPU activity in the trace to tell them apart
};

/// The operands the seven formulas used, exactly as computeWasteBudget used them; bucketFormula()
/// prints these and evaluates nothing.
struct BudgetTerms {
    static constexpr int BucketCount = 7;
    std::array<BucketGate, BucketCount> gates{};  ///< WasteBudget order
    double stepS = 0.0;
    double gpuUtilPct = 0.0;       ///< as given
    double util = 0.0;             ///< gpuUtilPct / 100, the factor the formulas use
    bool gpuUtilKnown = true;
    double hostBusy = 0.0;
    double gpuUtilBelowPct = 0.0;  ///< data-wait gate
    double hostBusyAbove = 0.0;    ///< data-wait gate
    double spentS = 0.0;           ///< sum of the six waste buckets
    qint64 genericGemmNs = 0;
    qint64 gemmNs = 0;             ///< 0: the divisor was 1 ns
    qint64 fp16Ns = 0;
    qint64 precisionDenomNs = 0;   ///< fp16 + bf16 time
    double precisionWeight = 0.0;
    Precision precision = Precision::None;
    std::optional<double> hbmPeakGb;
    double hbmCapacityGb = 0.0;
    double hbmTargetPct = 0.0;
    double hbmUsed = 0.0;          ///< peak / capacity
    double hbmTarget = 0.0;        ///< target / 100
    double hbmSlack = 0.0;         ///< (target − used) / target
    double headroomWeight = 0.0;

    // The measured budget (measuredbudget.h): the step's timeline in seconds, as partitioned.
    bool measured = false;         ///< built on a GPU timeline, not on the seed's formulas
    bool hostKnown = true;         ///< the trace shows the host's activity (CPU ops or data-loading ranges)
    bool dataWaitGateMet = false;  ///< util below and host busy above their thresholds: host idle is data wait
    double computeS = 0.0;         ///< busy compute (union of non-collective kernels)
    double exposedCommS = 0.0;     ///< collectives no compute kernel overlaps
    double h2dCopyS = 0.0;         ///< host-to-device copies no kernel overlaps
    double otherCopyS = 0.0;       ///< other copies and memsets no kernel overlaps
    double idleDataS = 0.0;        ///< GPU idle inside a data-loading range
    double idleHostS = 0.0;        ///< GPU idle while other host work runs
    double idleNothingS = 0.0;     ///< GPU idle while the host runs nothing traced (launch gaps)
    double genericGemmS = 0.0;     ///< untuned GEMM kernel time in the step
    double fp16S = 0.0;            ///< fp16-tagged kernel time in the step
    double headroomWantedS = 0.0;  ///< slack × step × weight before the cap at the idle it is taken from

    bool operator==(const BudgetTerms &) const = default;
};

/// Seconds per training step in each bucket.
struct WasteBudget {
    double usefulGpu = 0.0;
    double dataWait = 0.0;
    double hostGap = 0.0;
    double commExcess = 0.0;
    double memoryHeadroom = 0.0;
    double precisionPath = 0.0;
    double kernelShape = 0.0;
    /// Workbench profile, utilisation not measured: the leftover of the step that would have been
    /// booked as useful GPU time. Not one of the seven buckets (report key `unattributed_s`).
    double unattributed = 0.0;
    BudgetTerms terms;  ///< how each bucket was computed (tooltips, the formula column)
    /// The state of each bucket, then of `unattributed` (index BucketCount).
    std::array<ValueState, BudgetTerms::BucketCount + 1> states{ValueState::Unknown, ValueState::Unknown,
                                                                ValueState::Unknown, ValueState::Unknown,
                                                                ValueState::Unknown, ValueState::Unknown,
                                                                ValueState::Unknown, ValueState::Unknown};

    static constexpr int BucketCount = BudgetTerms::BucketCount;
    static constexpr int UnattributedIndex = BucketCount;  ///< index of `unattributed` in states
    double bucket(int index) const;           ///< in the order of bucketKey()
    static QString bucketKey(int index);      ///< "useful_gpu", "data_wait", …
    static QString bucketLabel(int index);    ///< "Useful GPU", "Data wait", …
    /// True when part of the step is booked as `unattributed` (nothing measured utilisation, or
    /// the timeline shows time no bucket claims).
    bool hasUnattributed() const { return terms.gates[0] == BucketGate::UtilNotMeasured || unattributed > 0.0; }
    ValueState state(int index) const { return index >= 0 && index <= BucketCount ? states[std::size_t(index)] : ValueState::Unknown; }
    bool operator==(const WasteBudget &) const = default;
};

/// Rows of budget tables and charts: the seven buckets (WasteBudget order), then the leftover
/// nothing measured (workbench profile, utilisation unknown), then the step time.
inline constexpr int kUnattributedRow = WasteBudget::BucketCount;
inline constexpr int kStepTimeRow = WasteBudget::BucketCount + 1;
inline constexpr int kBudgetRowCount = WasteBudget::BucketCount + 2;

/// Label of a budget row: bucketLabel(), "Not measured" or "Step time".
QString budgetRowLabel(int row);
/// Seconds of a budget row.
double budgetRowSeconds(const WasteBudget &budget, int row);

/// The few numbers the budget needs, fixed at load for one profile.
struct BudgetInputs {
    double stepTimeS = 0.0;         ///< seconds per step; <= 0 gives an all-zero budget
    double gpuUtilPct = 0.0;        ///< resolved utilisation (telemetry, else kernel-derived)
    /// False when nothing measured the GPU (no telemetry, no kernel timeline): the workbench then
    /// says so instead of booking the leftover as useful GPU time. The reference profile ignores it.
    bool gpuUtilKnown = true;
    double hostBusyFraction = 0.0;
    bool hostBusyKnown = true;      ///< false: nothing traced the host (read as 0 by the formulas)
    bool kernelsKnown = true;       ///< false: no kernel list (the kernel sums below are not 0, they are unknown)
    std::optional<double> hbmPeakGb;
    double commExcessS = 0.0;       ///< collective seconds (reference: trace-wide sum; workbench: per step per GPU)
    qint64 gemmNs = 0;              ///< kernel time of GEMM kernels
    qint64 genericGemmNs = 0;       ///< … of which generic/fallback GEMMs
    qint64 fp16Ns = 0;              ///< kernel time of fp16-tagged kernels
    qint64 bf16Ns = 0;              ///< kernel time of bf16-tagged kernels
};

/// The reference's seven-bucket formulas (profile_parser._waste_budget), with its constants
/// replaced by the thresholds, and the terms each bucket was computed from. Pure and cheap: a
/// handful of floating-point operations. In the workbench profile, inputs with !gpuUtilKnown book
/// the leftover as `unattributed` instead of useful GPU; the reference profile ignores the flag.
WasteBudget computeWasteBudget(const BudgetInputs &inputs, const Thresholds &thresholds, HeuristicsProfile profile);
/// The workbench profile's budget (the reference profile differs only for !gpuUtilKnown, which
/// the reference's analysis never sets).
WasteBudget computeWasteBudget(const BudgetInputs &inputs, const Thresholds &thresholds);

} // namespace goblin
