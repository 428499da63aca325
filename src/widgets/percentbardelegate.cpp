#include "percentbardelegate.h"

#include "modelroles.h"

#include <QApplication>
#include <QPainter>
#include <algorithm>

namespace goblin {

void PercentBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    const QWidget *widget = opt.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();

    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &opt, painter, widget);

    const double fraction = std::clamp(index.data(FractionRole).toDouble(), 0.0, 1.0);
    const bool selected = opt.state.testFlag(QStyle::State_Selected);
    QRect bar = opt.rect.adjusted(2, 3, -2, -3);
    bar.setWidth(int(bar.width() * fraction + 0.5));
    if (bar.width() > 0) {
        QColor color = opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Highlight);
        color.setAlpha(selected ? 90 : 110);
        painter->fillRect(bar, color);
    }

    const QRect textRect = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget);
    painter->save();
    painter->setFont(opt.font);
    painter->setPen(opt.palette.color(opt.state.testFlag(QStyle::State_Enabled) ? QPalette::Normal : QPalette::Disabled,
                                      selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(textRect, int(opt.displayAlignment), opt.text);
    painter->restore();
}

} // namespace goblin
