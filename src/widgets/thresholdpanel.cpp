#include "thresholdpanel.h"

#include "formatting.h"
#include "liveanalysis.h"
#include "workbenchsession.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

namespace goblin {

namespace {
const Precision kPrecisions[] = {Precision::None, Precision::Fp32, Precision::Fp16, Precision::Bf16, Precision::Fp8};
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
        row.runValue->setForegroundRole(QPalette::PlaceholderText);
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
        grid->addWidget(row.label, 2 * i, 0);
        grid->addWidget(row.runValue, 2 * i, 1);
        grid->addWidget(row.slider, 2 * i + 1, 0);
        grid->addWidget(row.spin, 2 * i + 1, 1);

        connect(row.slider, &QSlider::valueChanged, this, [editor, field](int position) {
            editor->changeValue(field, sliderValue(field, position));
        });
        connect(row.slider, &QSlider::sliderReleased, editor, &ThresholdEditor::endGesture);
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

    connect(live, &LiveAnalysis::thresholdsChanged, this, [this](const Thresholds &t) {
        syncThresholds(t);
        syncRunValues();
    });
    connect(live, &LiveAnalysis::runChanged, this, [this] {
        syncRunValues();
        syncProfile();
    });
    connect(live, &LiveAnalysis::profileChanged, this, [this] {
        syncRunValues();
        syncProfile();
    });
    // The quantities follow each recompute (--steps N re-cuts the span the measured values cover).
    connect(live, &LiveAnalysis::metricsChanged, this, &ThresholdPanel::syncRunValues);
    syncThresholds(live->thresholds());
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
        m_rows[std::size_t(i)].runValue->clear();
        m_rows[std::size_t(i)].runValue->setToolTip(QString());
    }
    if (analysis && live->run()) {
        const Quantities &q = live->derived().quantities;
        const Quantity &util = q[QuantityKey::GpuUtilPct];
        const Quantity &host = q[QuantityKey::HostBusyFraction];
        const Quantity &peak = q[QuantityKey::HbmPeakGb];
        const QString dash = QStringLiteral("—");
        setRunValue(ThresholdField::GpuUtilBelow, tr("run: %1").arg(util.value ? formatPercent(*util.value) : dash),
                    toolTipOf(util));
        setRunValue(ThresholdField::HostBusyAbove, tr("run: %1").arg(host.value ? formatNumber(*host.value, 2) : dash),
                    toolTipOf(host));
        const double capacity = live->thresholds().hbmCapacityGb;
        setRunValue(ThresholdField::HbmTarget,
                    tr("run peak: %1").arg(peak.value && capacity > 0.0 ? formatPercent(100.0 * *peak.value / capacity)
                                                                        : dash),
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
