#include "tablecolumns.h"

#include <QAbstractItemView>
#include <QPainter>
#include <QRegularExpression>
#include <QStyle>
#include <QStyleOptionHeader>

#include <algorithm>

namespace goblin
{

namespace
{

constexpr auto kMissing = u"—";
/// Rows measured for a column's width: the widest numbers sort to the top, and a model of
/// 100 000 kernels must not be walked on every reset.
constexpr int kMeasuredRows = 500;

bool holdsNothing(const QString &text)
{
    const QString t = text.trimmed();
    return t.isEmpty() || t == QStringView(kMissing);
}

} // namespace

WrappingHeader::WrappingHeader(Qt::Orientation orientation, QWidget *parent, int lines)
    : QHeaderView(orientation, parent)
{
    setSectionsClickable(true);
    setHighlightSections(false);
    setMinimumHeight(lines * fontMetrics().lineSpacing() + 8);
}

void WrappingHeader::paintSection(QPainter *painter, const QRect &rect, int logicalIndex) const
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

bool columnHoldsNothing(const QAbstractItemModel &model, int column, const QModelIndex &root)
{
    const int rows = model.rowCount(root);
    for (int row = 0; row < rows; ++row) {
        const QModelIndex index = model.index(row, column, root);
        if (!holdsNothing(index.data().toString()))
            return false;
        const QModelIndex first = model.index(row, 0, root);
        const int children = model.rowCount(first);
        for (int child = 0; child < children; ++child)
            if (!holdsNothing(model.index(child, column, first).data().toString()))
                return false;
    }
    return true;
}

void fitNameColumnLayout(QAbstractItemView *view, QHeaderView *header, const NameColumnLayout &layout)
{
    const QAbstractItemModel *model = view->model();
    if (!model)
        return;
    const QModelIndex root = view->rootIndex();
    const QFontMetrics fm = header->fontMetrics();
    const QFontMetrics cellFm = view->fontMetrics();
    const int em = fm.height();
    // Room for the padding and the sort arrow.
    const int headerPadding = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin) + em / 2;
    const int cellPadding = 2 * view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 14;
    header->setStretchLastSection(false);
    const int columns = model->columnCount(root);
    const int rows = std::min(model->rowCount(root), kMeasuredRows);
    for (int column = 0; column < columns; ++column) {
        if (column == layout.nameColumn) {
            header->setSectionHidden(column, false);
            header->setSectionResizeMode(column, QHeaderView::Stretch);
            continue;
        }
        const bool nothing = columnHoldsNothing(*model, column, root);
        header->setSectionHidden(column, nothing);
        if (nothing)
            continue;
        header->setSectionResizeMode(column, QHeaderView::Interactive);
        // The widest word of the header (it wraps between words) and the widest cell.
        int widestWord = 0;
        const QString title = model->headerData(column, Qt::Horizontal).toString();
        static const QRegularExpression spaces(QStringLiteral("\\s+"));
        for (const QString &word : title.split(spaces, Qt::SkipEmptyParts))
            widestWord = std::max(widestWord, fm.horizontalAdvance(word));
        int cells = 0;
        for (int row = 0; row < rows; ++row)
            cells = std::max(cells, cellFm.horizontalAdvance(model->index(row, column, root).data().toString()));
        int wanted = std::max({layout.minimumEm * em, widestWord + headerPadding, cells + cellPadding});
        // Wide enough that the title wraps onto no more lines than the header has.
        const int titleHeight = layout.headerLines * fm.lineSpacing();
        while (wanted < 20 * em &&
               fm.boundingRect(QRect(0, 0, wanted - headerPadding, 100 * titleHeight), Qt::TextWordWrap, title).height() >
                   titleHeight)
            wanted += em / 2;
        if (column == layout.barColumn)
            wanted = std::max(wanted, 7 * em);
        if (column == layout.textColumn)
            wanted = std::min(wanted, 14 * em);
        header->resizeSection(column, wanted);
    }
}

} // namespace goblin
