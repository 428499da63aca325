#pragma once
/// \file Which ops launched which kernels, from one side: the kernels an op launched, or the ops
/// that launched a kernel (AttributionScope::kernelOps).

#include "results/traceattribution.h"

#include <QAbstractTableModel>
#include <memory>

namespace goblin
{

/// Rows are the links of the current scope whose op (ByOp) or kernel (ByKernel) is the chosen
/// name; the Name column shows the other side. Links name the launching op without its input
/// shapes, so an op's kernels are those of all its shapes. Device time in ms (header says so),
/// share = the row's device time / the chosen op's (or kernel's) summed device time.
/// Thread affinity: GUI thread.
class KernelOpLinkModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum class Side { ByOp, ByKernel };
    enum Column { NameColumn, EventsColumn, DeviceTimeColumn, ShareColumn, ColumnCount };
    /// QString: the row's name (the kernel for ByOp, the op for ByKernel) on every column.
    static constexpr int LinkNameRole = Qt::UserRole + 110;

    explicit KernelOpLinkModel(QObject *parent = nullptr);

    void setAttribution(std::shared_ptr<const TraceAttribution> attribution);
    /// 0 = whole trace, i >= 1 = step i (attributiontext.h).
    void setScopeIndex(int index);
    /// Lists the kernels `name` launched (ByOp) or the ops that launched kernel `name` (ByKernel);
    /// an empty name lists nothing.
    void setSelection(Side side, const QString &name);
    Side side() const { return m_side; }
    QString selectedName() const { return m_name; }
    /// Summed device time of the listed links.
    qint64 totalDeviceNs() const { return m_totalNs; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();

    std::shared_ptr<const TraceAttribution> m_attribution;
    int m_scopeIndex = 0;
    Side m_side = Side::ByOp;
    QString m_name;
    std::vector<const KernelOpLink *> m_rows;
    qint64 m_totalNs = 0;
};

} // namespace goblin
