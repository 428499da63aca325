#include "plotstyle.h"

#include "budgetformula.h"
#include "customplot.h"

namespace goblin {

bool isDarkPalette(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightnessF() < 0.5;
}

QPalette exportPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0xff, 0xff, 0xff));
    p.setColor(QPalette::WindowText, QColor(0x20, 0x20, 0x20));
    p.setColor(QPalette::Base, QColor(0xff, 0xff, 0xff));
    p.setColor(QPalette::AlternateBase, QColor(0xf3, 0xf3, 0xf3));
    p.setColor(QPalette::Text, QColor(0x20, 0x20, 0x20));
    p.setColor(QPalette::Mid, QColor(0xb0, 0xb0, 0xb0));
    p.setColor(QPalette::Midlight, QColor(0xe0, 0xe0, 0xe0));
    p.setColor(QPalette::Dark, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::PlaceholderText, QColor(0x70, 0x70, 0x70));
    p.setColor(QPalette::Highlight, QColor(0x30, 0x8c, 0xc6));
    p.setColor(QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
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

void applyPalette(QCustomPlot *plot, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::WindowText);
    const QColor grid = palette.color(QPalette::Mid);
    QColor subGrid = grid;
    subGrid.setAlpha(60);
    plot->setBackground(palette.brush(QPalette::Base));
    const QList<QCPAxisRect *> rects = plot->axisRects();
    for (QCPAxisRect *rect : rects) {
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
    if (plot->legend) {
        plot->legend->setBrush(palette.brush(QPalette::Base));
        plot->legend->setBorderPen(QPen(grid));
        plot->legend->setTextColor(text);
    }
}

} // namespace goblin
