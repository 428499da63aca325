#include "formats/registry.h"

#include "formats/builtinformats.h"

#include <QDir>

#include <algorithm>

namespace goblin {

namespace {

/// One line of the list: a format, and for one known by its content under any name (pattern
/// "*"), the names a file dialog offers it under (the names its writers give it).
struct RegisteredFormat {
    const InputFormat *format;
    QStringList dialogNames = {};
};

/// The one list. Adding a format: its reader's folder, its descriptor (builtinformats.h), and a
/// line here; its priority places it among the others.
const std::vector<RegisteredFormat> &builtinFormats()
{
    using namespace formats;
    static const QStringList logNames{QStringLiteral("*.csv"), QStringLiteral("*.txt"), QStringLiteral("*.log")};
    static const std::vector<RegisteredFormat> list{
        {&referenceKernelTrace()},
        {&amdSmiCsv()},
        {&referenceTorchTrace()},
        {&processKernelTrace()},
        {&gzipDatabase()},
        {&rpdDatabase()},
        {&nsysDatabase()},
        {&nsysWithoutCudaDatabase()},
        {&rocpdDatabase()},
        {&rocprofJson()},
        {&pftrace()},
        // torch.profiler writes *.pt.trace.json[.gz]; Kineto, TensorBoard and Perfetto users any *.json[.gz].
        {&chromeTrace(), {QStringLiteral("*.json"), QStringLiteral("*.json.gz")}},
        {&apiTraceCsv()},
        {&nvidiaSmiLog(), logNames},
        {&dcgmiDmonLog(), logNames},
        {&rocmSmiLog(), logNames},
        {&telemetryCsvByColumns(), logNames},
        {&aloneKernelTraceByName()},
        {&aloneKernelTraceByHeader()},
        {&kernelDataLookAlike()},
        {&chromeTraceLookAlike()},
    };
    return list;
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
        std::vector<const InputFormat *> list;
        for (const RegisteredFormat &registered : builtinFormats())
            list.push_back(registered.format);
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

QStringList openDialogNameFilters()
{
    // One line per kind of input, in the list's order (the two kernel-trace roles are one kind to a
    // user), each with the names its formats accept; a name a wildcard of the same line already
    // covers (trace.csv under *.csv) is left out. Look-alikes and files not read are no input.
    struct Line {
        InputRole role;
        QStringList names;
    };
    std::vector<Line> lines;
    for (const RegisteredFormat &registered : builtinFormats()) {
        const InputFormat &format = *registered.format;
        if (format.role == InputRole::LookAlike || format.role == InputRole::NotRead || format.role == InputRole::Other)
            continue;
        const InputRole role = format.role == InputRole::ProcessKernelTrace ? InputRole::KernelTrace : format.role;
        auto line = std::find_if(lines.begin(), lines.end(), [role](const Line &l) { return l.role == role; });
        if (line == lines.end())
            line = lines.insert(lines.end(), Line{role, {}});
        const QStringList &names = format.patterns.contains(QStringLiteral("*")) ? registered.dialogNames : format.patterns;
        for (const QString &name : names)
            if (!line->names.contains(name))
                line->names << name;
    }
    // A name another of the list accepts says nothing more: trace.csv and *_kernel_trace.csv under
    // *.csv (a pattern stands for the names it accepts, its '*' for any text).
    const auto coveredByWildcard = [](const QString &name, const QStringList &names) {
        const QString example = QString(name).replace(QLatin1Char('*'), QLatin1Char('x'));
        return std::any_of(names.begin(), names.end(), [&](const QString &other) {
            return other != name && other.contains(QLatin1Char('*')) && QDir::match(other, example);
        });
    };
    QStringList every;
    QStringList filters;
    for (Line &line : lines) {
        QStringList kept;
        for (const QString &name : std::as_const(line.names))
            if (!coveredByWildcard(name, line.names))
                kept << name;
        if (kept.isEmpty())
            continue;
        for (const QString &name : std::as_const(kept))
            if (!every.contains(name))
                every << name;
        QString label = inputRoleName(line.role);
        label[0] = label[0].toUpper();
        filters << QStringLiteral("%1 (%2)").arg(label, kept.join(QLatin1Char(' ')));
    }
    QStringList everyKept;
    for (const QString &name : std::as_const(every))
        if (!coveredByWildcard(name, every))
            everyKept << name;
    filters.prepend(QStringLiteral("Everything the workbench reads (%1)").arg(everyKept.join(QLatin1Char(' '))));
    filters << QStringLiteral("All files (*)");
    return filters;
}

} // namespace goblin
