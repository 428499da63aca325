#include "moduletreemodel.h"

#include "attributiontext.h"
#include "formatting.h"
#include "modelroles.h"

namespace goblin
{

ModuleTreeModel::ModuleTreeModel(QObject *parent) : QAbstractItemModel(parent) {}

void ModuleTreeModel::setAttribution(std::shared_ptr<const TraceAttribution> attribution)
{
    beginResetModel();
    m_attribution = std::move(attribution);
    m_scopeIndex = 0;
    rebuild();
    endResetModel();
}

void ModuleTreeModel::setScopeIndex(int index)
{
    beginResetModel();
    m_scopeIndex = index;
    rebuild();
    endResetModel();
}

void ModuleTreeModel::rebuild()
{
    m_entries.clear();
    m_scope = m_attribution ? attributionScope(*m_attribution, m_scopeIndex) : nullptr;
    if (!m_scope)
        return;
    m_entries.push_back({&m_scope->modules, -1, 0, -1});
    // Breadth first, so that each node's children land next to each other.
    for (std::size_t e = 0; e < m_entries.size(); ++e) {
        const ModuleNode *node = m_entries[e].node;
        if (node->children.empty())
            continue;
        m_entries[e].firstChild = int(m_entries.size());
        for (std::size_t c = 0; c < node->children.size(); ++c)
            m_entries.push_back({&node->children[c], int(e), int(c), -1});
    }
}

const ModuleNode *ModuleTreeModel::node(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this || index.internalId() >= m_entries.size())
        return nullptr;
    return m_entries[index.internalId()].node;
}

QModelIndex ModuleTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || m_entries.empty())
        return {};
    if (parent.isValid() && (parent.model() != this || parent.column() != 0))
        return {};
    const std::size_t p = parent.isValid() ? parent.internalId() : 0;
    if (p >= m_entries.size() || row >= int(m_entries[p].node->children.size()))
        return {};
    return createIndex(row, column, quintptr(m_entries[p].firstChild + row));
}

QModelIndex ModuleTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() >= m_entries.size())
        return {};
    const int p = m_entries[child.internalId()].parent;
    if (p <= 0)
        return {}; // a top-level row (its parent is the hidden root)
    return createIndex(m_entries[std::size_t(p)].row, 0, quintptr(p));
}

int ModuleTreeModel::rowCount(const QModelIndex &parent) const
{
    if (m_entries.empty())
        return 0;
    if (!parent.isValid())
        return int(m_entries[0].node->children.size());
    if (parent.column() != 0 || parent.internalId() >= m_entries.size())
        return 0;
    return int(m_entries[parent.internalId()].node->children.size());
}

int ModuleTreeModel::columnCount(const QModelIndex &parent) const
{
    Q_UNUSED(parent)
    return ColumnCount;
}

QVariant ModuleTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const ModuleNode &n = *node(index);
    const int column = index.column();
    const bool numeric = column >= HostTimeColumn;
    const double gpuNs = m_scope ? double(m_scope->gpuTimeNs) : 0.0;

    switch (role) {
    case FrameKindRole:
        return int(n.kind);
    case Qt::TextAlignmentRole:
        return QVariant::fromValue((numeric ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (column != NameColumn)
            return {};
        return tr("%1 (%2)\nhost %3 ms, device %4 ms, %5 calls")
            .arg(n.name, frameKindName(n.kind), formatMs(n.hostNs), formatMs(n.deviceNs))
            .arg(n.calls);
    case FractionRole:
        return column == DeviceTimeColumn && gpuNs > 0 ? QVariant(double(n.deviceNs) / gpuNs) : QVariant();
    case Qt::DisplayRole:
    case SortRole:
    case RawValueRole:
        break;
    default:
        return {};
    }
    const bool display = role == Qt::DisplayRole;
    switch (column) {
    case NameColumn:
        return n.name;
    case KindColumn:
        return display || role == SortRole ? QVariant(frameKindName(n.kind)) : QVariant(int(n.kind));
    case HostTimeColumn:
        return display ? QVariant(formatMs(n.hostNs)) : QVariant(qlonglong(n.hostNs));
    case DeviceTimeColumn:
        return display ? QVariant(formatMs(n.deviceNs)) : QVariant(qlonglong(n.deviceNs));
    case CallsColumn:
        return display ? QVariant(QString::number(n.calls)) : QVariant(qlonglong(n.calls));
    }
    return {};
}

QVariant ModuleTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue((section >= HostTimeColumn ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case NameColumn:
            return tr("nn.Module frames (with_modules / with_stack) and record_function ranges, nested by time");
        case HostTimeColumn:
            return tr("Host wall time of the frame's ranges, summed over calls");
        case DeviceTimeColumn:
            return tr("GPU time of the events launched inside the frame, each event once");
        case CallsColumn:
            return tr("Ranges of this frame in the scope");
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Module / annotation");
    case KindColumn:
        return tr("Kind");
    case HostTimeColumn:
        return tr("Host (ms)");
    case DeviceTimeColumn:
        return tr("Device (ms)");
    case CallsColumn:
        return tr("Calls");
    }
    return {};
}

} // namespace goblin
