#include "thresholdgauge.h"

#include "formatting.h"
#include "plotstyle.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace goblin {

namespace {
constexpr double kGrabTolerancePx = 8.0;
}

ThresholdGauge::ThresholdGauge(QWidget *parent)
    : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void ThresholdGauge::setTitle(const QString &title)
{
    m_title = title;
    update();
}

void ThresholdGauge::setMaximum(double maximum)
{
    m_maximum = maximum > 0.0 ? maximum : 1.0;
    update();
}

void ThresholdGauge::setDecimals(int decimals)
{
    m_decimals = decimals;
    update();
}

void ThresholdGauge::setValue(double value)
{
    m_value = value;
    update();
}

void ThresholdGauge::setThreshold(double threshold)
{
    if (threshold == m_threshold)
        return;
    m_threshold = threshold;
    update();
}

void ThresholdGauge::setWastefulAbove(bool above)
{
    m_wastefulAbove = above;
    update();
}

QSize ThresholdGauge::sizeHint() const
{
    const int line = fontMetrics().height();
    return QSize(28 * line, 4 * line + 8);
}

QSize ThresholdGauge::minimumSizeHint() const
{
    const int line = fontMetrics().height();
    return QSize(10 * line, 4 * line + 8);
}

QRectF ThresholdGauge::scaleRect() const
{
    const int line = fontMetrics().height();
    const double margin = line * 0.6;
    return QRectF(margin, line * 1.5, width() - 2 * margin, line * 1.3);
}

double ThresholdGauge::xForValue(double value) const
{
    const QRectF r = scaleRect();
    return r.left() + r.width() * std::clamp(value / m_maximum, 0.0, 1.0);
}

double ThresholdGauge::valueForX(double x) const
{
    const QRectF r = scaleRect();
    return std::clamp((x - r.left()) / r.width(), 0.0, 1.0) * m_maximum;
}

void ThresholdGauge::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette &pal = palette();
    const QRectF r = scaleRect();
    const QColor text = pal.color(QPalette::WindowText);
    const QColor threshold = thresholdColor(pal);
    const int line = fontMetrics().height();

    // Title and numbers above the scale.
    p.setPen(text);
    const QString valueText = std::isnan(m_value) ? tr("no value") : formatNumber(m_value, m_decimals);
    p.drawText(QRectF(r.left(), 0, r.width(), line * 1.4), Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("%1: %2").arg(m_title, valueText));
    p.setPen(threshold);
    p.drawText(QRectF(r.left(), 0, r.width(), line * 1.4), Qt::AlignRight | Qt::AlignVCenter,
               tr("threshold %1").arg(formatNumber(m_threshold, m_decimals)));

    // Scale background, wasteful side shaded, value bar, threshold line.
    p.setPen(QPen(pal.color(QPalette::Mid), 1));
    p.setBrush(pal.brush(QPalette::Base));
    p.drawRect(r);
    const double tx = xForValue(m_threshold);
    QColor shade = threshold;
    shade.setAlpha(isDarkPalette(pal) ? 55 : 38);
    const QRectF wasteful = m_wastefulAbove ? QRectF(QPointF(tx, r.top()), r.bottomRight())
                                            : QRectF(r.topLeft(), QPointF(tx, r.bottom()));
    p.fillRect(wasteful, shade);
    if (!std::isnan(m_value)) {
        const QRectF bar(r.left(), r.top() + r.height() * 0.25, xForValue(m_value) - r.left(), r.height() * 0.5);
        p.fillRect(bar, pal.color(QPalette::Highlight));
    }
    p.setPen(QPen(threshold, hasFocus() || m_dragging ? 3.0 : 2.0));
    p.drawLine(QPointF(tx, r.top() - 3), QPointF(tx, r.bottom() + 3));

    // Tick labels under the scale.
    p.setPen(pal.color(QPalette::WindowText));
    const QRectF ticks(r.left(), r.bottom() + 2, r.width(), line * 1.2);
    p.drawText(ticks, Qt::AlignLeft | Qt::AlignTop, formatNumber(0.0, m_decimals > 0 ? 1 : 0));
    p.drawText(ticks, Qt::AlignHCenter | Qt::AlignTop, formatNumber(m_maximum / 2.0, m_decimals > 0 ? 2 : 0));
    p.drawText(ticks, Qt::AlignRight | Qt::AlignTop, formatNumber(m_maximum, m_decimals > 0 ? 1 : 0));
}

void ThresholdGauge::dragTo(double x)
{
    const double value = valueForX(x);
    setThreshold(value);
    emit thresholdDragged(value);
}

void ThresholdGauge::mousePressEvent(QMouseEvent *event)
{
    const QRectF grab = scaleRect().adjusted(0, -kGrabTolerancePx, 0, kGrabTolerancePx);
    if (event->button() == Qt::LeftButton && grab.contains(event->position())) {
        // A click anywhere on the scale moves the line there, as a slider's groove would.
        m_dragging = true;
        dragTo(event->position().x());
        event->accept();
        return;
    }
    QWidget::mousePressEvent(event);
}

void ThresholdGauge::mouseMoveEvent(QMouseEvent *event)
{
    if (m_dragging) {
        dragTo(event->position().x());
        return;
    }
    const bool nearLine = std::abs(event->position().x() - xForValue(m_threshold)) <= kGrabTolerancePx
        && scaleRect().adjusted(0, -kGrabTolerancePx, 0, kGrabTolerancePx).contains(event->position());
    if (nearLine)
        setCursor(Qt::SizeHorCursor);
    else
        unsetCursor();
}

void ThresholdGauge::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_dragging && event->button() == Qt::LeftButton) {
        dragTo(event->position().x());
        m_dragging = false;
        update();
        emit dragFinished();
        return;
    }
    QWidget::mouseReleaseEvent(event);
}

void ThresholdGauge::keyPressEvent(QKeyEvent *event)
{
    const double step = m_maximum / 100.0;
    double next = m_threshold;
    if (event->key() == Qt::Key_Left || event->key() == Qt::Key_Down)
        next -= step;
    else if (event->key() == Qt::Key_Right || event->key() == Qt::Key_Up)
        next += step;
    else
        return QWidget::keyPressEvent(event);
    next = std::clamp(next, 0.0, m_maximum);
    setThreshold(next);
    emit thresholdDragged(next);
}

void ThresholdGauge::keyReleaseEvent(QKeyEvent *event)
{
    if (!event->isAutoRepeat()
        && (event->key() == Qt::Key_Left || event->key() == Qt::Key_Right || event->key() == Qt::Key_Up
            || event->key() == Qt::Key_Down)) {
        emit dragFinished();
        return;
    }
    QWidget::keyReleaseEvent(event);
}

} // namespace goblin
