#pragma once
// Shared by the libFuzzer targets. Every target parses its input where libFuzzer holds it (the
// parsers' byte-span entry points), except fuzz_database: SQLite opens files by name, so its
// input goes through one private temporary file.

#include <QtGlobal>

namespace goblin::fuzz {

/// Never cancels, so the parser's progress path runs as in the application.
inline bool keepGoing(qint64 /*bytesDone*/)
{
    return true;
}

} // namespace goblin::fuzz
