#pragma once
/// \file The Kernels table (RunModel rows under one run) with copy and a context menu.

#include <QWidget>

class QAbstractItemModel;
class QModelIndex;
class QTableView;

namespace goblin
{

/// Wraps a table of kernel rows whose NameColumn holds the full kernel name (RunModel, or a proxy
/// of it). Names are elided in the middle, the full name is the tooltip; Ctrl+C copies the
/// selected rows (tab-separated, full names, with the header); the context menu copies the name
/// or asks for the ops that launched the kernel (launchingOpsRequested). Thread affinity: GUI thread.
class KernelsView : public QWidget
{
    Q_OBJECT
public:
    explicit KernelsView(QWidget *parent = nullptr);

    /// `model` is not owned; `root` is the run whose kernels are listed (RunModel::runIndex()).
    void setModel(QAbstractItemModel *model);
    void setRootIndex(const QModelIndex &root);
    QTableView *table() const { return m_table; }
    /// The selected rows as text: a header line, then one tab-separated line per row.
    QString selectedRowsText() const;
    /// The full name of the kernel on `row` (of the table's model, under its root).
    QString kernelNameAt(const QModelIndex &index) const;

signals:
    /// "Show launching ops" on a kernel: the Operator view lists the ops that launched it.
    void launchingOpsRequested(const QString &kernelName);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    /// Numbers fit their column (the header wraps onto lines instead of widening it), the class
    /// fits its words, a column that holds nothing on this run is hidden, and the name column
    /// takes the rest (tablecolumns.h).
    void fitColumns();
    void showContextMenu(const QPoint &pos);
    void copySelection() const;

    QTableView *m_table;
};

} // namespace goblin
