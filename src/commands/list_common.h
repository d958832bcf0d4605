// Helpers shared by the list command files (list_family.cc, list_family_blocking.cc).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/database.h"
#include "server/command_context.h"
#include "types/list_value.h"

namespace hotkv::list_internal {

using types::ListValue;

enum class End { kLeft, kRight };

std::optional<End> ParseEnd(std::string_view s);
const char* PopEvent(End e);
const char* PushEvent(End e);
// Looks up a list for writing; replies WRONGTYPE (returns false) on another type.
bool ListRef(CommandContext& ctx, std::string_view key, KeyRef* ref);
ListValue* ListOf(const KeyRef& ref);
// The list at `key`, created empty if `ref` (a fresh lookup) found nothing.
ListValue* GetOrCreate(CommandContext& ctx, std::string_view key, KeyRef& ref);
// Pops `count` elements (an array when with_count, else one bulk), notifies, and deletes
// the key when it empties.
void PopAndReply(CommandContext& ctx, KeyRef& ref, std::string_view key, End end,
                 bool with_count, int64_t count);
// LMOVE: replies the moved element, null for a missing source, WRONGTYPE on either key.
void MoveGeneric(CommandContext& ctx, std::string_view src, std::string_view dst, End from,
                 End to);

// Parsed [B]LMPOP arguments.
struct MPopArgs {
  std::vector<std::string_view> keys;
  End end = End::kLeft;
  int64_t count = 1;
};
// Parses "numkeys key... LEFT|RIGHT [COUNT n]" starting at `first`; replies on error.
bool ParseMPop(CommandContext& ctx, size_t first, MPopArgs* out);
// Pops from the first non-empty list; false (no reply) when all are empty.
bool MPopFirst(CommandContext& ctx, const MPopArgs& a);

}  // namespace hotkv::list_internal
