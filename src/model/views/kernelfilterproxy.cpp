#include "kernelfilterproxy.h"

#include "modelroles.h"
#include "runmodel.h"

namespace goblin {

KernelFilterProxy::KernelFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

void KernelFilterProxy::setNameFilter(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed == m_nameFilter)
        return;
    m_nameFilter = trimmed;
    invalidateFilter();
}

void KernelFilterProxy::setShowUnused(bool show)
{
    if (show == m_showUnused)
        return;
    m_showUnused = show;
    invalidateFilter();
}

bool KernelFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!sourceParent.isValid())
        return true;
    const QAbstractItemModel *source = sourceModel();
    if (!m_showUnused) {
        const QModelIndex calls = source->index(sourceRow, RunModel::CallsColumn, sourceParent);
        if (source->data(calls, SortRole).toULongLong() == 0)
            return false;
    }
    if (m_nameFilter.isEmpty())
        return true;
    const QModelIndex name = source->index(sourceRow, RunModel::NameColumn, sourceParent);
    return source->data(name, Qt::DisplayRole).toString().contains(m_nameFilter, Qt::CaseInsensitive);
}

} // namespace goblin
