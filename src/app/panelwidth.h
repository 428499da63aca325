#pragma once
// The Thresholds dock as wide as its panel needs, also after a run fills the panel's "run:"
// values: the width computed once at start-up was that of the empty panel, so at
// 1366×768 the filled panel overflowed its dock and scrolled sideways.

class QScrollArea;

namespace goblin {

/// Keeps `scroll`'s minimum width at its widget's minimum width plus the vertical scroll bar,
/// between `minimumPx` and `maximumPx`, whenever the widget's layout changes.
void keepScrollAreaWideEnough(QScrollArea *scroll, int minimumPx, int maximumPx);

} // namespace goblin
