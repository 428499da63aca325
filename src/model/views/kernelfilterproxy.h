#pragma once
/// \file Sorting and filtering of the kernel rows of RunModel.

#include <QSortFilterProxyModel>

namespace goblin {

/// Sorts on SortRole (raw numbers) and filters kernel rows by a case-insensitive substring of
/// the name; rows with no calls in the current profile are hidden unless showUnused is set.
/// Run rows always pass, so a view rooted at a run keeps its root while the filter changes.
class KernelFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit KernelFilterProxy(QObject *parent = nullptr);

    QString nameFilter() const { return m_nameFilter; }
    /// Applies at once; the search box debounces before calling this.
    void setNameFilter(const QString &text);
    bool showUnused() const { return m_showUnused; }
    void setShowUnused(bool show);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_nameFilter;
    bool m_showUnused = false;
};

} // namespace goblin
