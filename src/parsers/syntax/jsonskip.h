#pragma once
/// \file Skipping JSON values in bytes already validated by the scanner: what the event consumers
/// (workbench/) use to walk an event's "args" without parsing it. Inline and plain loops: the
/// strings and objects of one event's args are a few bytes long, shorter than a memchr call is worth.

namespace goblin::syntax {

/// Skips a string whose body starts at `p` (after the opening quote); returns the position after
/// the closing quote (or `end`). `escaped`, when given, is set when the body holds a backslash.
inline const char *skipJsonString(const char *p, const char *end, bool *escaped = nullptr)
{
    while (p < end) {
        const char c = *p;
        if (c == '"')
            return p + 1;
        if (c == '\\') {
            if (escaped)
                *escaped = true;
            p += 2;
            continue;
        }
        ++p;
    }
    return end;
}

/// Skips an array or object starting at `p` ('[' or '{'); returns the position after its end.
inline const char *skipJsonNested(const char *p, const char *end)
{
    int depth = 0;
    while (p < end) {
        const char c = *p++;
        if (c == '"') {
            p = skipJsonString(p, end);
        } else if (c == '[' || c == '{') {
            ++depth;
        } else if (c == ']' || c == '}') {
            if (--depth == 0)
                return p;
        }
    }
    return end;
}

} // namespace goblin::syntax
