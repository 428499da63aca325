#include "reference/pyjson.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>

namespace goblin::reference {

using syntax::PyValue;

bool pythonTruthy(const PyValue &v)
{
    switch (v.kind) {
    case PyValue::Missing:
    case PyValue::Null:
        return false;
    case PyValue::Bool:
    case PyValue::Int:
    case PyValue::Float:
        return v.number != 0.0;  // NaN is truthy, and NaN != 0.0
    case PyValue::Str:
        return v.raw.size() > 2;
    case PyValue::Object:
    case PyValue::Array: {
        const std::string_view inner = syntax::trimJson(v.raw.substr(1, v.raw.size() - 2));
        return !inner.empty();
    }
    }
    return false;
}

QJsonValue toQJsonValue(const PyValue &v)
{
    switch (v.kind) {
    case PyValue::Missing:
        return QJsonValue(QJsonValue::Undefined);
    case PyValue::Null:
        return QJsonValue(QJsonValue::Null);
    case PyValue::Bool:
        return QJsonValue(v.number != 0.0);
    case PyValue::Int:
    case PyValue::Float:
        return QJsonValue(v.number);
    case PyValue::Str:
        return QJsonValue(QString::fromStdString(stringValue(v)));
    case PyValue::Object:
    case PyValue::Array: {
        const QByteArray wrapped = QByteArray("[") + QByteArray(v.raw.data(), qsizetype(v.raw.size())) + "]";
        const QJsonDocument doc = QJsonDocument::fromJson(wrapped);
        if (doc.isArray() && !doc.array().isEmpty())
            return doc.array().first();
        return QJsonValue(QString::fromUtf8(v.raw.data(), qsizetype(v.raw.size())));
    }
    }
    return QJsonValue(QJsonValue::Undefined);
}

std::optional<double> coerceFloat(const std::optional<PyValue> &v, bool *overflow)
{
    if (!v)
        return std::nullopt;
    switch (v->kind) {
    case PyValue::Bool:
    case PyValue::Int:
    case PyValue::Float:
        if (v->overflow)
            *overflow = true;
        return v->number;
    case PyValue::Str:
        return pythonFloat(syntax::stringValue(*v));
    default:
        return std::nullopt;
    }
}

} // namespace goblin::reference
