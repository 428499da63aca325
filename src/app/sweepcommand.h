#pragma once
// `goblin-workbench sweep RUN --threshold NAME --from A --to B --by S`: each waste bucket as a
// function of one threshold, every point what `report` gives at that value. Needs no display.

#include <QStringList>

namespace goblin {

int runSweepCommand(const QStringList &arguments);

} // namespace goblin
