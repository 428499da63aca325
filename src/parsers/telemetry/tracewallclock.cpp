#include "telemetry/telemetrylogs.h"

#include "io/gzipinflater.h"

#include <QFile>

#include <cstring>

namespace goblin::telemetry
{

namespace
{

/// Kineto writes its top-level keys (schemaVersion, deviceProperties … at the start; traceName,
/// displayTimeUnit and baseTimeNanoseconds after traceEvents, at the end): a megabyte at each
/// end holds them.
constexpr qint64 kEndBytes = qint64(1) << 20;

constexpr char kKey[] = "\"baseTimeNanoseconds\"";

/// The integer after `"baseTimeNanoseconds"` and a colon in `text`, if the key is there.
std::optional<qint64> findBaseTime(QByteArrayView text)
{
    const qsizetype at = text.lastIndexOf(QByteArrayView(kKey));
    if (at < 0)
        return std::nullopt;
    qsizetype i = at + qsizetype(std::strlen(kKey));
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        ++i;
    if (i >= text.size() || text[i] != ':')
        return std::nullopt;
    ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        ++i;
    qint64 value = 0;
    int digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 19) {
        value = value * 10 + (text[i] - '0');
        ++digits;
        ++i;
    }
    if (digits == 0 || (i < text.size() && (text[i] == '.' || text[i] == 'e' || text[i] == 'E')))
        return digits == 0 ? std::nullopt : std::optional<qint64>(value);  // 1.7e18 as a double: the integer part
    return value;
}

} // namespace

TraceWallClock readTraceWallClock(const QString &path, const QString &displayName)
{
    TraceWallClock clock;
    clock.file = displayName;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        clock.note = QStringLiteral("%1 cannot be opened: its wall clock is unknown").arg(displayName);
        return clock;
    }
    const QByteArray magic = file.peek(2);
    if (magic.size() == 2 && quint8(magic[0]) == 0x1f && quint8(magic[1]) == 0x8b) {
        // The key sits at the end of the text: inflate it all, keeping a key's length of overlap.
        io::GzipInflater inflater(io::bestInflateBackend());
        QString error;
        if (!inflater.initReader([&file](char *dst, qint64 max, QString *) { return file.read(dst, max); },
                                 size_t(1) << 20, &error)) {
            clock.note = QStringLiteral("%1: %2").arg(displayName, error);
            return clock;
        }
        QByteArray window;
        std::optional<qint64> found;
        std::vector<char> chunk(size_t(4) << 20);
        while (true) {
            const size_t n = inflater.read(chunk.data(), chunk.size());
            if (n == 0)
                break;
            window.append(chunk.data(), qsizetype(n));
            if (const auto v = findBaseTime(window))
                found = v;
            window = window.right(64);
        }
        clock.baseTimeNs = found;
    } else {
        const qint64 size = file.size();
        QByteArray text = file.read(std::min(size, kEndBytes));
        if (size > kEndBytes) {
            file.seek(std::max(kEndBytes, size - kEndBytes) - 64);
            text += file.read(kEndBytes + 64);
        }
        clock.baseTimeNs = findBaseTime(text);
    }
    clock.note = clock.baseTimeNs
                     ? QStringLiteral("baseTimeNanoseconds of %1 (the Unix time of its ts 0)").arg(displayName)
                     : QStringLiteral("%1 has no baseTimeNanoseconds (Kineto before 2024, or not Kineto)")
                           .arg(displayName);
    return clock;
}

} // namespace goblin::telemetry
