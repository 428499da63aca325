#include "plotstyle.h"

#include "budgetformula.h"
#include "customplot.h"
#include "theme.h"

#include <QApplication>
#include <QEvent>
#include <QLabel>
#include <QWidget>
#include <algorithm>
#include <cmath>

namespace goblin {

bool isDarkPalette(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightnessF() < 0.5;
}

QPalette exportPalette()
{
    // Every role set, in every group: a default-constructed QPalette starts from the application's,
    // so under a dark theme the roles left unset (Button, Light, Shadow, tooltips, …) came out dark
    // on the white page.
    QPalette p = lightPalette();
    const QColor white(0xff, 0xff, 0xff), ink(0x20, 0x20, 0x20);
    for (QPalette::ColorGroup g : {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
        p.setColor(g, QPalette::Window, white);
        p.setColor(g, QPalette::Base, white);
        p.setColor(g, QPalette::Button, white);
        p.setColor(g, QPalette::AlternateBase, QColor(0xf3, 0xf3, 0xf3));
        for (QPalette::ColorRole r : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::ToolTipText})
            p.setColor(g, r, ink);
        p.setColor(g, QPalette::Mid, QColor(0xb0, 0xb0, 0xb0));
        p.setColor(g, QPalette::Midlight, QColor(0xe0, 0xe0, 0xe0));
        p.setColor(g, QPalette::Dark, QColor(0x80, 0x80, 0x80));
        // Secondary text on paper: 5.9:1 on white (printers lighten greys; 4.5:1 would fade).
        p.setColor(g, QPalette::PlaceholderText, QColor(0x66, 0x66, 0x66));
        p.setColor(g, QPalette::Highlight, QColor(0x30, 0x8c, 0xc6));
        p.setColor(g, QPalette::HighlightedText, white);
    }
    p.setCurrentColorGroup(QPalette::Active);
    return p;
}

QColor bucketColor(int index, const QPalette &palette)
{
    static const QColor colors[WasteBudget::BucketCount] = {
        QColor(0x00, 0x9e, 0x73),  // useful GPU: green
        QColor(0xe6, 0x9f, 0x00),  // data wait: orange
        QColor(0xf0, 0xe4, 0x42),  // host gap: yellow
        QColor(0x00, 0x72, 0xb2),  // collective comm: blue
        QColor(0xcc, 0x79, 0xa7),  // memory headroom: purple
        QColor(0xd5, 0x5e, 0x00),  // precision path: vermillion
        QColor(0x56, 0xb4, 0xe9),  // kernel shape: sky blue
    };
    if (index >= 0 && index < WasteBudget::BucketCount)
        return colors[index];
    if (index == WasteBudget::BucketCount)
        return QColor(0x99, 0x99, 0x99);  // unattributed: grey (drawn hatched)
    // The step time: a neutral grey that stands out from the background (a dark palette's Dark
    // is nearly its Base, which hid the bar).
    return isDarkPalette(palette) ? QColor(0x8a, 0x8a, 0x8a) : palette.color(QPalette::Dark);
}

QColor seriesColor(int index)
{
    static const QColor colors[] = {QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00), QColor(0x00, 0x9e, 0x73),
                                    QColor(0xcc, 0x79, 0xa7), QColor(0x56, 0xb4, 0xe9), QColor(0xd5, 0x5e, 0x00),
                                    QColor(0xf0, 0xe4, 0x42), QColor(0x99, 0x99, 0x99)};
    constexpr int count = int(sizeof(colors) / sizeof(colors[0]));
    return colors[((index % count) + count) % count];
}

QColor thresholdColor(const QPalette &palette)
{
    return isDarkPalette(palette) ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc0, 0x1c, 0x28);
}

QChart::ChartTheme chartThemeFor(const QPalette &palette)
{
    return isDarkPalette(palette) ? QChart::ChartThemeDark : QChart::ChartThemeLight;
}

