#include "thresholdpanel.h"

#include "formatting.h"
#include "liveanalysis.h"
#include "plotstyle.h"
#include "sweep.h"
#include "workbenchsession.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QCoreApplication>
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

namespace goblin {

namespace {
const Precision kPrecisions[] = {Precision::None, Precision::Fp32, Precision::Fp16, Precision::Bf16, Precision::Fp8};

QString ms(double seconds)
{
    return formatSeconds(seconds);
}

/// The nearest switch values (sweepBreakpoints: steps' and devices' own values) above and below
/// `value`, as "next switch at 48.5 % / 12.0 %"; empty when there is none.
QString nextSwitchText(const RunAnalysis &run, const Derived &derived, SweepThreshold which, double value,
                       const std::function<QString(double)> &format)
{
    const std::vector<double> breaks = sweepBreakpoints(run, derived.profile, derived.thresholds, which, &derived.plan);
    double minimum = 0, maximum = 0;
    sweepThresholdRange(which, &minimum, &maximum);
    std::optional<double> above, below;
    for (double c : breaks) {
        if (c < minimum || c > maximum)
            continue;
        if (c > value && !above)
            above = c;
        if (c <= value)
            below = c;
    }
    QStringList parts;
    if (above)
        parts << QCoreApplication::translate("goblin::ThresholdPanel", "%1 up").arg(format(*above));
    if (below)
        parts << QCoreApplication::translate("goblin::ThresholdPanel", "%1 down").arg(format(*below));
    return parts.isEmpty() ? QString()
                           : QCoreApplication::translate("goblin::ThresholdPanel", "; next switch %1")
                                 .arg(parts.join(QStringLiteral(", ")));
}

/// "No effect on this run since 30.0 %. ": a slider drag from `start` that crossed none of the
/// threshold's switches (sweepBreakpoints(), thresholdSpanAround()); empty otherwise.
QString noEffectText(ThresholdField field, const RunAnalysis &run, const Derived &derived, double start)
{
    std::optional<SweepThreshold> which;
    switch (field) {
    case ThresholdField::GpuUtilBelow: which = SweepThreshold::GpuUtilBelow; break;
    case ThresholdField::HostBusyAbove: which = SweepThreshold::HostBusyAbove; break;
    case ThresholdField::HbmTarget: which = SweepThreshold::HbmTarget; break;
    default: return {};
    }
    const double now = thresholdValue(derived.thresholds, field);
    if (now == start)
        return {};
    const std::vector<double> breaks = sweepBreakpoints(run, derived.profile, derived.thresholds, *which, &derived.plan);
    const ThresholdSpan span = thresholdSpanAround(breaks, now, *which != SweepThreshold::HbmTarget);
    if (!span.flat || !span.contains(start))
        return {};
    return QCoreApplication::translate("goblin::ThresholdPanel", "No effect on this run since %1. ")
        .arg(field == ThresholdField::HostBusyAbove ? formatNumber(start, 2) : formatPercent(start));
}

/// "3 of 8 steps now" (steps whose data-wait gate is met on some device), or the run's gate
/// when the budget has no steps shown one by one.
QString gatedStepsText(const Derived &derived)
{
    if (const StepSeries *series = derived.steps(); series && derived.stepBudgets.size() == series->steps.size()) {
        int counted = 0, gated = 0;
        for (std::size_t i = 0; i < series->steps.size(); ++i) {
            if (series->steps[i].partial)
                continue;  // out of the run's mean, as in the budget
            ++counted;
            gated += derived.stepBudgets[i].terms.dataWaitGateMet ? 1 : 0;
        }
        return QCoreApplication::translate("goblin::ThresholdPanel", "%1 of %n step(s) now", nullptr, counted).arg(gated);
    }
    return derived.metrics.wasteBudget.terms.dataWaitGateMet
               ? QCoreApplication::translate("goblin::ThresholdPanel", "on for this run now")
               : QCoreApplication::translate("goblin::ThresholdPanel", "off for this run now");
}

} // namespace

/// What the hint line means, at length, for the tooltips (docs/budget.md, docs/charts.md).
static QString crossingHelp(ThresholdField field)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("goblin::ThresholdPanel", text); };
    switch (field) {
    case ThresholdField::GpuUtilBelow:
    case ThresholdField::HostBusyAbove:
        return tr("A step (on one of its devices) whose measured utilisation is under the GPU-util line and whose host "
                  "is busier than the host-busy line books its GPU idle during other host work as data wait instead "
                  "of host gap. The count is of the steps in the run's mean; the next switch is the nearest device "
                  "value in a step where that changes (up: raise the line past it, down: lower it past it).");
    case ThresholdField::HbmTarget:
        return tr("With the HBM peak below the target, memory headroom = (target − peak share) / target × step × "
                  "headroom weight, taken out of the host gap and capped at it: the idle a larger batch could fill.");
    case ThresholdField::PrecisionWeight:
        return tr("Precision path = fp16-tagged kernel time × this weight, carved out of useful GPU. The weight is "
                  "your estimate of what moving to bf16 saves; the trace does not measure it.");
    case ThresholdField::HeadroomWeight:
        return tr("Memory headroom = HBM slack share × step × this weight. The weight is your estimate of how much "
                  "of the step unused memory could win back; the trace does not measure it.");
    default:
        break;
    }
    return {};
}

