// JSON documents (Redis 8's JSON.* commands on ReJSON-RL keys), part 1: JSON.SET,
// JSON.GET, JSON.MGET, JSON.MSET, JSON.DEL / JSON.FORGET, JSON.TYPE, JSON.RESP,
// JSON.DEBUG MEMORY / HELP, and the registration of the whole family (JSON.MERGE is in
// json_family_merge.cc; the number, string, object and array commands in
// json_family_ops.cc and json_family_arrays.cc).
//
// Edge cases honoured (as Redis): JSON.SET on a missing key takes only the root path
// ("ERR new objects must be created at the root"); NX/XX unmet, or a path that matches
// nothing and cannot be created (its parent missing), reply null; a path ending in a
// member name adds that member to every object its parent path matches. JSON.GET
// without a path is the legacy root; one legacy path replies the first match (a missing
// path is an error), one JSONPath replies an array of every match; several paths reply
// an object keyed by path (arrays when any path is a JSONPath). Bad JSON replies the
// parser's error ("expected value at line 1 column 1") and changes nothing. Documents
// nest at most 127 levels ("ERR recursion limit exceeded").
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/json_common.h"
#include "commands/register.h"
#include "engine/entry.h"
#include "server/server.h"

namespace hotkv {

namespace jsoncmd {

using json::Match;
using json::Node;
using json::Path;

bool SetInDoc(Node& doc, const Path& p, Node value, Cond cond, std::string* error) {
  if (p.is_root()) {
    if (cond == Cond::kNx) {
      return false;
    }
    doc = std::move(value);
    return true;
  }
  const int value_depth = value.Depth();
  std::vector<Match> ms = json::Select(p, doc);
  if (!ms.empty()) {
    if (cond == Cond::kNx) {
      return false;
    }
    for (const Match& m : ms) {
      if (m.depth + value_depth >= json::kMaxDepth) {
        *error = "ERR recursion limit exceeded";
        return false;
      }
    }
    for (size_t i = 0; i + 1 < ms.size(); i++) {
      *ms[i].node = value.Clone();
    }
    *ms.back().node = std::move(value);
    return true;
  }
  if (cond == Cond::kXx) {
    return false;
  }
  const json::Selector& last = p.selectors().back();
  if (last.descend || last.type != json::Selector::Type::kKey) {
    return false;
  }
  std::vector<Match> parents = json::Select(p.Parent(), doc);
  bool set = false;
  for (const Match& m : parents) {
    if (!m.node->is_object()) {
      continue;
    }
    if (m.depth + 1 + value_depth >= json::kMaxDepth) {
      *error = "ERR recursion limit exceeded";
      return false;
    }
    m.node->Set(last.keys[0], value.Clone());
    set = true;
  }
  return set;
}

}  // namespace jsoncmd

namespace {

using json::Match;
using json::Node;
using json::Path;
using namespace jsoncmd;

// JSON.SET key path value [NX | XX] [FORMAT STRING|JSON]
void JsonSetCommand(CommandContext& ctx) {
  DocScope packing;
  Cond cond = Cond::kNone;
  for (size_t i = 4; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "NX") && cond == Cond::kNone) {
      cond = Cond::kNx;
    } else if (EqualsIgnoreCase(a, "XX") && cond == Cond::kNone) {
      cond = Cond::kXx;
    } else if (EqualsIgnoreCase(a, "FORMAT") && i + 1 < ctx.argc() &&
               (EqualsIgnoreCase(ctx.arg(i + 1), "JSON") ||
                EqualsIgnoreCase(ctx.arg(i + 1), "STRING"))) {
      i++;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }
  // Checked in Redis's order: the key's type, the value, the path.
  std::string_view key = ctx.arg(1);
  KeyRef ref;
  bool failed;
  Node* doc = WriteDoc(ctx, key, &ref, &failed);
  if (failed) {
    return;
  }
  std::optional<Node> value = JsonArg(ctx, ctx.arg(3));
  if (!value) {
    return;
  }
  std::optional<Path> p = PathArg(ctx, ctx.arg(2));
  if (!p) {
    return;
  }
  if (doc == nullptr) {
    if (!p->is_root()) {
      return ctx.rb().Error(kNewAtRoot);
    }
    if (cond == Cond::kXx) {
      return ctx.rb().Null();
    }
    InsertDoc(ctx, ref, key, std::move(*value));
  } else {
    std::string error;
    if (!SetInDoc(*doc, *p, std::move(*value), cond, &error)) {
      return error.empty() ? ctx.rb().Null() : ctx.rb().Error(error);
    }
  }
  Changed(ctx, key, "json.set");
  ctx.rb().Ok();
}

// Appends "[m1,m2,...]" nested `level` deep.
void AppendMatches(const std::vector<Match>& ms, const json::Format& f, int level,
                   std::string* out) {
  out->push_back('[');
  if (ms.empty()) {
    out->push_back(']');
    return;
  }
  for (size_t i = 0; i < ms.size(); i++) {
    if (i > 0) {
      out->push_back(',');
    }
    json::NewlineIndent(f, level + 1, out);
    json::SerializeAt(*ms[i].node, f, level + 1, out);
  }
  json::NewlineIndent(f, level, out);
  out->push_back(']');
}

// A static path's one match in a packed document, as Select + AppendMatches (JSONPath)
// or Serialize (legacy) would write it; false (nothing written) when it does not apply.
bool AppendPackedMatch(const Node& doc, const Path& p, std::string* out) {
  if (p.is_root() || !doc.packed()) {
    return false;
  }
  size_t mark = out->size();
  if (!p.legacy()) {
    out->push_back('[');
  }
  if (!json::AppendPackedAt(doc, p, out)) {
    out->resize(mark);
    return false;
  }
  if (!p.legacy()) {
    out->push_back(']');
  }
  return true;
}

// The reply text of JSON.GET for `paths` on `doc`; false after an error reply.
bool GetText(CommandContext& ctx, Node& doc, const std::vector<Path>& paths, const json::Format& f,
             std::string* out) {
  if (paths.size() == 1) {
    const Path& p = paths[0];
    if (f.indent.empty() && f.newline.empty() && f.space.empty() &&
        AppendPackedMatch(doc, p, out)) {
      return true;  // read from the packed bytes, no tree built
    }
    std::vector<Match> ms = json::Select(p, doc);
    if (!p.legacy()) {
      AppendMatches(ms, f, 0, out);
      return true;
    }
    if (ms.empty()) {
      ctx.rb().Error(PathMissing(p));
      return false;
    }
    json::Serialize(*ms[0].node, f, out);
    return true;
  }
  bool any_jsonpath = false;
  for (const Path& p : paths) {
    any_jsonpath |= !p.legacy();
  }
  // An object keyed by path; a repeated path keeps its first place.
  std::vector<std::pair<std::string_view, std::vector<Match>>> parts;
  for (const Path& p : paths) {
    std::vector<Match> ms = json::Select(p, doc);
    if (!any_jsonpath && ms.empty()) {
      ctx.rb().Error(PathMissing(p));
      return false;
    }
    bool seen = false;
    for (auto& part : parts) {
      if (part.first == p.text()) {
        part.second = std::move(ms);
        seen = true;
      }
    }
    if (!seen) {
      parts.emplace_back(p.text(), std::move(ms));
    }
  }
  out->push_back('{');
  for (size_t i = 0; i < parts.size(); i++) {
    if (i > 0) {
      out->push_back(',');
    }
    json::NewlineIndent(f, 1, out);
    json::AppendQuoted(parts[i].first, out);
    out->push_back(':');
    out->append(f.space);
    if (any_jsonpath) {
      AppendMatches(parts[i].second, f, 1, out);
    } else {
      json::SerializeAt(*parts[i].second[0].node, f, 1, out);
    }
  }
  json::NewlineIndent(f, 0, out);
  out->push_back('}');
  return true;
}

// JSON.GET key [INDENT s] [NEWLINE s] [SPACE s] [NOESCAPE] [FORMAT STRING] [path ...]
void JsonGetCommand(CommandContext& ctx) {
  DocScope packing;
  json::Format f;
  std::vector<std::string_view> path_args;
  for (size_t i = 2; i < ctx.argc(); i++) {
    std::string_view a = ctx.arg(i);
    if (!IsGetOption(a)) {
      path_args.push_back(a);
      continue;
    }
    if (EqualsIgnoreCase(a, "NOESCAPE")) {
      continue;
    }
    if (i + 1 >= ctx.argc()) {
      return ReplyWrongArity(ctx);
    }
    std::string_view v = ctx.arg(++i);
    if (EqualsIgnoreCase(a, "INDENT")) {
      f.indent = v;
    } else if (EqualsIgnoreCase(a, "NEWLINE")) {
      f.newline = v;
    } else if (EqualsIgnoreCase(a, "SPACE")) {
      f.space = v;
    } else {  // FORMAT
      if (!ctx.rb().resp3() && path_args.empty()) {
        return ctx.rb().Error("ERR FORMAT argument is not supported on RESP2");
      }
      if (!EqualsIgnoreCase(v, "STRING")) {
        return ctx.rb().Error("ERR wrong reply format");
      }
    }
  }
  bool failed;
  Node* doc = ReadDoc(ctx, ctx.arg(1), &failed);
  if (failed) {
    return;
  }
  if (doc == nullptr) {
    return ctx.rb().Null();
  }
  std::vector<Path> paths;
  if (path_args.empty()) {
    paths.push_back(Path::LegacyRoot());
  }
  for (std::string_view a : path_args) {
    std::optional<Path> p = PathArg(ctx, a);
    if (!p) {
      return;
    }
    paths.push_back(std::move(*p));
  }
  // One buffer per thread keeps its capacity across replies (up to 1 MB).
  thread_local std::string out;
  out.clear();
  if (GetText(ctx, *doc, paths, f, &out)) {
    ctx.rb().Bulk(out);
  }
  if (out.capacity() > (size_t{1} << 20)) {
    std::string().swap(out);
  }
}

// JSON.MGET key [key ...] path: one reply per key, null for a missing key, another
// type, or (legacy path) a missing path.
void JsonMGetCommand(CommandContext& ctx) {
  DocScope packing;
  std::optional<Path> p = PathArg(ctx, ctx.arg(ctx.argc() - 1));
  if (!p) {
    return;
  }
  ctx.rb().Array(ctx.argc() - 2);
  std::string out;
  for (size_t i = 1; i + 1 < ctx.argc(); i++) {
    NoteDoc(ctx.db(), ctx.arg(i), false);
    Entry* e = LookupRead(ctx, ctx.arg(i));
    if (e == nullptr || e->type() != ValueType::kJson) {
      ctx.rb().Null();
      continue;
    }
    out.clear();
    if (AppendPackedMatch(*e->As<Node>(), *p, &out)) {
      ctx.rb().Bulk(out);
      continue;
    }
    std::vector<Match> ms = json::Select(*p, *e->As<Node>());
    if (!p->legacy()) {
      AppendMatches(ms, json::Format{}, 0, &out);
    } else if (!ms.empty()) {
      json::Serialize(*ms[0].node, json::Format{}, &out);
    } else {
      ctx.rb().Null();
      continue;
    }
    ctx.rb().Bulk(out);
  }
}

// JSON.MSET key path value [key path value ...]: every triplet is checked before any is
// applied.
void JsonMSetCommand(CommandContext& ctx) {
  DocScope packing;
  if ((ctx.argc() - 1) % 3 != 0) {
    return ReplyWrongArity(ctx);
  }
  struct Item {
    std::string_view key;
    Path path;
    Node value;
  };
  std::vector<Item> items;
  for (size_t i = 1; i < ctx.argc(); i += 3) {
    std::optional<Path> p = PathArg(ctx, ctx.arg(i + 1));
    if (!p) {
      return;
    }
    std::optional<Node> v = JsonArg(ctx, ctx.arg(i + 2));
    if (!v) {
      return;
    }
    Entry* e = ctx.db().Find(ctx.arg(i));
    if (!CheckType(ctx, e, ValueType::kJson)) {
      return;
    }
    if (e == nullptr && !p->is_root()) {
      bool created_before = false;  // an earlier triplet may create the key at its root
      for (const Item& it : items) {
        created_before |= it.key == ctx.arg(i) && it.path.is_root();
      }
      if (!created_before) {
        return ctx.rb().Error(kNewAtRoot);
      }
    }
    items.push_back(Item{ctx.arg(i), std::move(*p), std::move(*v)});
  }
  for (Item& it : items) {
    KeyRef ref;
    bool failed;
    Node* doc = WriteDoc(ctx, it.key, &ref, &failed);
    if (doc == nullptr) {
      InsertDoc(ctx, ref, it.key, std::move(it.value));
    } else {
      std::string error;
      SetInDoc(*doc, it.path, std::move(it.value), Cond::kNone, &error);
    }
    Changed(ctx, it.key, "json.set");
  }
  ctx.rb().Ok();
}

// JSON.DEL / JSON.FORGET key [path]: the number of values deleted; the root deletes
// the key.
void JsonDelCommand(CommandContext& ctx) {
  DocScope packing;
  if (ctx.argc() > 3) {
    return ReplyWrongArity(ctx);
  }
  std::optional<Path> p = PathArgOr(ctx, 2);
  if (!p) {
    return;
  }
  std::string_view key = ctx.arg(1);
  KeyRef ref;
  bool failed;
  Node* doc = WriteDoc(ctx, key, &ref, &failed);
  if (failed) {
    return;
  }
  if (doc == nullptr) {
    return ctx.rb().Integer(0);
  }
  if (p->is_root()) {
    ctx.db().Erase(ref);
    Changed(ctx, key, "json.del");
    return ctx.rb().Integer(1);
  }
  size_t n = json::RemoveMatches(json::Select(*p, *doc));
  if (n > 0) {
    Changed(ctx, key, "json.del");
  }
  ctx.rb().Integer(static_cast<int64_t>(n));
}

// JSON.TYPE key [path]
void JsonTypeCommand(CommandContext& ctx) {
  DocScope packing;
  std::optional<Path> p;
  Node* doc;
  if (!ReadDocAndPath(ctx, 2, &doc, &p)) {
    return;
  }
  if (ctx.rb().resp3()) {
    ctx.rb().Array(1);  // RESP3 wraps every reply in one more array, as Redis does
  }
  if (doc == nullptr) {
    return ctx.rb().Null();
  }
  std::vector<Match> ms = json::Select(*p, *doc);
  if (p->legacy()) {
    return ms.empty() ? ctx.rb().Null() : ctx.rb().SimpleString(ms[0].node->TypeName());
  }
  ctx.rb().Array(ms.size());
  for (const Match& m : ms) {
    ctx.rb().SimpleString(m.node->TypeName());
  }
}

// The RESP form of a JSON value (JSON.RESP): arrays start with "[", objects with "{".
void ReplyResp(CommandContext& ctx, const Node& n) {
  ReplyBuilder& rb = ctx.rb();
  switch (n.kind()) {
    case json::Kind::kNull:
      return rb.Null();
    case json::Kind::kFalse:
      return rb.SimpleString("false");
    case json::Kind::kTrue:
      return rb.SimpleString("true");
    case json::Kind::kInt:
      return rb.Integer(n.int_value());
    case json::Kind::kDouble:
      return rb.Double(n.double_value());
    case json::Kind::kString:
      return rb.Bulk(n.str());
    case json::Kind::kArray:
      rb.Array(n.array().size() + 1);
      rb.SimpleString("[");
      for (const Node& c : n.array()) {
        ReplyResp(ctx, c);
      }
      return;
    case json::Kind::kObject:
      rb.Array(2 * n.members().size() + 1);
      rb.SimpleString("{");
      for (const json::Member& m : n.members()) {
        rb.Bulk(m.key.str());
        ReplyResp(ctx, m.value);
      }
      return;
  }
}

// JSON.RESP key [path]
void JsonRespCommand(CommandContext& ctx) {
  DocScope packing;
  std::optional<Path> p;
  Node* doc;
  if (!ReadDocAndPath(ctx, 2, &doc, &p)) {
    return;
  }
  if (doc == nullptr) {
    return ctx.rb().Null();
  }
  std::vector<Match> ms = json::Select(*p, *doc);
  if (p->legacy()) {
    if (ms.empty()) {
      return ctx.rb().Error(PathMissing(*p));
    }
    return ReplyResp(ctx, *ms[0].node);
  }
  ctx.rb().Array(ms.size());
  for (const Match& m : ms) {
    ReplyResp(ctx, *m.node);
  }
}

// JSON.DEBUG MEMORY key [path]: bytes of each match (the node and what it owns).
void JsonDebugMemoryCommand(CommandContext& ctx) {
  DocScope packing;
  std::optional<Path> p;
  Node* doc;
  if (!ReadDocAndPath(ctx, 3, &doc, &p)) {
    return;
  }
  if (doc == nullptr) {
    return p->legacy() ? ctx.rb().Integer(0) : ctx.rb().EmptyArray();
  }
  std::vector<Match> ms = json::Select(*p, *doc);
  auto bytes = [](const Node& n) { return static_cast<int64_t>(sizeof(Node) + n.MemoryUsage()); };
  if (p->legacy()) {
    if (ms.empty()) {
      return ctx.rb().Error(PathMissing(*p));
    }
    return ctx.rb().Integer(bytes(*ms[0].node));
  }
  ctx.rb().Array(ms.size());
  for (const Match& m : ms) {
    ctx.rb().Integer(bytes(*m.node));
  }
}

void JsonDebugHelpCommand(CommandContext& ctx) {
  DocScope packing;
  ctx.rb().Array(2);
  ctx.rb().Bulk("MEMORY <key> [path] - reports memory usage");
  ctx.rb().Bulk("HELP                - this message");
}

}  // namespace

