#pragma once
/// \file The run's facts, decided once after reading and before any derived number: which files or
/// processes are ranks of one job, the step plan and its one step time, the devices and their
/// memory, and what kind of program ran. Aggregates, quantities, budgets, ranks, advice, headline,
/// views and diagnostics read these; nothing re-derives them. Each part lives in its own header;
/// analysis/decidefacts.h decides them in order (job, devices, program, steps).

#include "devicefacts.h"
#include "jobfacts.h"
#include "programfacts.h"
#include "stepplanfacts.h"

namespace goblin {

struct RunFacts {
    JobFacts job;
    DeviceFacts devices;
    ProgramFacts program;
    StepPlanFacts stepPlan;
};

} // namespace goblin
