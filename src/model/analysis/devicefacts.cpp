#include "decidefacts.h"

namespace goblin {

DeviceFacts decideDevices(const RunAnalysis &run)
{
    Q_UNUSED(run);
    return {};
}

} // namespace goblin
