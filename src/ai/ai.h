// ai/: the AI caches served natively (docs/ai.md): the semantic cache (SCACHE.*), and
// next the prompt cache (PCACHE.*) and agent memory (MEM.*). Their keys are extension
// types (engine/extension_value.h); main.cc calls RegisterAiCommands before the table is
// finalised and before anything is loaded, so RDB files, AOFs and RESTORE find their
// loaders.
#pragma once

#include "server/command_table.h"

namespace hotkv::ai {

// Everything of ai/: each family's commands and extension types, and AI.DEBUG.
void RegisterAiCommands(CommandTable& t);

// One per family (ai_family.cc calls them).
void RegisterScacheCommands(CommandTable& t);  // scache_family.cc
void RegisterPcacheCommands(CommandTable& t);  // pcache_family.cc
void RegisterMemCommands(CommandTable& t);     // mem_family.cc
void RegisterAiDebugCommands(CommandTable& t);  // ai_family.cc

}  // namespace hotkv::ai
