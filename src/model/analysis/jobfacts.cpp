#include "decidefacts.h"

namespace goblin {

JobFacts decideJob(const RunAnalysis &run)
{
    Q_UNUSED(run);
    return {};
}

} // namespace goblin
