#include "decidefacts.h"

namespace goblin {

void decideRunFacts(RunAnalysis &run)
{
    run.facts.job = decideJob(run);
    run.facts.devices = decideDevices(run);
    run.facts.program = decideProgram(run);
    run.facts.stepPlan = decideStepPlan(run);
}

} // namespace goblin
