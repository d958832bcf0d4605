#include "commands/json_common.h"

#include "engine/entry.h"

namespace hotkv::jsoncmd {

namespace {

struct NotedDoc {
  Database* db;
  std::string_view key;  // an argument of the running command
};
struct Noted {
  std::vector<NotedDoc> docs;
  bool wrote = false;
};
thread_local Noted tl_noted;

}  // namespace

DocScope::DocScope() : owner_(json::BeginPackScope()) {}

DocScope::~DocScope() {
  if (!owner_) {
    return;
  }
  for (const NotedDoc& d : tl_noted.docs) {
    Entry* e = d.db->Find(d.key);
    if (e != nullptr && e->type() == ValueType::kJson) {
      json::FinishPacked(e->As<json::Node>(), tl_noted.wrote);
    }
  }
  tl_noted.docs.clear();
  tl_noted.wrote = false;
  json::EndPackScope();
}

void NoteDoc(Database& db, std::string_view key, bool write) {
  tl_noted.docs.push_back(NotedDoc{&db, key});
  tl_noted.wrote |= write;
}

std::optional<json::Path> PathArg(CommandContext& ctx, std::string_view text) {
  if (!json::IsValidUtf8(text)) {
    ctx.rb().Error(kNotUtf8);
    return std::nullopt;
  }
  Result<json::Path> p = json::Path::Compile(text);
  if (!p.ok()) {
    ctx.rb().Error(p.status().message());
    return std::nullopt;
  }
  return std::move(p).value();
}

std::optional<json::Path> PathArgOr(CommandContext& ctx, size_t i) {
  if (ctx.argc() <= i) {
    return json::Path::LegacyRoot();
  }
  return PathArg(ctx, ctx.arg(i));
}

std::optional<json::Node> JsonArg(CommandContext& ctx, std::string_view text) {
  if (!json::IsValidUtf8(text)) {
    ctx.rb().Error(kNotUtf8);
    return std::nullopt;
  }
  Result<json::Node> n = json::Parse(text);
  if (!n.ok()) {
    ctx.rb().Error(n.status().message());
    return std::nullopt;
  }
  return std::move(n).value();
}

json::Node* ReadDoc(CommandContext& ctx, std::string_view key, bool* failed) {
  NoteDoc(ctx.db(), key, false);
  Entry* e = LookupRead(ctx, key);
  *failed = !CheckType(ctx, e, ValueType::kJson);
  return e != nullptr && !*failed ? e->As<json::Node>() : nullptr;
}

json::Node* WriteDoc(CommandContext& ctx, std::string_view key, KeyRef* ref, bool* failed) {
  NoteDoc(ctx.db(), key, true);
  *ref = ctx.db().Lookup(key);
  *failed = false;
  if (!*ref) {
    return nullptr;
  }
  Entry* e = ref->entry();
  if (!CheckType(ctx, e, ValueType::kJson)) {
    *failed = true;
    return nullptr;
  }
  ctx.TouchEntry(e);
  return e->As<json::Node>();
}

bool ReadDocAndPath(CommandContext& ctx, size_t path_index, json::Node** doc,
                    std::optional<json::Path>* p) {
  *p = PathArgOr(ctx, path_index);
  if (!*p) {
    return false;
  }
  bool failed;
  *doc = ReadDoc(ctx, ctx.arg(path_index - 1), &failed);
  return !failed;
}

json::Node* ExistingDoc(CommandContext& ctx, std::string_view key) {
  KeyRef ref;
  bool failed;
  json::Node* doc = WriteDoc(ctx, key, &ref, &failed);
  if (!failed && doc == nullptr) {
    ctx.rb().Error(kNoKey);
  }
  return doc;
}

void InsertDoc(CommandContext& ctx, KeyRef& ref, std::string_view key, json::Node doc) {
  ctx.db().Insert(ref,
                  Entry::NewObject(key, ValueType::kJson, new json::Node(std::move(doc)), false));
}

std::string PathMissing(const json::Path& p) {
  return "ERR Path '" + p.ErrorForm() + "' does not exist";
}

std::string WrongPathType(std::string_view expected, const json::Node& found) {
  return "WRONGTYPE wrong type of path value - expected " + std::string(expected) + " but found " +
         std::string(found.TypeName());
}

bool LegacyWriterMatches(CommandContext& ctx, const json::Path& p, std::vector<json::Match>* ms,
                         const std::function<bool(const json::Node&)>& ok, std::string_view what) {
  if (!p.legacy()) {
    return true;
  }
  std::erase_if(*ms, [&](const json::Match& m) { return !ok(*m.node); });
  if (ms->empty()) {
    ctx.rb().Error("ERR Path does not exist or " + std::string(what));
    return false;
  }
  return true;
}

bool WriterMatches(CommandContext& ctx, const json::Path& p,
                   const std::function<bool(const json::Node&)>& ok, std::string_view what,
                   std::vector<json::Match>* ms) {
  json::Node* doc = ExistingDoc(ctx, ctx.arg(1));
  if (doc == nullptr) {
    return false;
  }
  *ms = json::Select(p, *doc);
  return LegacyWriterMatches(ctx, p, ms, ok, what);
}

bool CheckLegacyRead(CommandContext& ctx, const json::Path& p, const std::vector<json::Match>& ms,
                     const std::function<bool(const json::Node&)>& ok, std::string_view what) {
  if (!p.legacy()) {
    return true;
  }
  if (ms.empty()) {
    ctx.rb().Error("ERR Path does not exist");
    return false;
  }
  if (!ok(*ms[0].node)) {
    ctx.rb().Error("ERR Path does not exist or " + std::string(what));
    return false;
  }
  return true;
}

void ReplyIntegers(CommandContext& ctx, const std::vector<std::optional<int64_t>>& v) {
  ctx.rb().Array(v.size());
  for (const auto& x : v) {
    if (x) {
      ctx.rb().Integer(*x);
    } else {
      ctx.rb().Null();
    }
  }
}

bool IsGetOption(std::string_view arg) {
  return EqualsIgnoreCase(arg, "INDENT") || EqualsIgnoreCase(arg, "NEWLINE") ||
         EqualsIgnoreCase(arg, "SPACE") || EqualsIgnoreCase(arg, "NOESCAPE") ||
         EqualsIgnoreCase(arg, "FORMAT");
}

}  // namespace hotkv::jsoncmd
