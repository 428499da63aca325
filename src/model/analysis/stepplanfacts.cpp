#include "decidefacts.h"

namespace goblin {

StepPlanFacts decideStepPlan(const RunAnalysis &run)
{
    Q_UNUSED(run);
    return {};
}

} // namespace goblin
