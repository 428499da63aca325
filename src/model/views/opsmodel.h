#pragma once
/// \file The Operator view's table: one row per CPU op name (and input shapes, where the trace
/// recorded them) of one attribution scope — the whole trace or one step.

#include "gpuroofs.h"
#include "oproofline.h"
#include "results/traceattribution.h"

#include <QAbstractItemModel>
#include <memory>
#include <vector>

namespace goblin
{

/// By default one row per op name, summed over its input shapes, with the shape variants as its
/// children when there are several (the TensorBoard plugin's "group by operator"); or, flat, one
/// row per name and shapes (setGroupByShapes(true)). Rows are in the trace's order (sort with a
/// QSortFilterProxyModel on SortRole). Times are shown in ms with the unit in the header; raw ns under SortRole and
/// RawValueRole. An op without recorded shapes reads "—" in the shapes column, never an empty
/// "[]". The share of GPU time is device self time / the scope's GPU time ("—" when the scope
/// holds none), under FractionRole too for an in-cell bar.
/// Thread affinity: GUI thread; the attribution is immutable and shared with the run.
class OpsModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        ShapesColumn,
        CallsColumn,
        HostSelfColumn,
        HostTotalColumn,
        HostSelfGpuIdleColumn,  ///< host self time while every GPU was idle; "—" when the trace has no GPU events
        DeviceSelfColumn,
        DeviceTotalColumn,
        KernelsColumn,
        GpuShareColumn,
        AchievedTflopsColumn,  ///< FLOPs / device self time (docs/roofline.md); — with the reason as tooltip
        EfficiencyColumn,      ///< time at the GPU's roof / device self time, %; — when the roof is unknown
        ColumnCount
    };
    /// QString: the op's name alone (DisplayRole of NameColumn is the same; this works on every column).
    static constexpr int OpNameRole = Qt::UserRole + 100;

    explicit OpsModel(QObject *parent = nullptr);

    /// Resets the model onto `attribution`'s whole-trace scope (null: no rows).
    void setAttribution(std::shared_ptr<const TraceAttribution> attribution);
    std::shared_ptr<const TraceAttribution> attribution() const { return m_attribution; }
    /// 0 = whole trace, i >= 1 = step i (attributiontext.h); an index naming no scope shows no rows.
    void setScopeIndex(int index);
    /// false (default): one row per op name, summed over its input shapes (the shapes column then
    /// shows the one shape, or how many there were, each a child row); true: one flat row per
    /// name and shapes.
    void setGroupByShapes(bool byShapes);
    /// The run's GPU roof (gpuroofs.h): the roofline columns are measured against it.
    void setGpuRoof(const GpuRoof &roof);
    const GpuRoof &gpuRoof() const { return m_roof; }
    /// The row's place against the roof (computed once per row when rows change).
    const OpRoofline *roofline(int row) const;
    /// The same for any index: a top-level row's, or a shape row's under a name of several shapes.
    const OpRoofline *rooflineAt(const QModelIndex &index) const;
    bool groupByShapes() const { return m_byShapes; }
    int scopeIndex() const { return m_scopeIndex; }
    const AttributionScope *scope() const { return m_scope; }
    /// The op of a top-level row.
    const OpStats *op(int row) const;
    /// The op of any row: a top-level row, or a shape variant under its name.
    const OpStats *opAt(const QModelIndex &index) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void regroup();
    void groupByName();
    QString rooflineToolTip(const OpRoofline &r) const;
    /// How many shape variants the row sums (1 for a child row and in the flat mode).
    int variantsAt(const QModelIndex &index) const;

    std::shared_ptr<const TraceAttribution> m_attribution;
    const AttributionScope *m_scope = nullptr;
    int m_scopeIndex = 0;
    bool m_byShapes = false;
    /// Rows summed by name (only when !m_byShapes), and the rows of m_scope->ops each sums (its
    /// children when more than one). A child index's internal id is its parent's row + 1.
    std::vector<OpStats> m_byName;
    std::vector<std::vector<int>> m_variantsOf;
    GpuRoof m_roof;
    std::vector<OpRoofline> m_rooflines;  ///< per top-level row, as op(row)
    std::vector<std::vector<OpRoofline>> m_childRooflines;  ///< per top-level row: its shape rows

};

} // namespace goblin
