#pragma once
/// \file What the compare and sweep PNG exports share: pixel-sized fonts, one elided text line,
/// the reproducing command in small print, and the atomic PNG write through writeExportFile.

#include <QFont>
#include <QImage>
#include <QRect>
#include <QString>
#include <QStringList>

class QPainter;

namespace goblin {

/// Logical size and pixel ratio of the compare and sweep images (as the dashboard's).
inline constexpr int kExportWidth = 1600;
inline constexpr double kExportPixelRatio = 2.0;

QFont exportFont(int pixelSize, bool bold = false);

/// Draws `text` at the top of `rect` with `font`, elided to its width; returns the height used.
int drawExportLine(QPainter &p, const QRect &rect, const QString &text, const QFont &font,
                   Qt::Alignment align = Qt::AlignLeft, Qt::TextElideMode elide = Qt::ElideRight);

/// The command as a user would type it (arguments with spaces or quotes shell-quoted).
QString shellCommandText(const QStringList &argv);

/// "Reproduce with: goblin-workbench …" in small print, wrapped within `width`, its top at `y`;
/// returns the height used. heightOfCommandFooter() measures without drawing.
int drawCommandFooter(QPainter &p, int x, int y, int width, const QStringList &command);
int heightOfCommandFooter(int width, const QStringList &command);

/// Writes `image` as PNG to `path` atomically (writeExportFile). On failure returns false and
/// sets `error` naming the path and the reason.
bool writePngImage(const QImage &image, const QString &path, QString *error);

} // namespace goblin
