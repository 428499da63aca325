#pragma once
/// \file The per-rank table of the window's Ranks tab: one row per rank with its step time,
/// exposed communication, own work, utilisation, host busy and seven-bucket budget (and the
/// unattributed rest) under the current thresholds; the straggler (the rank the others wait for,
/// RankSpread::ownWorkSPerStep) is marked. Unknown values read "—" (RawValueRole NaN), never 0.
/// Recomputed from the load-time per-rank inputs on every threshold change (arithmetic only).

#include "derived.h"

#include <QAbstractTableModel>
#include <memory>

namespace goblin {

class RanksModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        FileColumn,
        StepTimeColumn,
        ExposedCommColumn,
        OwnWorkColumn,      ///< step − exposed communication: what decides the straggler
        GpuUtilColumn,
        HostBusyColumn,
        FirstBucketColumn,  ///< the seven buckets, WasteBudget order
        UnattributedColumn = FirstBucketColumn + WasteBudget::BucketCount,
        KernelsColumn,
        ColumnCount
    };
    /// The budget row (bucket index or kUnattributedRow) of a column, or -1.
    static int budgetRowOfColumn(int column);
    /// Who the straggler is, in one sentence (the tab says it; the report's rank_spread has it too).
    static QString stragglerDefinition();

    explicit RanksModel(QObject *parent = nullptr);

    /// nullptr (or a run without ranks) empties the table; the rows are `derived`'s ranks.
    void setRun(std::shared_ptr<const RunAnalysis> run, const Derived &derived);
    /// Same rows, new numbers from a recompute of the same run (dataChanged, no reset).
    void setDerived(const Derived &derived);

    const std::vector<RankResult> &results() const { return m_results; }
    const std::optional<RankSpread> &spread() const { return m_spread; }
    /// Row of the straggler (the most own work per step); -1 with fewer than two ranks.
    int stragglerRow() const;
    /// One line for the panel: "4 ranks: step 5.6–15.4 ms, straggler rank 2; …".
    QString spreadText() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    /// NaN where the value is unknown.
    double rawValue(const RankResult &x, int column) const;
    std::shared_ptr<const RunAnalysis> m_run;
    std::vector<RankResult> m_results;
    std::optional<RankSpread> m_spread;
};

} // namespace goblin
