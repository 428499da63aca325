#pragma once
/// \file The reference's `_read_amd_smi`, bit for bit: UTF-8 text, header sniffing, repeated-header
/// and blank-line removal, csv.DictReader, the alias columns of `_pick_column` and the unit rules
/// of `_hbm_to_gb`, including their misreadings.

#include "amdsmi/smicommon.h"
#include "amdsmiparser.h"

#include <QByteArray>
#include <QString>
#include <vector>

namespace goblin::reference
{

/// How `_hbm_to_gb` turns a used-VRAM value into GB, decided by the column's name.
enum class RefHbmRule { DivideMb, AsGb, DivideVramMem, ByValue };

RefHbmRule referenceHbmRule(const QString &column);
/// The rule in words, for the notes on where the readings differ.
QString referenceHbmRuleWords(RefHbmRule rule, const QString &column);

struct ReferenceOutcome {
    SmiReading reading;
    std::vector<ColumnChoice> columns;
    QString utilColumn;  ///< empty when the reference found none (or never got to look)
    QString hbmColumn;
    bool gotHeader = false;
};

/// The reference's reading of the whole file; reports the second half of the progress.
ReferenceOutcome readReference(const QByteArray &bytes, amdsmi::ProgressGate &gate);

} // namespace goblin::reference
