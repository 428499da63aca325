#pragma once
/// \file Progress and cancellation shared by all parsers.

#include <QtGlobal>
#include <functional>

namespace goblin {

/// Called by a parser every few MB with the bytes of this file processed so far.
/// Returning false cancels: the parser stops at the next chunk and reports `cancelled`.
/// May be called from a worker thread; must be cheap and thread-safe.
using ProgressCallback = std::function<bool(qint64 bytesDone)>;

} // namespace goblin
