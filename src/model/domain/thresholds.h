#pragma once
/// \file The one table of the numeric threshold knobs: every place that names, bounds, stores,
/// parses or reports a knob (editor, panel, settings, CLI, JSON report, dashboard image)
/// iterates this table instead of keeping its own list.

#include "heuristics.h"

#include <QString>
#include <array>

namespace goblin {

/// The knobs of Thresholds, in the order the panel shows them.
enum class ThresholdField {
    GpuUtilBelow,
    HostBusyAbove,
    HbmTarget,
    HbmCapacity,
    PrecisionWeight,
    HeadroomWeight,
    Precision,
    Steps,
    All,  ///< reset to defaults, restore: never merged
};
inline constexpr int kNumericThresholdFieldCount = 6;  ///< GpuUtilBelow … HeadroomWeight

/// One numeric knob, described once.
struct ThresholdDescriptor {
    ThresholdField field;
    double Thresholds::*member;
    const char *label;        ///< untranslated; label() translates
    const char *unit;         ///< "%", "GB" or ""
    double minimum;           ///< the only range of the knob: GUI, settings, CLI all clamp or refuse outside it
    double maximum;
    int decimals;             ///< what the spin box and the dashboard show
    const char *settingsKey;  ///< QSettings key
    const char *cliName;      ///< `report --NAME VALUE`
    const char *cliValueName; ///< the VALUE placeholder in --help
    const char *jsonKey;      ///< key in the report's `thresholds` object
    const char *toolTip;      ///< where the knob enters the budget (untranslated)

    QString labelText() const;
    QString unitText() const { return QString::fromLatin1(unit); }
    QString toolTipText() const;
    QString settingsKeyText() const { return QString::fromLatin1(settingsKey); }
    QString cliNameText() const { return QString::fromLatin1(cliName); }
    QString jsonKeyText() const { return QString::fromLatin1(jsonKey); }
    double defaultValue() const { return Thresholds{}.*member; }
    bool contains(double value) const { return value >= minimum && value <= maximum; }
};

/// GpuUtilBelow … HeadroomWeight, in ThresholdField order.
const std::array<ThresholdDescriptor, kNumericThresholdFieldCount> &thresholdDescriptors();
/// The descriptor of a numeric field; nullptr for Precision, Steps and All.
const ThresholdDescriptor *thresholdDescriptor(ThresholdField field);

} // namespace goblin
