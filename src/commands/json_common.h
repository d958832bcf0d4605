// Helpers shared by the JSON command files (json_family*.cc): argument parsing with
// Redis's error texts, typed lookups of ReJSON-RL keys, legacy-path checks, replies.
//
// Paths: a JSONPath ("$...") replies one value per match (null where the match has the
// wrong type); a legacy path (no "$") replies one value and reports what it cannot do
// as an error (LegacyWriterMatches / CheckLegacyRead, docs/json.md).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/helpers.h"
#include "json/json_node.h"
#include "json/json_path.h"
#include "server/command_context.h"

namespace hotkv::jsoncmd {

inline constexpr std::string_view kNoKey =
    "ERR could not perform this operation on a key that doesn't exist";
inline constexpr std::string_view kNewAtRoot = "ERR new objects must be created at the root";
// A JSON value or path that is not UTF-8 (Redis's module API text).
inline constexpr std::string_view kNotUtf8 = "Couldn't parse as UTF-8 string";

// A path argument; replies the compile error and returns nullopt when it is invalid.
std::optional<json::Path> PathArg(CommandContext& ctx, std::string_view text);
// The optional path argument at `i`: the legacy root "." when the command has no
// argument there.
std::optional<json::Path> PathArgOr(CommandContext& ctx, size_t i);
// A JSON value argument; replies the parse error and returns nullopt when invalid.
std::optional<json::Node> JsonArg(CommandContext& ctx, std::string_view text);

// The packing scope of one JSON command (json_node.h's packed documents): every handler
// opens one first. The document lookups below note each key they serve; when the
// handler returns, a document the command only read gets its packed bytes back, one it
// wrote (or created) is packed again. A nested scope does nothing.
class DocScope {
 public:
  DocScope();
  ~DocScope();
  DocScope(const DocScope&) = delete;
  DocScope& operator=(const DocScope&) = delete;

 private:
  bool owner_;
};
// Notes that the running command reads (or writes) the document of `key` in `db`.
void NoteDoc(Database& db, std::string_view key, bool write);

// The document of `key` for reading (statistics, keymiss), or null when the key is
// missing; sets *failed after replying WRONGTYPE.
json::Node* ReadDoc(CommandContext& ctx, std::string_view key, bool* failed);
// The document of `key` for writing; *ref is the key's slot (for Insert / Erase).
json::Node* WriteDoc(CommandContext& ctx, std::string_view key, KeyRef* ref, bool* failed);
// A reader's optional path (argument `path_index`) and document (null for a missing
// key); false after an error reply (bad path, WRONGTYPE).
bool ReadDocAndPath(CommandContext& ctx, size_t path_index, json::Node** doc,
                    std::optional<json::Path>* p);
// The document of a writer that needs an existing key: null after replying WRONGTYPE
// or kNoKey.
json::Node* ExistingDoc(CommandContext& ctx, std::string_view key);
// Stores a new document under a missing key.
void InsertDoc(CommandContext& ctx, KeyRef& ref, std::string_view key, json::Node doc);

// "ERR Path '$.a' does not exist".
std::string PathMissing(const json::Path& p);
// "WRONGTYPE wrong type of path value - expected <what> but found <type>" (a value
// argument of the wrong type).
std::string WrongPathType(std::string_view expected, const json::Node& found);

// Legacy paths, as Redis treats them. Writers work on the matches of the right type
// (`ok`); when there is none they reply "ERR Path does not exist or <what>" (e.g. "not an
// array") and return false. Readers reply "ERR Path does not exist" when nothing
// matched and "ERR Path does not exist or <what>" when the first match fails `ok`.
// JSONPaths pass both unchanged.
bool LegacyWriterMatches(CommandContext& ctx, const json::Path& p, std::vector<json::Match>* ms,
                         const std::function<bool(const json::Node&)>& ok, std::string_view what);
// A writer's matches of `p` in the document of ctx.arg(1): the key must exist (else
// WRONGTYPE / kNoKey is replied), and LegacyWriterMatches applies. False after a reply.
bool WriterMatches(CommandContext& ctx, const json::Path& p,
                   const std::function<bool(const json::Node&)>& ok, std::string_view what,
                   std::vector<json::Match>* ms);
bool CheckLegacyRead(CommandContext& ctx, const json::Path& p, const std::vector<json::Match>& ms,
                     const std::function<bool(const json::Node&)>& ok, std::string_view what);

// The change of a JSON key: WATCH, dirty, keyspace event `event` (class d).
inline void Changed(CommandContext& ctx, std::string_view key, std::string_view event) {
  ctx.KeyModified(key, notify::kModule, event);
}

// Replies one optional integer per match (JSONPath form).
void ReplyIntegers(CommandContext& ctx, const std::vector<std::optional<int64_t>>& v);

// JSON.STRLEN / JSON.OBJLEN / JSON.ARRLEN key [path]: `len` of each match passing `ok`
// (null for a missing key with a legacy path, kNoKey with a JSONPath).
void LengthReply(CommandContext& ctx, const std::function<bool(const json::Node&)>& ok,
                 const std::function<size_t(const json::Node&)>& len, std::string_view what);

// JSON.SET's condition.
enum class Cond { kNone, kNx, kXx };
// Sets `value` at `p` in an existing document (JSON.SET, JSON.MSET, JSON.MERGE of a new
// member): every match is replaced; when nothing matches and the path ends in a member
// name, that member is added to every object the parent path matches. Returns false
// when nothing was set, with *error filled for an error reply.
bool SetInDoc(json::Node& doc, const json::Path& p, json::Node value, Cond cond,
              std::string* error);

// Redis's JSON.GET option tokens recognised before/among paths.
bool IsGetOption(std::string_view arg);

}  // namespace hotkv::jsoncmd

namespace hotkv {
class CommandTable;
// Parts of RegisterJsonCommands (register.h): numbers, strings, objects, booleans, and
// arrays.
void RegisterJsonOpCommands(CommandTable& t);
void RegisterJsonArrayCommands(CommandTable& t);
class CommandContext;
void JsonMergeCommand(CommandContext& ctx);  // json_family_merge.cc
}  // namespace hotkv
