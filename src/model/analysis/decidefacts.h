#pragma once
/// \file The one stage that decides the run's facts (domain/runfacts.h), after the parsers read and
/// before any derived number. Each part is decided in its own file (jobfacts.cpp, devicefacts.cpp,
/// programfacts.cpp, stepplanfacts.cpp); later parts may read earlier ones.

#include "run.h"

namespace goblin {

JobFacts decideJob(const RunAnalysis &run);
DeviceFacts decideDevices(const RunAnalysis &run);
ProgramFacts decideProgram(const RunAnalysis &run);
StepPlanFacts decideStepPlan(const RunAnalysis &run);

/// Decides every part in order (job, devices, program, step plan) into run.facts.
void decideRunFacts(RunAnalysis &run);

} // namespace goblin
