#include "kerneloplinkmodel.h"

#include "attributiontext.h"
#include "formatting.h"
#include "modelroles.h"

#include <algorithm>

namespace goblin
{

KernelOpLinkModel::KernelOpLinkModel(QObject *parent) : QAbstractTableModel(parent) {}

void KernelOpLinkModel::setAttribution(std::shared_ptr<const TraceAttribution> attribution)
{
    m_attribution = std::move(attribution);
    m_scopeIndex = 0;
    m_name.clear();
    rebuild();
}

void KernelOpLinkModel::setScopeIndex(int index)
{
    m_scopeIndex = index;
    rebuild();
}

void KernelOpLinkModel::setSelection(Side side, const QString &name)
{
    m_side = side;
    m_name = name;
    rebuild();
}

void KernelOpLinkModel::rebuild()
{
    beginResetModel();
    m_rows.clear();
    m_totalNs = 0;
    const AttributionScope *scope = m_attribution ? attributionScope(*m_attribution, m_scopeIndex) : nullptr;
    if (scope && !m_name.isEmpty()) {
        for (const KernelOpLink &link : scope->kernelOps) {
            const QString &key = m_side == Side::ByOp ? link.opName : link.kernelName;
            if (key == m_name) {
                m_rows.push_back(&link);
                m_totalNs += link.deviceNs;
            }
        }
        // Largest first: the view may sort differently, but an unsorted view reads sensibly.
        std::stable_sort(m_rows.begin(), m_rows.end(),
                         [](const KernelOpLink *a, const KernelOpLink *b) { return a->deviceNs > b->deviceNs; });
    }
    endResetModel();
}

int KernelOpLinkModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int KernelOpLinkModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelOpLinkModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const KernelOpLink &link = *m_rows[std::size_t(index.row())];
    const QString &name = m_side == Side::ByOp ? link.kernelName : link.opName;
    const int column = index.column();
    const bool shareKnown = m_totalNs > 0;
    const double share = shareKnown ? double(link.deviceNs) / double(m_totalNs) : 0.0;

    switch (role) {
    case LinkNameRole:
        return name;
    case Qt::TextAlignmentRole:
        return QVariant::fromValue((column == NameColumn ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return column == NameColumn ? QVariant(name) : QVariant();
    case FractionRole:
        return column == ShareColumn && shareKnown ? QVariant(share) : QVariant();
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
        return name;
    case EventsColumn:
        return display ? QVariant(QString::number(link.events)) : QVariant(qlonglong(link.events));
    case DeviceTimeColumn:
        return display ? QVariant(formatMs(link.deviceNs)) : QVariant(qlonglong(link.deviceNs));
    case ShareColumn:
        if (display)
            return shareKnown ? formatPercent(100.0 * share, 1) : QStringLiteral("—");
        return shareKnown ? 100.0 * share : qQNaN();
    }
    return {};
}

QVariant KernelOpLinkModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    const bool byOp = m_side == Side::ByOp;
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue((section == NameColumn ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case NameColumn:
            return byOp ? tr("GPU events the selected op launched itself (all its input shapes)")
                        : tr("The innermost CPU ops around the runtime calls that launched the selected kernel");
        case EventsColumn:
            return tr("GPU events of this pair in the scope");
        case DeviceTimeColumn:
            return tr("Summed durations of those GPU events");
        case ShareColumn:
            return byOp ? tr("Share of the selected op's device self time")
                        : tr("Share of the selected kernel's attributed time");
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return byOp ? tr("Kernel") : tr("Launching op");
    case EventsColumn:
        return tr("Events");
    case DeviceTimeColumn:
        return tr("Device (ms)");
    case ShareColumn:
        return byOp ? tr("% of op") : tr("% of kernel");
    }
    return {};
}

} // namespace goblin
