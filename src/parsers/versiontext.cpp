#include "versiontext.h"

#include <QRegularExpression>

namespace goblin {

bool looksLikeVersion(const QString &text)
{
    static const QRegularExpression shape(QStringLiteral("^\\d+(\\.\\d+){0,3}[0-9A-Za-z.+_-]{0,40}$"));
    return shape.match(text).hasMatch();
}

} // namespace goblin
