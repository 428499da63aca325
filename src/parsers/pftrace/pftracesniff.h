#pragma once
/// \file Recognising a Perfetto trace by its first bytes (the run inventory's sniff), header-only
/// so that the inventory (goblin_parsers_core) needs no reader.

#include <QByteArrayView>

#include <protozero/exception.hpp>
#include <protozero/varint.hpp>

namespace goblin
{

/// Do these first bytes start a TracePacket stream? Field 1 (Trace.packet), length-delimited
/// (tag 0x0a), a non-zero varint length below 256 MiB, and a packet whose own first tag has a
/// field number > 0 and a wire type protobuf uses (0, 1, 2, 5).
inline bool looksLikePftrace(QByteArrayView head)
{
    if (head.size() < 3 || quint8(head[0]) != 0x0a)
        return false;
    const char *p = head.data() + 1;
    const char *const end = head.data() + head.size();
    try {
        const quint64 length = protozero::decode_varint(&p, end);
        if (length == 0 || length > (quint64(256) << 20) || p == end)
            return false;
        const quint64 tag = protozero::decode_varint(&p, end);
        const quint64 wire = tag & 7;
        return (tag >> 3) > 0 && (wire == 0 || wire == 1 || wire == 2 || wire == 5);
    } catch (const protozero::exception &) {
        return false;
    }
}

} // namespace goblin
