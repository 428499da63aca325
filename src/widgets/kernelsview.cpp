#include "kernelsview.h"

#include "csvexport.h"
#include "percentbardelegate.h"
#include "runmodel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QStyleOptionHeader>
#include <QTimer>
#include <QRegularExpression>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace goblin
{

namespace
{

/// A header whose titles wrap at word boundaries within their section (QHeaderView only breaks
/// at '\n', and a model's TextAlignmentRole overrides any TextWordWrap): numbers keep narrow
/// columns under "Total whole trace, all GPUs".
class WrappingHeader : public QHeaderView
{
public:
    using QHeaderView::QHeaderView;

protected:
    void paintSection(QPainter *painter, const QRect &rect, int logicalIndex) const override
    {
        if (!rect.isValid())
            return;
        QStyleOptionHeader opt;
        initStyleOption(&opt);
        opt.rect = rect;
        opt.section = logicalIndex;
        opt.text.clear();  // the frame, background and sort arrow; the text is drawn below
        if (isSortIndicatorShown() && sortIndicatorSection() == logicalIndex)
            opt.sortIndicator = sortIndicatorOrder() == Qt::AscendingOrder ? QStyleOptionHeader::SortDown
                                                                          : QStyleOptionHeader::SortUp;
        style()->drawControl(QStyle::CE_Header, &opt, painter, this);
        const QString text = model() ? model()->headerData(logicalIndex, orientation()).toString() : QString();
        const int arrow = opt.sortIndicator != QStyleOptionHeader::None ? fontMetrics().height() : 0;
        painter->save();
        // The style leaves its own clip and brush behind: without a fresh clip the text vanished.
        painter->setClipRect(rect);
        painter->setOpacity(1.0);
        painter->setBrush(Qt::NoBrush);
        painter->setPen(palette().color(QPalette::ButtonText));
        painter->drawText(rect.adjusted(3, 1, -3 - arrow, -1), Qt::AlignCenter | Qt::TextWordWrap,
                          QString(text).replace(QLatin1Char('\n'), QLatin1Char(' ')));
        painter->restore();
    }
};

} // namespace

KernelsView::KernelsView(QWidget *parent) : QWidget(parent), m_table(new QTableView(this))
{
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    // GEMM kernels (Cijk_Ailk_Bljk_…) differ in their middle: keep both ends in view.
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false);  // one line per kernel: the name elides, its tooltip is whole
    m_table->setHorizontalHeader(new WrappingHeader(Qt::Horizontal, m_table));
    m_table->horizontalHeader()->setSectionsClickable(true);
    m_table->horizontalHeader()->setHighlightSections(false);
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
    QHeaderView *header = m_table->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(RunModel::NameColumn, QHeaderView::Stretch);
    // Headers such as "Total / whole trace, all GPUs" wrap at word boundaries rather than widen
    // their column: up to five lines of header ("Total / whole trace, all GPUs" in a 4 em column),
    // numbers as wide as they are.
    header->setMinimumHeight(5 * header->fontMetrics().lineSpacing() + 8);
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
    const QAbstractItemModel *model = m_table->model();
    if (!model)
        return;
    QHeaderView *header = m_table->horizontalHeader();
    const QFontMetrics fm = header->fontMetrics();
    const int em = fm.height();
    // Room for the padding and the sort arrow.
    const int headerPadding = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin) + em / 2;
    for (int column = RunModel::ClassColumn; column < header->count(); ++column) {
        // The widest word of the header (it wraps between words), the widest cell, and at least
        // 4 em so a column of "—" can still be clicked to sort.
        int widestWord = 0;
        const QString title = model->headerData(column, Qt::Horizontal).toString();
        for (const QString &word : title.split(QRegularExpression(QStringLiteral("[\\s]+")), Qt::SkipEmptyParts))
            widestWord = std::max(widestWord, fm.horizontalAdvance(word));
        // The cells' text (the first rows are enough: the widest numbers sort to the top).
        int cells = 0;
        const QFontMetrics cellFm = m_table->fontMetrics();
        const QModelIndex root = m_table->rootIndex();
        const int rows = std::min(model->rowCount(root), 500);
        for (int row = 0; row < rows; ++row)
            cells = std::max(cells, cellFm.horizontalAdvance(model->index(row, column, root).data().toString()));
        cells += 2 * m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 8;
        // 4 em: "Total whole trace, all GPUs" wraps onto four lines; the name takes the rest.
        const int wanted = std::max({4 * em, widestWord + headerPadding, cells + 6});
        header->resizeSection(column, column == RunModel::PercentGpuColumn ? std::max(wanted, 7 * em) : wanted);
    }
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
