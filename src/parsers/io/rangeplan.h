#pragma once
/// \file The range planner's cut: where, near a given offset of a plain JSON trace, the next
/// element of "traceEvents" starts (see kineto/rangejobs.h for how the ranges are read).

#include "io/bytesource.h"

namespace goblin::io {

/// Offset of the first '{' at or after `from` that follows '}' and ',' (with whitespace between),
/// or -1 if there is none within a megabyte.
qint64 findElementStart(ByteSource &source, qint64 from);

/// The same rule in `size` bytes of memory: the index of the first such '{' at or after `from`
/// (looking back no further than the bytes' start), or -1.
qint64 findElementStart(const char *data, qint64 size, qint64 from);

} // namespace goblin::io
