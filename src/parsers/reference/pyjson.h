#pragma once
/// \file What the reference's Python does with a JSON value once json.loads has typed it:
/// truthiness, the value handed on as it is, and the reference's _coerce_float.

#include "syntax/jsontoken.h"

#include <QJsonValue>

#include <optional>

namespace goblin::reference {

/// Python truthiness of a JSON value.
bool pythonTruthy(const syntax::PyValue &v);

/// The value as a QJsonValue, for what the reference passes through untouched (pytorch_version).
QJsonValue toQJsonValue(const syntax::PyValue &v);

/// _coerce_float: float(v) for numbers, bools and numeric strings; None otherwise. Sets
/// `*overflow` where Python's float() of a huge int raises OverflowError.
std::optional<double> coerceFloat(const std::optional<syntax::PyValue> &v, bool *overflow);

} // namespace goblin::reference
