#include "kernels/celltext.h"

#include "redaction.h"

#include <cstring>

namespace goblin::kernels
{

QStringList headerNames(const std::vector<std::string_view> &fields, bool keepBom)
{
    QStringList out;
    out.reserve(qsizetype(fields.size()));
    for (size_t i = 0; i < fields.size(); ++i) {
        std::string_view f = fields[i];
        if (i == 0 && f.size() >= 3 && std::memcmp(f.data(), "\xEF\xBB\xBF", 3) == 0) {
            f.remove_prefix(3);
            out << (keepBom ? QString(QChar(0xFEFF)) + fromUtf8(f) : fromUtf8(f));
        } else {
            out << fromUtf8(f);
        }
    }
    return out;
}

QString pythonRepr(const QString &s)
{
    if (s.contains(QLatin1Char('\'')) && !s.contains(QLatin1Char('"')))
        return QLatin1Char('"') + s + QLatin1Char('"');
    QString escaped = s;
    escaped.replace(QLatin1String("\\"), QLatin1String("\\\\")).replace(QLatin1String("'"), QLatin1String("\\'"));
    return QLatin1Char('\'') + escaped + QLatin1Char('\'');
}

QString shown(std::string_view raw)
{
    return QLatin1Char('\'') + inputExcerpt(raw) + QLatin1Char('\'');
}

QString describeMb(qint64 bytes)
{
    return QString::number(double(bytes) / (1 << 20), 'f', 1) + QStringLiteral(" MB");
}

} // namespace goblin::kernels
