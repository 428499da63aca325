#pragma once
/// \file Tables and trees of names that read at any width (Kernels, Operators): the name column
/// takes the spare width and elides in the middle (GEMM and template names differ in their
/// middle), number columns are as wide as their widest cell or the widest word of their header
/// (the header wraps between words instead of widening them), and a column that holds nothing on
/// this run (every cell "—" or empty) is hidden. Thread affinity: GUI thread.

#include <QHeaderView>

class QAbstractItemModel;
class QAbstractItemView;
class QModelIndex;

namespace goblin
{

/// A header whose titles wrap at word boundaries within their section (QHeaderView only breaks
/// at '\n', and a model's TextAlignmentRole overrides any TextWordWrap): numbers keep narrow
/// columns under "Total whole trace, all GPUs". Tall enough for `lines` lines of title.
class WrappingHeader : public QHeaderView
{
public:
    explicit WrappingHeader(Qt::Orientation orientation, QWidget *parent = nullptr, int lines = 5);

protected:
    void paintSection(QPainter *painter, const QRect &rect, int logicalIndex) const override;
};

/// True when every cell of `column` under `root` (and one level of children below those rows)
/// reads "—" or nothing. A column of no rows holds nothing.
bool columnHoldsNothing(const QAbstractItemModel &model, int column, const QModelIndex &root);

/// How a table of names lays out its columns.
struct NameColumnLayout {
    int nameColumn = 0;
    int barColumn = -1;       ///< a share drawn as an in-cell bar: at least 7 em
    int textColumn = -1;      ///< a text column other than the name (input shapes): at most 14 em
    int minimumEm = 4;        ///< a number column's least width ("—" can still be clicked to sort)
    int headerLines = 5;      ///< a title wraps onto at most this many lines (the header's height)
};

/// Hides the columns that hold nothing on this run (never the name), fits the others to their
/// contents and lets the name column stretch into the rest of the width.
void fitNameColumnLayout(QAbstractItemView *view, QHeaderView *header, const NameColumnLayout &layout);

} // namespace goblin
