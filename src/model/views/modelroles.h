#pragma once
/// \file Item-data roles shared by every model and delegate of the workbench.

#include <Qt>

namespace goblin {

enum ModelRole : int {
    SortRole = Qt::UserRole + 1,  ///< raw value the proxies sort on (numbers, never formatted text)
    RawValueRole,                 ///< the number behind a cell, in the unit its column names
    FractionRole,                 ///< 0..1 share drawn as an in-cell bar by PercentBarDelegate
    NameIdRole,                   ///< kernel name id (index into KernelTrace::names)
    RunRowRole,                   ///< row of the run a cell belongs to in RunModel
    FormulaRole,                  ///< a budget bucket's formula with the live numbers plugged in
    SeverityRole,                 ///< goblin::Severity as int
    FileRole,                     ///< file a diagnostic names, relative to the run folder
    LineRole,                     ///< 1-based line a diagnostic names; 0 = whole file
    StateRole,                    ///< goblin::ValueState as int: measured, estimated or unknown (shown as "—")
    SourceRole,                   ///< where a number came from, or why it is unknown, in a short phrase
    RoleCount
};

} // namespace goblin