void applyPalette(QCPAxisRect *rect, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::WindowText);
    const QColor grid = palette.color(QPalette::Mid);
    QColor subGrid = grid;
    subGrid.setAlpha(60);
    rect->setBackground(palette.brush(QPalette::Base));
    const QList<QCPAxis *> axes = rect->axes();
    for (QCPAxis *axis : axes) {
        axis->setBasePen(QPen(text, 1));
        axis->setTickPen(QPen(text, 1));
        axis->setSubTickPen(QPen(text, 1));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
        axis->grid()->setSubGridPen(QPen(subGrid, 1, Qt::DotLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
}

void applyPalette(QCustomPlot *plot, const QPalette &palette)
{
    plot->setBackground(palette.brush(QPalette::Base));
    const QList<QCPAxisRect *> rects = plot->axisRects();
    for (QCPAxisRect *rect : rects)
        applyPalette(rect, palette);
    if (plot->legend) {
        plot->legend->setBrush(palette.brush(QPalette::Base));
        plot->legend->setBorderPen(QPen(palette.color(QPalette::Mid)));
        plot->legend->setTextColor(palette.color(QPalette::WindowText));
    }
}

double contrastRatio(const QColor &a, const QColor &b)
{
    const auto luminance = [](const QColor &c) {
        const auto channel = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        const QColor rgb = c.toRgb();
        return 0.2126 * channel(rgb.redF()) + 0.7152 * channel(rgb.greenF()) + 0.0722 * channel(rgb.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor secondaryTextColor(const QPalette &palette)
{
    const QColor from = palette.color(QPalette::PlaceholderText).toRgb();
    const QColor to = palette.color(QPalette::WindowText).toRgb();
    const auto readable = [&](const QColor &c) {
        return contrastRatio(c, palette.color(QPalette::Window)) >= kMinTextContrast
            && contrastRatio(c, palette.color(QPalette::Base)) >= kMinTextContrast;
    };
    // The least change that reads: secondary text should still look secondary.
    for (int step = 0; step <= 20; ++step) {
        const double t = step / 20.0;
        const QColor c = QColor::fromRgbF(float(from.redF() + (to.redF() - from.redF()) * t),
                                          float(from.greenF() + (to.greenF() - from.greenF()) * t),
                                          float(from.blueF() + (to.blueF() - from.blueF()) * t));
        if (readable(c))
            return c;
    }
    return to;
}

namespace {

/// Recomputes a secondary-text widget's colour whenever the palette it inherits changes.
class SecondaryTextKeeper : public QObject
{
public:
    using QObject::QObject;
    static void refresh(QWidget *widget)
    {
        const QPalette inherited = widget->parentWidget() ? widget->parentWidget()->palette() : QApplication::palette(widget);
        const QColor color = secondaryTextColor(inherited);
        if (widget->palette().color(QPalette::PlaceholderText) == color)
            return;  // also ends the PaletteChange that setPalette() below sends
        QPalette own = widget->palette();
        own.setColor(QPalette::PlaceholderText, color);
        widget->setPalette(own);
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ParentChange)
            refresh(static_cast<QWidget *>(watched));
        return false;
    }
};

/// Re-sets a rich-text label's text when its palette changes: Qt colours a link when it parses
/// the HTML (from the application palette of that moment), so without a new parse a theme switch
/// left the old theme's link blue on the new background (1.7:1 on the dark window).
class RichTextRefresher : public QObject
{
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::PaletteChange) {
            auto *label = static_cast<QLabel *>(watched);
            const QString text = label->text();
            if (!text.isEmpty()) {
                label->clear();  // setText() of the same text would not parse it again
                label->setText(text);
            }
        }
        return false;
    }
};

} // namespace

void keepLinksInPalette(QLabel *label)
{
    label->installEventFilter(new RichTextRefresher(label));
}

void fitLegendToWidth(QCPLegend *legend, int width)
{
    // One row per `columns` items, as many columns as the widest item allows: a fixed wrap cut
    // the last names of an eight-GPU legend off the right edge of a 1000 px export.
    int widest = 1;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem *item = legend->item(i))
            widest = std::max(widest, item->minimumOuterSizeHint().width());
    const int room = width - legend->margins().left() - legend->margins().right();
    const int columns = std::max(1, (room + legend->columnSpacing()) / (widest + legend->columnSpacing()));
    if (legend->wrap() != columns) {
        legend->setWrap(columns);
        legend->setFillOrder(legend->fillOrder(), true);  // re-flows the items into the new wrap
    }
}

void useSecondaryText(QWidget *widget)
{
    widget->setForegroundRole(QPalette::PlaceholderText);
    widget->installEventFilter(new SecondaryTextKeeper(widget));
    SecondaryTextKeeper::refresh(widget);
}

} // namespace goblin
