#include "exportpainting.h"

#include "exportfile.h"
#include "redaction.h"

#include <QFontMetrics>
#include <QIODevice>
#include <QPainter>
#include <QRegularExpression>

namespace goblin {

namespace {

QString footerText(const QStringList &command)
{
    // A path or argument may carry a token; the image is an export like any other.
    return QStringLiteral("Reproduce with: ") + redactSecrets(shellCommandText(command));
}

constexpr int kFooterFlags = Qt::AlignLeft | Qt::AlignTop | Qt::TextWrapAnywhere;

} // namespace

QFont exportFont(int pixelSize, bool bold)
{
    QFont font;
    font.setPixelSize(pixelSize);
    font.setBold(bold);
    return font;
}

int drawExportLine(QPainter &p, const QRect &rect, const QString &text, const QFont &font, Qt::Alignment align,
                   Qt::TextElideMode elide)
{
    p.setFont(font);
    const QFontMetrics fm(font);
    p.drawText(rect.x(), rect.y(), rect.width(), fm.height(), int(align | Qt::AlignVCenter),
               fm.elidedText(text, elide, rect.width()));
    return fm.height();
}

QString shellCommandText(const QStringList &argv)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    QStringList out;
    for (const QString &a : argv) {
        if (plain.match(a).hasMatch()) {
            out << a;
        } else {
            QString quoted = a;
            quoted.replace(QLatin1String("'"), QLatin1String("'\\''"));
            out << QLatin1Char('\'') + quoted + QLatin1Char('\'');
        }
    }
    return out.join(QLatin1Char(' '));
}

int heightOfCommandFooter(int width, const QStringList &command)
{
    if (command.isEmpty())
        return 0;
    const QFontMetrics fm(exportFont(11));
    return fm.boundingRect(QRect(0, 0, width, 10000), kFooterFlags, footerText(command)).height();
}

int drawCommandFooter(QPainter &p, int x, int y, int width, const QStringList &command)
{
    if (command.isEmpty())
        return 0;
    const int height = heightOfCommandFooter(width, command);
    p.setFont(exportFont(11));
    p.drawText(QRect(x, y, width, height), kFooterFlags, footerText(command));
    return height;
}

bool writePngImage(const QImage &image, const QString &path, QString *error)
{
    QString encodeError;
    const bool written = writeExportFile(
        path,
        [&](QIODevice &file) {
            if (image.save(&file, "PNG"))
                return true;
            encodeError = QStringLiteral("%1: could not encode the PNG image").arg(path);
            return false;
        },
        error);
    if (!written && error && !encodeError.isEmpty())
        *error = encodeError;
    return written;
}

} // namespace goblin
