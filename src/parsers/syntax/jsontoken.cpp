#include "syntax/jsontoken.h"

#include "syntax/jsonscanner.h"

namespace goblin::syntax {

QString pythonJsonMessage(const std::string &message, qint64 line, qint64 column, qint64 offset)
{
    return QStringLiteral("%1: line %2 column %3 (char %4)")
        .arg(QString::fromStdString(message))
        .arg(line)
        .arg(column)
        .arg(offset);
}

std::string stringValue(const PyValue &v)
{
    const std::string_view body = v.rawBody();
    if (body.find('\\') == std::string_view::npos)
        return std::string(body);
    return JsonScanner::unescape(body);
}

std::optional<qint64> microsToNs(const PyValue &v)
{
    if (v.nsValid)  // classify() read at most 15 digits: finite and within range
        return v.ns;
    if (v.kind != PyValue::Int && v.kind != PyValue::Float)
        return std::nullopt;
    if (!std::isfinite(v.number) || std::fabs(v.number) > 9.0e15)
        return std::nullopt;
    std::string_view t = v.raw;
    bool negative = false;
    if (!t.empty() && t[0] == '-') {
        negative = true;
        t.remove_prefix(1);
    }
    const size_t dot = t.find('.');
    if (t.find_first_of("eE") == std::string_view::npos) {
        const std::string_view whole = t.substr(0, dot);
        qint64 integer = 0;
        auto r = std::from_chars(whole.data(), whole.data() + whole.size(), integer);
        if (r.ec == std::errc() && integer <= qint64(9000000000000000)) {
            qint64 ns = integer * 1000;
            if (dot != std::string_view::npos) {
                const std::string_view fraction = t.substr(dot + 1);
                qint64 scale = 100;
                for (size_t i = 0; i < fraction.size() && i < 3; ++i, scale /= 10)
                    ns += qint64(fraction[i] - '0') * scale;
                if (fraction.size() > 3 && fraction[3] >= '5')
                    ns += 1;  // round half up on the 4th decimal; sub-ns digits never matter here
            }
            return negative ? -ns : ns;
        }
    }
    return qint64(std::llround(v.number * 1000.0));
}

} // namespace goblin::syntax
