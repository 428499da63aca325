#pragma once
/// \file The one list of input formats (after perfetto's builtin_trace_importers.h and
/// TraceReaderRegistry): every format the workbench reads is one line of builtinFormats() in
/// registry.cpp, its descriptor defined beside its sniff in this folder. The run inventory asks
/// guessFormat() once per file; the entries call the reader the descriptor names.

#include "formats/inputformat.h"

#include <vector>

namespace goblin {

/// Every format, highest priority first (ties keep the list's order).
const std::vector<const InputFormat *> &inputFormats();

/// The format of one file (perfetto's Guess): the first format, by priority, whose place and
/// name patterns fit and whose sniff, if any, accepts the head. Null: no input of the workbench.
/// `inFolder`: the file lies in the run folder itself (not in a sub-folder).
const InputFormat *guessFormat(const QString &fileName, bool inFolder, const FileHead &head);

/// The format of what a container holds (the inflated copy of a gzipped database): the formats
/// of `role` that are no container, tried on `head` under the container's own name.
const InputFormat *guessInnerFormat(InputRole role, const QString &fileName, const FileHead &head);

/// The format registered under `name` ("chrome-trace"); null when none is.
const InputFormat *formatNamed(QLatin1String name);

/// The name filters of an Open File dialog, from this list: first everything the workbench reads,
/// then one line per kind of input ("Profiler database (*.db *.rpd …)"), then "All files (*)".
/// A format known by its content under any name is offered under the names its writers use.
QStringList openDialogNameFilters();

} // namespace goblin
