#pragma once
/// \file The open runs and, under each, its distinct kernel names with per-name statistics.

#include "kernelroofline.h"
#include "runanalysis.h"

#include <QAbstractItemModel>
#include <memory>
#include <vector>

namespace goblin {

/// Tree model: top-level rows are runs, their children are the run's kernel names (one row per
/// interned name; names the current profile did not use have 0 calls and are hidden by
/// KernelFilterProxy). The statistics shown are those of the current heuristics profile.
/// Thread affinity: GUI thread. Runs are immutable and shared with exporters.
class RunModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    /// Calls and Total are whole-trace sums over every GPU; the per-step columns beside them divide
    /// those sums by the workbench's per-step-per-GPU divisor (GPUs × steps the trace covers), the
    /// same divisor the budget uses, and read "—" when the run gives no step count.
    enum Column {
        NameColumn,
        ClassColumn,
        CallsColumn,
        CallsPerStepColumn,
        TotalTimeColumn,
        TimePerStepColumn,
        MeanColumn,
        MinColumn,
        MaxColumn,
        PercentGpuColumn,
        /// Matrix kernels (GEMM, convolution, attention) against the GPU's roof: FLOPs from the
        /// shapes of the op calls that launched them (analysis/kernelroofline.h); "—" with the
        /// reason in the tooltip when unknown.
        FlopsColumn,
        AchievedTflopsColumn,
        RoofPercentColumn,
        ColumnCount
    };

    explicit RunModel(QObject *parent = nullptr);
    ~RunModel() override;

    /// Appends `run`; a run of the same folder already open is replaced in place (reload).
    /// Returns the run's row.
    int addRun(std::shared_ptr<const RunAnalysis> run);
    void removeRun(int row);
    int runCount() const { return int(m_runs.size()); }
    std::shared_ptr<const RunAnalysis> run(int row) const;
    int rowOfRunDir(const QString &runDir) const;
    QModelIndex runIndex(int row, int column = 0) const;
    /// Row of the run `index` belongs to (the run itself or one of its kernels); -1 if invalid.
    int runRowOf(const QModelIndex &index) const;

    HeuristicsProfile profile() const { return m_profile; }
    /// Switches the statistics of every kernel row; emits dataChanged, never a reset.
    void setProfile(HeuristicsProfile profile);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    /// The run's kernels against the roof, per name id (computed once when the run is added).
    struct KernelRooflines {
        std::vector<KernelRoofline> perName;
    };
    struct Entry {
        quintptr id;  ///< stable across removals; the internal id of the run's kernel rows
        std::shared_ptr<const RunAnalysis> run;
        std::shared_ptr<const KernelRooflines> rooflines;
    };
    static std::shared_ptr<const KernelRooflines> rooflinesOf(const RunAnalysis &run);
    QVariant rooflineData(const KernelRoofline &r, int column, int role) const;
    int rowOfId(quintptr id) const;
    QVariant runData(const RunAnalysis &run, int row, int column, int role) const;
    QVariant kernelData(const RunAnalysis &run, int runRow, std::size_t nameId, int column, int role) const;

    std::vector<Entry> m_runs;
    quintptr m_nextId = 1;
    HeuristicsProfile m_profile = HeuristicsProfile::Workbench;
};

} // namespace goblin
