#include "panelwidth.h"

#include <QEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <algorithm>

namespace goblin {

namespace {

class WidthKeeper : public QObject
{
public:
    WidthKeeper(QScrollArea *scroll, int minimumPx, int maximumPx)
        : QObject(scroll), m_scroll(scroll), m_minimum(minimumPx), m_maximum(maximumPx)
    {
        if (QWidget *w = scroll->widget())
            w->installEventFilter(this);
        fit();
    }

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::LayoutRequest)
            fit();
        return QObject::eventFilter(watched, event);
    }

private:
    void fit()
    {
        QWidget *w = m_scroll->widget();
        if (!w)
            return;
        const int bar = m_scroll->style()->pixelMetric(QStyle::PM_ScrollBarExtent);
        const int frame = 2 * m_scroll->frameWidth();
        const int needed = std::clamp(w->minimumSizeHint().width() + bar + frame + 2, m_minimum, m_maximum);
        // Only ever wider: a narrower text after a reload must not make the dock jump.
        if (needed > m_scroll->minimumWidth())
            m_scroll->setMinimumWidth(needed);
    }

    QScrollArea *m_scroll;
    int m_minimum, m_maximum;
};

} // namespace

void keepScrollAreaWideEnough(QScrollArea *scroll, int minimumPx, int maximumPx)
{
    new WidthKeeper(scroll, minimumPx, maximumPx);
}

} // namespace goblin
