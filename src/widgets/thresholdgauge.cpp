#include "thresholdgauge.h"

#include "formatting.h"
#include "plotstyle.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
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

void ThresholdGauge::setValue(double value, const QString &scope, const QString &source)
{
    m_value = value;
    m_scope = scope;
    m_source = source;
    update();
}

QString ThresholdGauge::valueText() const
{
    return std::isfinite(m_value) ? formatNumber(m_value, m_decimals) : QStringLiteral("—");
}

void ThresholdGauge::setThresholdHelp(const QString &help)
{
    m_thresholdHelp = help;
}

QString ThresholdGauge::toolTipText() const
{
    QStringList lines;
    lines << QStringLiteral("%1: %2").arg(m_title, valueText()) + (m_scope.isEmpty() ? QString()
                                                                                      : QStringLiteral(" (%1)").arg(m_scope));
    if (!m_source.isEmpty())
        lines << (std::isfinite(m_value) ? m_source : tr("unknown: %1").arg(m_source));
    if (!m_thresholdHelp.isEmpty())
        lines << m_thresholdHelp;
    return lines.join(QLatin1Char('\n'));
}

bool ThresholdGauge::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        QToolTip::showText(help->globalPos(), toolTipText(), this);
        return true;
    }
    return QWidget::event(event);
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

    // Title and numbers above the scale; the value's scope small after it, elided before the threshold.
    const QRectF head(r.left(), 0, r.width(), line * 1.4);
    const QString thresholdText = tr("threshold %1").arg(formatNumber(m_threshold, m_decimals));
    const QString valueLine = QStringLiteral("%1: %2").arg(m_title, valueText());
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(text);
    p.drawText(head, Qt::AlignLeft | Qt::AlignVCenter, valueLine);
    const double valueW = QFontMetricsF(bold).horizontalAdvance(valueLine);
    p.setFont(font());
    const double thresholdW = fontMetrics().horizontalAdvance(thresholdText);
    if (!m_scope.isEmpty()) {
        QFont small = font();
        small.setPointSizeF(small.pointSizeF() * 0.85);
        p.setFont(small);
        p.setPen(secondaryTextColor(pal));
        const double left = r.left() + valueW + line * 0.5;
        const double room = r.right() - thresholdW - line * 0.5 - left;
        if (room > line)
            p.drawText(QRectF(left, 0, room, line * 1.4), Qt::AlignLeft | Qt::AlignVCenter,
                       QFontMetricsF(small).elidedText(m_scope, Qt::ElideRight, room));
        p.setFont(font());
    }
    p.setPen(threshold);
    p.drawText(head, Qt::AlignRight | Qt::AlignVCenter, thresholdText);

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
    if (std::isfinite(m_value)) {
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
