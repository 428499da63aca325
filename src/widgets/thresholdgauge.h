#pragma once
/// \file A horizontal gauge with a draggable threshold line (host busy fraction).

#include <QString>
#include <QWidget>

namespace goblin {

/// Shows one value of the run on a 0…maximum scale with a threshold line the user drags (mouse,
/// or arrow keys in steps of 1 % of the scale); the side of the line that counts as waste is
/// shaded. Colours come from the palette. An unknown value reads "—" and has no bar.
class ThresholdGauge : public QWidget
{
    Q_OBJECT
public:
    explicit ThresholdGauge(QWidget *parent = nullptr);

    void setTitle(const QString &title);
    void setMaximum(double maximum);
    void setDecimals(int decimals);
    /// NaN: nothing measured it, drawn as "—" with no bar (never as 0). `scope` is what the value
    /// covers ("mean of 6 step(s) × 1 device(s)"), drawn small after it; `source` (where it came
    /// from, or why it is unknown) goes into the tooltip with the scope.
    void setValue(double value, const QString &scope = QString(), const QString &source = QString());
    double value() const { return m_value; }
    QString scope() const { return m_scope; }
    /// The value as drawn: formatted to the decimals, or "—".
    QString valueText() const;
    /// The tooltip: the value, its scope and source, then the threshold's own help.
    QString toolTipText() const;
    /// The threshold's help (the tooltip's last part).
    void setThresholdHelp(const QString &help);
    void setThreshold(double threshold);
    double threshold() const { return m_threshold; }
    /// True: values above the threshold are the wasteful side (host busy); false: below.
    void setWastefulAbove(bool above);

    /// Widget x of `value` on the scale, and back (the mouse handlers use these).
    double xForValue(double value) const;
    double valueForX(double x) const;
    QRectF scaleRect() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void thresholdDragged(double threshold);
    void dragFinished();

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void keyReleaseEvent(QKeyEvent *event) override;

private:
    void dragTo(double x);

    QString m_title;
    QString m_scope;
    QString m_source;
    QString m_thresholdHelp;
    double m_maximum = 1.0;
    int m_decimals = 2;
    double m_value = 0.0;
    double m_threshold = 0.5;
    bool m_wastefulAbove = true;
    bool m_dragging = false;
};

} // namespace goblin
