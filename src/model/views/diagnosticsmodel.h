#pragma once
/// \file Every diagnostic of one run: parser and engine diagnostics plus each profile's warnings.

#include "runanalysis.h"

#include <QAbstractTableModel>
#include <memory>
#include <vector>

namespace goblin {

class DiagnosticsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { SeverityColumn, SourceColumn, FileColumn, LineColumn, MessageColumn, ColumnCount };

    explicit DiagnosticsModel(QObject *parent = nullptr);

    /// Lists `run`'s diagnostics (nullptr: none). A new dataset, so the model resets.
    void setRun(std::shared_ptr<const RunAnalysis> run);

    int countAtLeast(Severity severity) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        Diagnostic diagnostic;
        QString source;  ///< "input" or "<profile> profile"
    };
    std::vector<Row> m_rows;
};

} // namespace goblin
