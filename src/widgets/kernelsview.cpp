#include "kernelsview.h"

#include "csvexport.h"
#include "percentbardelegate.h"
#include "runmodel.h"
#include "tablecolumns.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeyEvent>
#include <QMenu>
#include <QTimer>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace goblin
{


KernelsView::KernelsView(QWidget *parent) : QWidget(parent), m_table(new QTableView(this))
{
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    // GEMM kernels (Cijk_Ailk_Bljk_…) differ in their middle: keep both ends in view.
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false);  // one line per kernel: the name elides, its tooltip is whole
    // Headers such as "Total / whole trace, all GPUs" wrap at word boundaries rather than widen
    // their column: up to five lines of header, numbers as wide as they are.
    m_table->setHorizontalHeader(new WrappingHeader(Qt::Horizontal, m_table));
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->setItemDelegateForColumn(RunModel::PercentGpuColumn, new PercentBarDelegate(m_table));
    m_table->installEventFilter(this);
    connect(m_table, &QWidget::customContextMenuRequested, this, &KernelsView::showContextMenu);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table);
}

void KernelsView::setModel(QAbstractItemModel *model)
{
    if (QAbstractItemModel *old = m_table->model())
        disconnect(old, nullptr, this, nullptr);
    m_table->setModel(model);
    m_table->sortByColumn(RunModel::TotalTimeColumn, Qt::DescendingOrder);
    if (model) {
        connect(model, &QAbstractItemModel::modelReset, this, &KernelsView::fitColumns);
        connect(model, &QAbstractItemModel::layoutChanged, this, &KernelsView::fitColumns);
        connect(model, &QAbstractItemModel::rowsInserted, this, &KernelsView::fitColumns);
        connect(model, &QAbstractItemModel::dataChanged, this, &KernelsView::fitColumns);
    }
    fitColumns();
}

void KernelsView::setRootIndex(const QModelIndex &root)
{
    m_table->setRootIndex(root);
    fitColumns();
    QTimer::singleShot(0, this, &KernelsView::fitColumns);  // after the model has filled the run's rows
}

void KernelsView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    fitColumns();  // the window sets the table's root (the run) directly, without telling this view
}

void KernelsView::fitColumns()
{
    // Numbers fit their column, a column that is "—" on this run (per step without a step
    // count) is hidden, the name takes the rest: at 1366 px every time column stays in view.
    fitNameColumnLayout(m_table, m_table->horizontalHeader(),
                        {RunModel::NameColumn, RunModel::PercentGpuColumn, RunModel::ClassColumn, 4, 5});
}

QString KernelsView::kernelNameAt(const QModelIndex &index) const
{
    if (!index.isValid())
        return {};
    const QModelIndex name = index.siblingAtColumn(RunModel::NameColumn);
    const QString full = name.data(Qt::ToolTipRole).toString();
    return full.isEmpty() ? name.data().toString() : full;
}

QString KernelsView::selectedRowsText() const
{
    const QAbstractItemModel *model = m_table->model();
    if (!model || !m_table->selectionModel())
        return {};
    QModelIndexList rows = m_table->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    if (rows.isEmpty())
        return {};
    QStringList lines;
    QStringList header;
    for (int column = 0; column < model->columnCount(m_table->rootIndex()); ++column)
        if (!m_table->isColumnHidden(column))
            header << model->headerData(column, Qt::Horizontal).toString().replace(QLatin1Char('\n'), QLatin1Char(' '));
    // Tab-separated as spreadsheets paste it: cells quoted and formula-like names neutralised.
    lines << csvLine(header, QLatin1Char('\t'));
    for (const QModelIndex &row : rows) {
        QStringList cells;
        for (int column = 0; column < model->columnCount(m_table->rootIndex()); ++column) {
            if (m_table->isColumnHidden(column))
                continue;
            cells << (column == RunModel::NameColumn ? kernelNameAt(row)
                                                     : row.siblingAtColumn(column).data().toString());
        }
        lines << csvLine(cells, QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void KernelsView::copySelection() const
{
    const QString text = selectedRowsText();
    if (!text.isEmpty())
        QApplication::clipboard()->setText(text);
}

bool KernelsView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_table && event->type() == QEvent::KeyPress &&
        static_cast<QKeyEvent *>(event)->matches(QKeySequence::Copy)) {
        copySelection();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void KernelsView::showContextMenu(const QPoint &pos)
{
    const QModelIndex index = m_table->indexAt(pos);
    const QString name = kernelNameAt(index);
    QMenu menu(this);
    QAction *copyName = menu.addAction(tr("Copy name"));
    copyName->setEnabled(!name.isEmpty());
    connect(copyName, &QAction::triggered, this, [name] { QApplication::clipboard()->setText(name); });
    QAction *copyRows = menu.addAction(tr("Copy rows"));
    copyRows->setShortcut(QKeySequence::Copy);
    copyRows->setEnabled(m_table->selectionModel() && m_table->selectionModel()->hasSelection());
    connect(copyRows, &QAction::triggered, this, &KernelsView::copySelection);
    menu.addSeparator();
    QAction *ops = menu.addAction(tr("Show launching ops"));
    ops->setEnabled(!name.isEmpty());
    connect(ops, &QAction::triggered, this, [this, name] { emit launchingOpsRequested(name); });
    menu.exec(m_table->viewport()->mapToGlobal(pos));
}

} // namespace goblin
