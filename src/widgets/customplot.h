#pragma once
// The one header that includes QCustomPlot (Debian's libqcustomplot-dev, Qt 6 build). It uses
// `foreach`, so QT_NO_FOREACH must stay undefined for every file that includes this one; keeping
// the include here means a future switch of plotting library touches one place.

#include <qcustomplot.h>
