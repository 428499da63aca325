#pragma once
/// \file The step strip: one bar per profiled step, as tall as the step is
/// long and stacked by that step's own budget, outliers marked. Clicking a step shows it on the
/// whole dashboard (LiveAnalysis::setSelectedStep); clicking it again or "All steps" returns to
/// the run mean. The bars follow the thresholds live. A partial last step (StepInputs::partial)
/// is drawn dimmed and hatched: it is out of the run's mean.

#include <QWidget>

class QPushButton;

namespace goblin {

class LiveAnalysis;

class StepStrip : public QWidget
{
    Q_OBJECT
public:
    explicit StepStrip(LiveAnalysis *live, QWidget *parent = nullptr);

    int stepCount() const;
    /// Where step `index`'s bar is drawn (widget coordinates; empty when out of range).
    QRectF barRect(int index) const;
    /// The step under a widget position, or -1.
    int stepAt(const QPointF &pos) const;
    /// What the tooltip says for a step: name, duration, budget, partial, outlier reason.
    QString toolTipForStep(int index) const;
    /// The title line (run mean shown): step count, the median (of all steps drawn) and the
    /// budget's step time with its scope, each labelled; and its tooltip saying why they differ.
    QString titleText() const;
    QString titleToolTip() const;
    QPushButton *allStepsButton() const { return m_all; }
    /// The bars' area (right of the button).
    QRectF plotArea() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void onRunChanged();

    LiveAnalysis *m_live;
    QPushButton *m_all;
};

} // namespace goblin