void RegisterJsonCommands(CommandTable& t) {
  auto add = [&t](std::string name, int arity, std::string flags, std::string acl, KeySpec key,
                  CommandHandler handler, std::string since, std::string summary,
                  std::string syntax) {
    t.Add({.name = name,
           .arity = arity,
           .flags = flags,
           .acl = acl,
           .keys = {std::move(key)},
           .handler = handler,
           .doc = {"module", std::move(since), "O(N) where N is the size of the JSON at the paths",
                   std::move(summary), std::move(syntax)}});
  };
  const std::string kRead = "@read @json @slow";
  const std::string kWrite = "@write @json @slow";
  add("json.set", -4, "write denyoom", kWrite, KeyAt(1, "RW UPDATE"), JsonSetCommand, "1.0.0",
      "Sets the JSON value at a path (the root creates the key).", "key path value [NX | XX]");
  add("json.get", -2, "readonly", kRead, KeyAt(1, "RO ACCESS"), JsonGetCommand, "1.0.0",
      "Returns the JSON at one or more paths.",
      "key [INDENT indent] [NEWLINE newline] [SPACE space] [path [path ...]]");
  t.Add(
      {.name = "json.mget",
       .arity = -3,
       .flags = "readonly",
       .acl = kRead,
       .keys = {KeyRange(1, -2, 1, "RO ACCESS")},
       .handler = JsonMGetCommand,
       .doc = {"module", "1.0.0", "O(M*N) where M is the number of keys and N the size of the JSON",
               "Returns the JSON at a path of several keys.", "key [key ...] path"}});
  t.Add({.name = "json.mset",
         .arity = -4,
         .flags = "write denyoom",
         .acl = kWrite,
         .keys = {KeyRange(1, -1, 3, "RW UPDATE")},
         .handler = JsonMSetCommand,
         .doc = {"module", "2.6.0", "O(K*(M+N)) where K is the number of keys",
                 "Sets JSON values at paths of several keys, atomically.",
                 "key path value [key path value ...]"}});
  add("json.del", -2, "write", kWrite, KeyAt(1, "RW DELETE"), JsonDelCommand, "1.0.0",
      "Deletes the values at a path; the root deletes the key.", "key [path]");
  add("json.forget", -2, "write", kWrite, KeyAt(1, "RW DELETE"), JsonDelCommand, "1.0.0",
      "Deletes the values at a path (JSON.DEL).", "key [path]");
  add("json.type", -2, "readonly", kRead, KeyAt(1, "RO"), JsonTypeCommand, "1.0.0",
      "Returns the type of the JSON value at a path.", "key [path]");
  add("json.merge", -4, "write denyoom", kWrite, KeyAt(1, "RW UPDATE"), JsonMergeCommand, "2.6.0",
      "Merges a JSON value into the value at a path (RFC 7396).", "key path value [FORMAT format]");
  add("json.resp", -2, "readonly", kRead, KeyAt(1, "RO ACCESS"), JsonRespCommand, "1.0.0",
      "Returns the JSON at a path in RESP form.", "key [path]");
  t.Add({.name = "json.debug",
         .arity = -2,
         .acl = "@slow",
         .doc = {"module", "1.0.0", "N/A", "A container for JSON debugging commands.", ""}});
  t.AddSub("json.debug", {.name = "memory",
                          .arity = -3,
                          .flags = "readonly",
                          .acl = kRead,
                          .keys = {KeyAt(2, "RO")},
                          .handler = JsonDebugMemoryCommand,
                          .doc = {"module", "1.0.0", "O(N)", "Reports the bytes a JSON value uses.",
                                  "key [path]"}});
  t.AddSub("json.debug",
           {.name = "help",
            .arity = 2,
            .flags = "readonly",
            .acl = "@slow",
            .handler = JsonDebugHelpCommand,
            .doc = {"module", "1.0.0", "N/A", "Lists the JSON.DEBUG subcommands.", ""}});
  RegisterJsonOpCommands(t);
}

}  // namespace hotkv
