#pragma once
/// \file The members of one JSON object as json.loads builds the dict (the last occurrence of a
/// key wins), each typed as a PyValue: the "metadata" object of a trace, read by both readings.

#include "syntax/jsonscanner.h"
#include "syntax/jsontoken.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace goblin::syntax {

/// Members of one JSON object, last occurrence wins as in a Python dict.
struct ObjectMembers : JsonScanner::Sink {
    std::string_view text;
    std::vector<std::pair<std::string, std::string_view>> members;
    std::string pendingKey;
    qint64 valueBeginOffset = 0;
    bool isObject = false;

    void rootKey(std::string_view key, qint64, qint64) override { pendingKey.assign(key); }
    bool valueBegin(int depth, char first, qint64 offset, qint64) override
    {
        if (depth == 0)
            isObject = first == '{';
        valueBeginOffset = offset;
        return depth == 0;
    }
    void valueEnd(int depth, qint64 endOffset, bool) override
    {
        if (depth != 1 || !isObject)
            return;
        const std::string_view value = text.substr(size_t(valueBeginOffset), size_t(endOffset - valueBeginOffset));
        for (auto &m : members)
            if (m.first == pendingKey) {
                m.second = value;
                return;
            }
        members.emplace_back(pendingKey, value);
    }
    std::optional<PyValue> get(std::string_view key) const
    {
        for (const auto &m : members)
            if (m.first == key)
                return classify(m.second);
        return std::nullopt;
    }

    /// Parses `json`; false if it is not a valid object.
    bool parse(std::string_view json)
    {
        text = json;
        JsonScanner scanner(*this);
        scanner.feed(json.data(), json.size());
        scanner.finish();
        return scanner.complete() && isObject;
    }
};

} // namespace goblin::syntax
