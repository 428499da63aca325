#pragma once
/// \file In-cell bar for share columns (kernel % of GPU time, budget % of step).

#include <QStyledItemDelegate>

namespace goblin {

/// Draws a bar of width FractionRole (0..1) behind the cell's text, in the palette's highlight
/// colour, so it reads in light and dark themes.
class PercentBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace goblin
