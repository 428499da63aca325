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

} // namespace goblin::syntax
