#include "formats/registry.h"

#include "formats/builtinformats.h"

#include <QDir>

#include <algorithm>

namespace goblin {

namespace {

/// The one list. Adding a format: its reader's folder, its descriptor (builtinformats.h), and a
/// line here; its priority places it among the others.
std::vector<const InputFormat *> builtinFormats()
{
    using namespace formats;
    return {
        &referenceKernelTrace(),
        &amdSmiCsv(),
        &referenceTorchTrace(),
        &processKernelTrace(),
        &gzipDatabase(),
        &rpdDatabase(),
        &nsysDatabase(),
        &rocpdDatabase(),
        &rocprofJson(),
        &pftrace(),
        &chromeTrace(),
        &apiTraceCsv(),
        &nvidiaSmiLog(),
        &dcgmiDmonLog(),
        &rocmSmiLog(),
        &aloneKernelTraceByName(),
        &aloneKernelTraceByHeader(),
        &kernelDataLookAlike(),
        &chromeTraceLookAlike(),
    };
}

bool nameMatches(const QString &fileName, const QStringList &patterns)
{
    for (const QString &p : patterns) {
        if (p == QLatin1String("*"))
            return true;
        if (!p.contains(QLatin1Char('*')) ? fileName == p : QDir::match(p, fileName))
            return true;
    }
    return false;
}

} // namespace

const std::vector<const InputFormat *> &inputFormats()
{
    static const std::vector<const InputFormat *> formats = [] {
        std::vector<const InputFormat *> list = builtinFormats();
        std::stable_sort(list.begin(), list.end(),
                         [](const InputFormat *a, const InputFormat *b) { return a->priority > b->priority; });
        return list;
    }();
    return formats;
}

const InputFormat *guessFormat(const QString &fileName, bool inFolder, const FileHead &head)
{
    for (const InputFormat *format : inputFormats()) {
        if (format->place == FormatPlace::Folder && !inFolder)
            continue;
        if (format->place == FormatPlace::AloneOnly && !head.alone)
            continue;
        if (!nameMatches(fileName, format->patterns))
            continue;
        if (format->sniff && !format->sniff(head))
            continue;
        return format;
    }
    return nullptr;
}

const InputFormat *guessInnerFormat(InputRole role, const QString &fileName, const FileHead &head)
{
    for (const InputFormat *format : inputFormats()) {
        if (format->role != role || format->container || !nameMatches(fileName, format->patterns))
            continue;
        if (format->sniff && !format->sniff(head))
            continue;
        return format;
    }
    return nullptr;
}

const InputFormat *formatNamed(QLatin1String name)
{
    for (const InputFormat *format : inputFormats())
        if (name == QLatin1String(format->name))
            return format;
    return nullptr;
}

} // namespace goblin