namespace {

/// The shown budget is the mean of measured steps that each took the peak of their own telemetry
/// samples (telemetrysteps.h): its HBM use is their mean, not the run's peak.
bool stepsHaveOwnPeaks(const Derived &derived)
{
    const StepSeries *steps = derived.steps();
    return steps && derived.metrics.wasteBudget.terms.measured &&
           std::any_of(steps->steps.begin(), steps->steps.end(), [](const StepInputs &s) { return s.hbmPlaced; });
}

} // namespace

QString ThresholdPanel::crossingText(ThresholdField field, const RunAnalysis *run, const Derived &derived)
{
    if (!run)
        return {};
    const Thresholds &t = derived.thresholds;
    const WasteBudget &b = derived.metrics.wasteBudget;
    const BudgetTerms &x = b.terms;
    const auto tr = [](const char *text) { return QCoreApplication::translate("goblin::ThresholdPanel", text); };
    const bool idleUnsplit = x.measured && !x.hostKnown;
    switch (field) {
    case ThresholdField::GpuUtilBelow:
    case ThresholdField::HostBusyAbove: {
        if (idleUnsplit)
            return tr("No effect on this run: the trace shows no host activity, so its idle stays unattributed.");
        const bool util = field == ThresholdField::GpuUtilBelow;
        const QString head = util ? tr("Below %1: steps under it book host-busy idle as data wait")
                                        .arg(formatPercent(t.gpuUtilBelowPct))
                                  : tr("Above %1: steps over it book host-busy idle as data wait")
                                        .arg(formatNumber(t.hostBusyAbove, 2));
        const QString next =
            util ? nextSwitchText(*run, derived, SweepThreshold::GpuUtilBelow, t.gpuUtilBelowPct,
                                  [](double v) { return formatPercent(v, 2); })
                 : nextSwitchText(*run, derived, SweepThreshold::HostBusyAbove, t.hostBusyAbove,
                                  [](double v) { return formatNumber(v, 3); });
        return QStringLiteral("%1 — %2%3.").arg(head, gatedStepsText(derived), next);
    }
    case ThresholdField::HbmTarget: {
        // The peak the budget used (its terms), which the quantity may not show (a seed input).
        const std::optional<double> peak = x.hbmPeakGb ? x.hbmPeakGb : derived.quantities[QuantityKey::HbmPeakGb].value;
        if (!peak || !(*peak > 0.0) || !(t.hbmCapacityGb > 0.0))
            return tr("No HBM peak measured: memory headroom is unknown at any target.");
        const double usedPct = 100.0 * *peak / t.hbmCapacityGb;
        return (stepsHaveOwnPeaks(derived) ? tr("Above the steps' own peaks (%1 of capacity on average) the slack is "
                                                "memory headroom — %2.")
                                           : tr("Above the peak (%1 of capacity) the slack is memory headroom — %2."))
            .arg(formatPercent(usedPct),
                 b.memoryHeadroom > 0.0 ? tr("%1 per step now").arg(ms(b.memoryHeadroom))
                                        : (t.hbmTargetPct <= usedPct ? tr("none, the target is at or below the peak")
                                                                     : tr("none, no host gap to take it from")));
    }
    case ThresholdField::HbmCapacity: {
        const std::optional<double> peak = x.hbmPeakGb ? x.hbmPeakGb : derived.quantities[QuantityKey::HbmPeakGb].value;
        if (!peak || !(*peak > 0.0))
            return tr("The memory per GPU the HBM peak is measured against (no peak measured in this run).");
        return (stepsHaveOwnPeaks(derived)
                    ? tr("The steps' HBM peaks, %1 on average (each step's telemetry samples), are %2 of it: the "
                         "share the HBM target compares with.")
                    : tr("The HBM peak %1 is %2 of it: the share the HBM target compares with."))
            .arg(formatGb(*peak), formatPercent(t.hbmCapacityGb > 0 ? 100.0 * *peak / t.hbmCapacityGb : NAN));
    }
    case ThresholdField::PrecisionWeight:
        if (t.precision == Precision::Bf16 || t.precision == Precision::Fp8)
            return tr("No effect: the workload precision is %1, so no time is booked as precision path.")
                .arg(precisionName(t.precision));
        return tr("Share of fp16 kernel time bf16 is assumed to save (an assumption, not measured) — %1 per step "
                  "now.")
            .arg(ms(b.precisionPath));
    case ThresholdField::HeadroomWeight:
        return tr("Share of the step unused HBM is assumed to win back (an assumption, not measured) — %1 per step "
                  "now.")
            .arg(ms(b.memoryHeadroom));
    default:
        break;
    }
    return {};
}

