#pragma once
/// \file The members of an event's flat `args` object, walked without validation or allocation:
/// the per-event readers (memory, collectives) pick their few keys from it. A key's raw value token
/// is handed on as written: a string with its quotes, a nested object or array whole, a scalar.

#include "syntax/jsonskip.h"

#include <string_view>

namespace goblin::syntax {

inline bool isJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/// Calls `member(key, value)` for each member of `object` in document order (so that a reader
/// letting a later duplicate win, as a Python dict does, assigns as it goes). Stops at the
/// object's end or at anything that is not a member.
template <class Member>
void forEachShallowMember(std::string_view object, Member &&member)
{
    const char *p = object.data();
    const char *const end = p + object.size();
    if (p == end || *p != '{')
        return;
    ++p;
    while (p < end) {
        while (p < end && (isJsonSpace(*p) || *p == ','))
            ++p;
        if (p == end || *p != '"')
            return;  // '}' (the end) or not an object member
        const char *keyBegin = ++p;
        p = skipJsonString(p, end);
        const std::string_view key(keyBegin, size_t(p - keyBegin - 1));
        while (p < end && (isJsonSpace(*p) || *p == ':'))
            ++p;
        if (p == end)
            return;
        const char *valueBegin = p;
        if (*p == '"')
            p = skipJsonString(p + 1, end);
        else if (*p == '{' || *p == '[')
            p = skipJsonNested(p, end);
        else
            while (p < end && *p != ',' && *p != '}' && !isJsonSpace(*p))
                ++p;
        member(key, std::string_view(valueBegin, size_t(p - valueBegin)));
    }
}

} // namespace goblin::syntax
