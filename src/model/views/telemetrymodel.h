#pragma once
/// \file The telemetry samples of one run as a table.

#include "runanalysis.h"

#include <QAbstractTableModel>
#include <memory>

namespace goblin {

/// One row per amd-smi sample (all GPUs, file order) of the current run.
class TelemetryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { TimeColumn, GpuColumn, UtilColumn, HbmUsedColumn, JobWindowColumn, ColumnCount };

    explicit TelemetryModel(QObject *parent = nullptr);

    /// Shows `run`'s samples (nullptr: none). A new dataset, so the model resets.
    void setRun(std::shared_ptr<const RunAnalysis> run);
    std::shared_ptr<const RunAnalysis> run() const { return m_run; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const RunAnalysis> m_run;
};

} // namespace goblin
