#pragma once
/// \file The nn.Module hierarchy and the record_function ranges of one attribution scope as a
/// tree with host and device time.

#include "results/traceattribution.h"

#include <QAbstractItemModel>
#include <memory>
#include <vector>

namespace goblin
{

/// Top-level rows are the children of the scope's module root (the root itself, nameless, is not
/// shown). Times in ms with the unit in the header, raw ns under SortRole/RawValueRole; the device
/// share (FractionRole) is the node's device time / the scope's GPU time.
/// Thread affinity: GUI thread.
class ModuleTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, KindColumn, HostTimeColumn, DeviceTimeColumn, CallsColumn, ColumnCount };
    /// int: the node's goblin::FrameKind.
    static constexpr int FrameKindRole = Qt::UserRole + 120;

    explicit ModuleTreeModel(QObject *parent = nullptr);

    void setAttribution(std::shared_ptr<const TraceAttribution> attribution);
    /// 0 = whole trace, i >= 1 = step i (attributiontext.h).
    void setScopeIndex(int index);
    int scopeIndex() const { return m_scopeIndex; }
    const ModuleNode *node(const QModelIndex &index) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    /// The tree flattened so that a node's children are consecutive entries: internal ids are
    /// entry indexes and parent() needs no search. Entry 0 is the (hidden) root.
    struct Entry {
        const ModuleNode *node = nullptr;
        int parent = -1;
        int row = 0;
        int firstChild = -1;
    };
    void rebuild();

    std::shared_ptr<const TraceAttribution> m_attribution;
    const AttributionScope *m_scope = nullptr;
    int m_scopeIndex = 0;
    std::vector<Entry> m_entries;
};

} // namespace goblin
