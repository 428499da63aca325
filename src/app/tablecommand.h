#pragma once
// `goblin-workbench table DIR…`: one CSV row per run folder (budget, utilisation, step time, top
// kernel, diagnostics count). Loads two runs at a time on two threads, so memory stays bounded
// by the two largest runs however many folders are given. Needs no display.

#include <QStringList>

namespace goblin {

int runTableCommand(const QStringList &arguments);

} // namespace goblin
