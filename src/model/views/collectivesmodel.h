#pragma once
/// \file The Ranks view's collectives: one row per collective and size (what it moved, how fast,
/// how late the last rank came) and one row per rank (its lateness and its wait for the last).
/// Figures from analysis/collectives.h; docs/collectives.md defines them.

#include "collectives.h"

#include <QAbstractTableModel>

namespace goblin {

class CollectivesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        CollectiveColumn,
        BytesColumn,
        DtypeColumn,
        GroupColumn,
        CallsColumn,
        TimeColumn,
        AlgbwColumn,
        BusbwColumn,
        SkewColumn,
        LastRankColumn,
        KernelColumn,
        ColumnCount
    };
    explicit CollectivesModel(QObject *parent = nullptr);

    void setAnalysis(const CollectiveAnalysis &analysis);
    const CollectiveAnalysis &analysis() const { return m_analysis; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// One line: the calls, how they were found and matched, the clock.
    QString summaryText() const;

private:
    CollectiveAnalysis m_analysis;
};

class CollectiveRanksModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { RankColumn, MatchedColumn, LateColumn, WaitColumn, LastColumn, FileColumn, ColumnCount };
    explicit CollectiveRanksModel(QObject *parent = nullptr);

    void setAnalysis(const CollectiveAnalysis &analysis);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<CollectiveRankWait> m_ranks;
    bool m_skewKnown = false;
    QString m_why;
};

/// "8.4 MiB", "160 B": bytes in binary units.
QString formatBytesBinary(double bytes);

} // namespace goblin
