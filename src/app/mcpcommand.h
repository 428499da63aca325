#pragma once
// `goblin-workbench mcp --allow DIR [--allow DIR…] [--export-dir DIR]`: a Model Context Protocol
// server on stdio (JSON-RPC 2.0, one message per line), read-only, confined to the folders given.
// Its tools answer with the report's numbers, each with its state and source (docs/mcp.md).

#include <QStringList>

namespace goblin {

int runMcpCommand(const QStringList &arguments);

} // namespace goblin
