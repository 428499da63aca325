#pragma once
// The window's hand-off: File > Export Step as Chrome Trace… and Export Run as
// Chrome Trace…, with the writer `goblin-workbench export-trace` uses (chrometraceexport.h).

#include <QString>

class QMenu;
class QWidget;

namespace goblin {

class TimelinePanel;
class WorkbenchSession;

/// Adds both actions to `menu` (object names "exportStepTrace", "exportRunTrace"), enabled while
/// the session has a current run. The step one exports the step the Timeline view's strip shows,
/// with the view's step field.
void addChromeTraceActions(QWidget *window, QMenu *menu, WorkbenchSession *session, TimelinePanel *timeline);

} // namespace goblin