int ThresholdPanel::sliderPosition(ThresholdField field, double value)
{
    const ThresholdFieldInfo info = thresholdFieldInfo(field);
    const double span = info.maximum - info.minimum;
    return span > 0.0 ? int(std::lround((value - info.minimum) / span * kSliderSteps)) : 0;
}

double ThresholdPanel::sliderValue(ThresholdField field, int position)
{
    const ThresholdFieldInfo info = thresholdFieldInfo(field);
    const double raw = info.minimum + (info.maximum - info.minimum) * position / kSliderSteps;
    const double scale = std::pow(10.0, info.decimals);
    return std::round(raw * scale) / scale;  // what the spin box can show
}

ThresholdPanel::ThresholdPanel(WorkbenchSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_precision(new QComboBox(this))
    , m_steps(new QSpinBox(this))
    , m_profile(new QComboBox(this))
    , m_reset(new QPushButton(tr("Reset to defaults"), this))
{
    ThresholdEditor *editor = session->editor();
    LiveAnalysis *live = session->live();

    auto *layout = new QVBoxLayout(this);

    auto *profileLabel = new QLabel(tr("&Profile"), this);
    profileLabel->setBuddy(m_profile);
    m_profile->addItem(tr("Workbench (inputs read right)"), int(HeuristicsProfile::Workbench));
    m_profile->addItem(tr("Reference (bit for bit)"), int(HeuristicsProfile::Reference));
    m_profile->setToolTip(tr("Workbench: the reference's formulas on data read right.\n"
                             "Reference: reproduces the reference RunMetrics, misreadings included."));
    layout->addWidget(profileLabel);
    layout->addWidget(m_profile);
    connect(m_profile, &QComboBox::activated, this, [this, live](int index) {
        live->setProfile(HeuristicsProfile(m_profile->itemData(index).toInt()));
    });

    auto *knobs = new QGroupBox(tr("Thresholds and weights"), this);
    auto *grid = new QGridLayout(knobs);
    grid->setColumnStretch(0, 1);
    for (int i = 0; i < kNumericThresholdFieldCount; ++i) {
        const auto field = ThresholdField(i);
        const ThresholdFieldInfo info = thresholdFieldInfo(field);
        Row &row = m_rows[std::size_t(i)];
        row.label = new QLabel(info.label, knobs);
        row.label->setToolTip(info.toolTip);
        row.runValue = new QLabel(knobs);
        row.runValue->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        useSecondaryText(row.runValue);
        row.crossing = new QLabel(knobs);
        row.crossing->setWordWrap(true);
        row.crossing->setTextFormat(Qt::PlainText);
        useSecondaryText(row.crossing);
        QFont small = row.crossing->font();
        small.setPointSizeF(small.pointSizeF() * 0.9);
        row.crossing->setFont(small);
        // A fixed three lines: a hint that grew a line during a drag moved the whole window's
        // layout (and the line being dragged) under the mouse. The tooltip has it all.
        row.crossing->setFixedHeight(3 * QFontMetrics(small).lineSpacing() + 2);
        row.crossing->setAlignment(Qt::AlignLeft | Qt::AlignTop);
        row.state = new QLabel(knobs);
        useSecondaryText(row.state);
        row.slider = new QSlider(Qt::Horizontal, knobs);
        row.slider->setRange(0, kSliderSteps);
        row.slider->setPageStep(kSliderSteps / 20);
        row.slider->setToolTip(info.toolTip);
        row.slider->setAccessibleName(info.label);
        row.spin = new QDoubleSpinBox(knobs);
        row.spin->setRange(info.minimum, info.maximum);
        row.spin->setDecimals(info.decimals);
        row.spin->setSingleStep(std::pow(10.0, -info.decimals) * (info.decimals > 1 ? 10 : 1));
        row.spin->setKeyboardTracking(false);
        if (!info.unit.isEmpty())
            row.spin->setSuffix(QLatin1Char(' ') + info.unit);
        row.spin->setToolTip(info.toolTip);
        row.spin->setAccessibleName(info.label);
        row.label->setBuddy(row.spin);
        grid->addWidget(row.label, 3 * i, 0);
        auto *runBox = new QHBoxLayout;
        runBox->setSpacing(4);
        runBox->addStretch(1);
        runBox->addWidget(row.runValue);
        runBox->addWidget(row.state);
        grid->addLayout(runBox, 3 * i, 1);
        grid->addWidget(row.slider, 3 * i + 1, 0);
        grid->addWidget(row.spin, 3 * i + 1, 1);
        grid->addWidget(row.crossing, 3 * i + 2, 0, 1, 2);

        connect(row.slider, &QSlider::valueChanged, this, [editor, field](int position) {
            editor->changeValue(field, sliderValue(field, position));
        });
        connect(row.slider, &QSlider::sliderPressed, this, [this, field] {
            Row &r = m_rows[std::size_t(field)];
            r.dragStart = thresholdValue(m_session->live()->thresholds(), field);
        });
        connect(row.slider, &QSlider::sliderReleased, editor, &ThresholdEditor::endGesture);
        connect(row.slider, &QSlider::sliderReleased, this, &ThresholdPanel::syncRunValues);
        connect(row.spin, &QDoubleSpinBox::valueChanged, this,
                [editor, field](double value) { editor->changeValue(field, value); });
        connect(row.spin, &QDoubleSpinBox::editingFinished, editor, &ThresholdEditor::endGesture);
    }
    layout->addWidget(knobs);

    auto *workload = new QGroupBox(tr("Workload"), this);
    auto *form = new QGridLayout(workload);
    auto *precisionLabel = new QLabel(tr("Preci&sion"), workload);
    precisionLabel->setBuddy(m_precision);
    for (Precision precision : kPrecisions)
        m_precision->addItem(precision == Precision::None ? tr("none (no workload config)") : precisionName(precision),
                             int(precision));
    m_precision->setToolTip(thresholdFieldInfo(ThresholdField::Precision).toolTip);
    auto *stepsLabel = new QLabel(tr("S&teps"), workload);
    stepsLabel->setBuddy(m_steps);
    m_steps->setRange(0, 1000000);
    m_steps->setToolTip(thresholdFieldInfo(ThresholdField::Steps).toolTip);
    form->addWidget(precisionLabel, 0, 0);
    form->addWidget(m_precision, 0, 1);
    form->addWidget(stepsLabel, 1, 0);
    form->addWidget(m_steps, 1, 1);
    form->setColumnStretch(1, 1);
    layout->addWidget(workload);
    connect(m_precision, &QComboBox::activated, this, [this, editor, live](int index) {
        Thresholds t = live->thresholds();
        t.precision = Precision(m_precision->itemData(index).toInt());
        editor->change(t, ThresholdField::Precision);
        editor->endGesture();
    });
    connect(m_steps, &QSpinBox::valueChanged, this,
            [editor](int steps) { editor->changeValue(ThresholdField::Steps, steps); });
    connect(m_steps, &QSpinBox::editingFinished, editor, &ThresholdEditor::endGesture);

    m_reset->setToolTip(tr("Every threshold and weight back to the reference's defaults (undoable)"));
    layout->addWidget(m_reset);
    connect(m_reset, &QPushButton::clicked, editor, &ThresholdEditor::resetToDefaults);
    layout->addStretch(1);

    // The controls show the thresholds as applied: the trace's HBM capacity while it is the default.
    connect(live, &LiveAnalysis::thresholdsChanged, this, [this, live] {
        syncThresholds(live->appliedThresholds());
        syncRunValues();
    });
    connect(live, &LiveAnalysis::runChanged, this, [this, live] {
        syncThresholds(live->appliedThresholds());
        syncRunValues();
        syncProfile();
    });
    connect(live, &LiveAnalysis::profileChanged, this, [this, live] {
        syncThresholds(live->appliedThresholds());
        syncRunValues();
        syncProfile();
    });
    // The quantities follow each recompute (--steps N re-cuts the span the measured values cover).
    connect(live, &LiveAnalysis::metricsChanged, this, &ThresholdPanel::syncRunValues);
    syncThresholds(live->appliedThresholds());
    syncRunValues();
    syncProfile();
}

void ThresholdPanel::syncThresholds(const Thresholds &t)
{
    for (int i = 0; i < kNumericThresholdFieldCount; ++i) {
        const auto field = ThresholdField(i);
        const Row &row = m_rows[std::size_t(i)];
        const double value = thresholdValue(t, field);
        const QSignalBlocker blockSlider(row.slider);
        const QSignalBlocker blockSpin(row.spin);
        // Leave a slider the user holds alone: its position is the source of this value.
        if (!row.slider->isSliderDown())
            row.slider->setValue(sliderPosition(field, value));
        row.spin->setValue(value);
    }
    {
        const QSignalBlocker block(m_precision);
        m_precision->setCurrentIndex(m_precision->findData(int(t.precision)));
    }
    const QSignalBlocker block(m_steps);
    m_steps->setValue(t.steps ? *t.steps : 0);
}

void ThresholdPanel::syncRunValues()
{
    // The run's values beside each threshold are the run's quantities (derived.h): the same numbers
    // the gauge, the plot and the exports show, "—" where nothing measured them, never 0.
    const LiveAnalysis *live = m_session->live();
    const ProfileAnalysis *analysis = live->analysis();
    const auto setRunValue = [this](ThresholdField field, const QString &text, const QString &toolTip) {
        QLabel *label = m_rows[std::size_t(field)].runValue;
        label->setText(text);
        label->setToolTip(toolTip);
    };
    const auto toolTipOf = [](const Quantity &q) {
        if (!q.value)
            return tr("unknown: %1").arg(q.source);
        return q.scope.isEmpty() ? tr("%1: %2").arg(valueStateName(q.state), q.source)
                                 : tr("%1 (%2): %3").arg(valueStateName(q.state), q.scope, q.source);
    };
    for (int i = 0; i < kNumericThresholdFieldCount; ++i) {
        const Row &row = m_rows[std::size_t(i)];
        row.runValue->clear();
        row.runValue->setToolTip(QString());
        row.state->clear();
        // What the knob does, with this run's numbers, under it and in every tooltip of its row.
        const ThresholdFieldInfo info = thresholdFieldInfo(ThresholdField(i));
        QString crossing = analysis ? crossingText(ThresholdField(i), live->run().get(), live->derived()) : QString();
        // While the slider is held: a drag that has crossed no switch says so first.
        if (analysis && row.slider->isSliderDown())
            crossing = noEffectText(ThresholdField(i), *live->run(), live->derived(), row.dragStart) + crossing;
        row.crossing->setText(crossing);
        row.crossing->setVisible(!crossing.isEmpty());
        const QString more = crossingHelp(ThresholdField(i));
        QString help = crossing.isEmpty() ? info.toolTip : info.toolTip + QStringLiteral("\n\n") + crossing;
        if (!more.isEmpty())
            help += QStringLiteral("\n\n") + more;
        for (QWidget *w : {static_cast<QWidget *>(row.label), static_cast<QWidget *>(row.slider),
                           static_cast<QWidget *>(row.spin), static_cast<QWidget *>(row.crossing)})
            w->setToolTip(help);
    }
    // The state beside the value, in its own label ("measured", "estimated"): none when unknown.
    const auto withState = [this](ThresholdField field, const Quantity &q, const QString &value) {
        QLabel *state = m_rows[std::size_t(field)].state;
        state->setText(q.value ? valueStateName(q.state) : QString());
        return value;
    };
    if (analysis && live->run()) {
        const Quantities &q = live->derived().quantities;
        const Quantity &util = q[QuantityKey::GpuUtilPct];
        const Quantity &host = q[QuantityKey::HostBusyFraction];
        const Quantity &peak = q[QuantityKey::HbmPeakGb];
        const QString dash = QStringLiteral("—");
        setRunValue(ThresholdField::GpuUtilBelow,
                    tr("run: %1").arg(withState(ThresholdField::GpuUtilBelow, util, util.value ? formatPercent(*util.value) : dash)),
                    toolTipOf(util));
        setRunValue(ThresholdField::HostBusyAbove,
                    tr("run: %1").arg(withState(ThresholdField::HostBusyAbove, host, host.value ? formatNumber(*host.value, 2) : dash)),
                    toolTipOf(host));
        const double capacity = live->appliedThresholds().hbmCapacityGb;
        setRunValue(ThresholdField::HbmTarget,
                    tr("run peak: %1")
                        .arg(withState(ThresholdField::HbmTarget, peak,
                                       peak.value && capacity > 0.0 ? formatPercent(100.0 * *peak.value / capacity) : dash)),
                    peak.value ? tr("%1 of %2 capacity; %3").arg(formatGb(*peak.value), formatGb(capacity), toolTipOf(peak))
                               : toolTipOf(peak));
    }
    m_steps->setSpecialValueText(analysis ? tr("profile default (%1)").arg(analysis->defaultSteps)
                                          : tr("profile default"));
}

void ThresholdPanel::syncProfile()
{
    const QSignalBlocker block(m_profile);
    m_profile->setCurrentIndex(m_profile->findData(int(m_session->live()->profile())));
}

} // namespace goblin
