#include "formats/inputformat.h"

#include "io/bytesource.h"
#include "io/regularfile.h"
#include "syntax/utf8validator.h"

#include <QFile>

namespace goblin {

namespace {

/// The first line of a text head, without a byte order mark.
QString headerLineOf(const QByteArray &bytes)
{
    qsizetype end = bytes.indexOf('\n');
    QByteArray line = bytes.left(end < 0 ? bytes.size() : end).trimmed();
    if (line.startsWith("\xEF\xBB\xBF"))
        line = line.mid(3);
    return QString::fromUtf8(line);
}

/// The first line of a text head, cut to a readable length.
QString firstLine(const QByteArray &bytes)
{
    QString text = headerLineOf(bytes);
    if (text.size() > 80)
        text = text.left(77) + QStringLiteral("...");
    return text;
}

/// What the bytes of a head are, in an enum and in plain words.
void classify(FileHead &head)
{
    const QByteArray &b = head.bytes;
    if (b.isEmpty()) {
        head.content = HeadContent::Empty;
        head.contentText = QStringLiteral("empty (0 bytes)");
    } else if (b.size() >= 2 && quint8(b[0]) == 0x1f && quint8(b[1]) == 0x8b) {
        head.content = HeadContent::Gzip;
        head.contentText = QStringLiteral("gzip-compressed");
    } else if (b.startsWith(QByteArrayLiteral("SQLite format 3\0"))) {
        head.content = HeadContent::Sqlite;
        head.contentText = QStringLiteral("an SQLite database");
    } else {
        // Random bytes are almost never valid UTF-8 for long; an incomplete sequence cut by
        // the end of the head is not an error.
        syntax::Utf8Validator utf8;
        const bool nul = b.contains('\0');
        const bool invalid = utf8.feed(reinterpret_cast<const unsigned char *>(b.constData()), b.size()) >= 0;
        if (nul || invalid) {
            head.content = HeadContent::Binary;
            head.contentText = QStringLiteral("binary data, not text");
        } else {
            qsizetype i = b.startsWith("\xEF\xBB\xBF") ? 3 : 0;
            while (i < b.size() && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
                ++i;
            if (i < b.size() && (b[i] == '{' || b[i] == '[')) {
                head.content = HeadContent::Json;
                head.contentText = QStringLiteral("JSON");
            } else {
                head.content = HeadContent::Text;
                head.contentText = i == b.size() ? QStringLiteral("blank text")
                                                 : QStringLiteral("text starting \"%1\"").arg(firstLine(b.mid(i)));
            }
        }
    }
}

} // namespace

FileHead FileHead::read(const QString &path, const QFileInfo &info, bool alone)
{
    FileHead head;
    head.path = path;
    head.info = info;
    head.alone = alone;
    if (info.isDir()) {
        head.content = HeadContent::NotAFile;
        head.contentText = QStringLiteral("a folder, not a file");
        return head;
    }
    if (const QString special = specialFileProblem(path); !special.isEmpty()) {
        head.content = HeadContent::NotAFile;
        head.contentText = special;  // "is a FIFO (named pipe)": never opened, it would block
        if (head.contentText.startsWith(QLatin1String("is ")))
            head.contentText = head.contentText.mid(3);
        return head;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        head.content = HeadContent::Unreadable;
        head.contentText = QStringLiteral("cannot be opened (%1)").arg(file.errorString());
        return head;
    }
    head.bytes = file.read(kHeadBytes);
    classify(head);
    return head;
}

QString FileHead::headerLine() const
{
    return headerLineOf(bytes);
}

QByteArray FileHead::contentHead(qint64 max) const
{
    if (content != HeadContent::Gzip)
        return bytes.left(max);
    if (!m_inflated) {
        // Enough for every sniff of a gzipped file (rocprofv3 JSON: 512 bytes, pftrace: 64).
        constexpr qint64 kInflatedHeadBytes = 512;
        io::ByteSource source;
        QByteArray out(kInflatedHeadBytes, Qt::Uninitialized);
        if (source.open(io::ByteOrigin::file(path), nullptr))
            out.resize(qsizetype(source.read(out.data(), size_t(kInflatedHeadBytes))));
        else
            out.clear();
        m_inflated = out;
    }
    return m_inflated->left(max);
}

QString inputRoleName(InputRole role)
{
    switch (role) {
    case InputRole::KernelTrace: return QStringLiteral("kernel trace");
    case InputRole::ProcessKernelTrace: return QStringLiteral("per-process kernel trace");
    case InputRole::RocpdDatabase: return QStringLiteral("profiler database");  // rocpd, rpd or nsys, told by its tables
    case InputRole::RocprofJson: return QStringLiteral("rocprofv3 JSON");
    case InputRole::Pftrace: return QStringLiteral("Perfetto trace");
    case InputRole::ChromeTrace: return QStringLiteral("chrome trace");
    case InputRole::SmiTelemetry: return QStringLiteral("GPU telemetry");  // amd-smi, nvidia-smi, dcgmi, rocm-smi
    case InputRole::ApiTrace: return QStringLiteral("API trace");
    case InputRole::LookAlike: return QStringLiteral("look-alike");
    case InputRole::NotRead: return QStringLiteral("not read");
    case InputRole::Other: return QStringLiteral("other");
    }
    return {};
}

} // namespace goblin
