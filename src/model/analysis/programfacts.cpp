#include "decidefacts.h"

namespace goblin {

ProgramFacts decideProgram(const RunAnalysis &run)
{
    Q_UNUSED(run);
    return {};
}

} // namespace goblin
