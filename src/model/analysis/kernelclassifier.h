#pragma once
/// \file Kernel-name classification. Each profile's patterns live in one table, so they can be
/// edited and the names reclassified live; a run has few distinct names, so classifying them all
/// again is cheap and never touches per-row data.

#include "heuristics.h"
#include "kernelclasses.h"

#include <QString>
#include <cstdint>
#include <string>
#include <vector>

namespace goblin {

/// One rule: names matching `regex` (case-insensitive, PCRE) get `flag`. The generic-GEMM rule
/// applies to names that also matched a GEMM rule, as in the reference.
struct KernelPattern {
    KernelFlag flag;
    QString regex;
    QString why;  ///< shown to the user next to the pattern
};

struct KernelPatternTable {
    HeuristicsProfile profile = HeuristicsProfile::Workbench;  ///< also picks the attention labels
    std::vector<KernelPattern> patterns;
    static KernelPatternTable forProfile(HeuristicsProfile profile);
};

/// Classifies every distinct name once. Invalid regexes are skipped (and reported by
/// validatePatternTable).
KernelClasses classifyKernels(const std::vector<std::string> &names, const KernelPatternTable &table);
QStringList validatePatternTable(const KernelPatternTable &table);

} // namespace goblin
