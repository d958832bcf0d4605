// JSON documents, part 2: numbers (JSON.NUMINCRBY, JSON.NUMMULTBY), strings
// (JSON.STRAPPEND, JSON.STRLEN), booleans (JSON.TOGGLE), JSON.CLEAR, objects
// (JSON.OBJKEYS, JSON.OBJLEN), and the length reply shared with JSON.ARRLEN.
//
// Edge cases honoured (as Redis): writers on a missing key reply "ERR could not perform
// this operation on a key that doesn't exist"; length readers reply null for a missing
// key with a legacy path and that error with a JSONPath. With a JSONPath every match
// gets a reply (null where it has the wrong type); with a legacy path a missing path or
// a first match of the wrong type is an error. Integer arithmetic stays exact, falling
// back to double on int64 overflow; a result that is not finite is refused before
// anything changes. NUMINCRBY/NUMMULTBY reply the JSON text of the results in RESP2
// ("[3,null]") and an array of numbers in RESP3.
#include <cmath>
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/json_common.h"
#include "commands/register.h"
#include "engine/entry.h"

namespace hotkv {

namespace {

using json::Match;
using json::Node;
using json::Path;
using namespace jsoncmd;

// a + b or a * b as Redis's JSON computes it: int64 when both are integers and the
// result fits, else double.
Node Arith(const Node& a, const Node& b, bool mult) {
  if (a.kind() == json::Kind::kInt && b.kind() == json::Kind::kInt) {
    int64_t r;
    bool overflow = mult ? __builtin_mul_overflow(a.int_value(), b.int_value(), &r)
                         : __builtin_add_overflow(a.int_value(), b.int_value(), &r);
    if (!overflow) {
      return Node::Int(r);
    }
  }
  return Node::Double(mult ? a.number() * b.number() : a.number() + b.number());
}

// JSON.NUMINCRBY / JSON.NUMMULTBY key path value
void NumOp(CommandContext& ctx, bool mult) {
  DocScope packing;
  std::optional<Path> p = PathArg(ctx, ctx.arg(2));
  if (!p) {
    return;
  }
  std::optional<Node> by = JsonArg(ctx, ctx.arg(3));
  if (!by) {
    return;
  }
  if (!by->is_number()) {
    return ctx.rb().Error(WrongPathType("a number", *by));
  }
  std::string_view key = ctx.arg(1);
  std::vector<Match> ms;
  if (!WriterMatches(
          ctx, *p, [](const Node& n) { return n.is_number(); }, "does not contains a number",
          &ms)) {
    return;
  }
  std::vector<std::optional<Node>> results;
  results.reserve(ms.size());
  for (const Match& m : ms) {
    if (!m.node->is_number()) {
      results.emplace_back();
      continue;
    }
    Node r = Arith(*m.node, *by, mult);
    if (r.kind() == json::Kind::kDouble && !std::isfinite(r.double_value())) {
      return ctx.rb().Error("ERR result is an infinite number");
    }
    results.emplace_back(std::move(r));
  }
  bool changed = false;
  for (size_t i = 0; i < ms.size(); i++) {
    if (results[i]) {
      *ms[i].node = results[i]->Clone();
      changed = true;
    }
  }
  if (changed) {
    Changed(ctx, key, mult ? "json.nummultby" : "json.numincrby");
  }
  // RESP3 replies an array of numbers even for a legacy path, as Redis does.
  if (p->legacy() && !ctx.rb().resp3()) {
    return ctx.rb().Bulk(json::ToJson(*results.back()));
  }
  if (ctx.rb().resp3()) {
    ctx.rb().Array(results.size());
    for (const auto& r : results) {
      if (!r) {
        ctx.rb().Null();
      } else if (r->kind() == json::Kind::kInt) {
        ctx.rb().Integer(r->int_value());
      } else {
        ctx.rb().Double(r->double_value());
      }
    }
    return;
  }
  std::string out = "[";
  for (size_t i = 0; i < results.size(); i++) {
    if (i > 0) {
      out.push_back(',');
    }
    if (results[i]) {
      json::Serialize(*results[i], json::Format{}, &out);
    } else {
      out.append("null");
    }
  }
  out.push_back(']');
  ctx.rb().Bulk(out);
}
void JsonNumIncrByCommand(CommandContext& ctx) { NumOp(ctx, false); }
void JsonNumMultByCommand(CommandContext& ctx) { NumOp(ctx, true); }

// JSON.STRAPPEND key [path] value
void JsonStrAppendCommand(CommandContext& ctx) {
  DocScope packing;
  if (ctx.argc() > 4) {
    return ReplyWrongArity(ctx);
  }
  std::optional<Path> p =
      ctx.argc() == 4 ? PathArg(ctx, ctx.arg(2)) : std::optional<Path>(Path::LegacyRoot());
  if (!p) {
    return;
  }
  std::optional<Node> suffix = JsonArg(ctx, ctx.arg(ctx.argc() - 1));
  if (!suffix) {
    return;
  }
  if (!suffix->is_string()) {
    return ctx.rb().Error(WrongPathType("string", *suffix));
  }
  std::string_view key = ctx.arg(1);
  std::vector<Match> ms;
  if (!WriterMatches(
          ctx, *p, [](const Node& n) { return n.is_string(); }, "not a string", &ms)) {
    return;
  }
  std::vector<std::optional<int64_t>> lens;
  for (const Match& m : ms) {
    if (!m.node->is_string()) {
      lens.emplace_back();
      continue;
    }
    std::string s(m.node->str());
    s.append(suffix->str());
    *m.node = Node::String(s);
    lens.emplace_back(static_cast<int64_t>(s.size()));
  }
  Changed(ctx, key, "json.strappend");
  if (p->legacy()) {
    return ctx.rb().Integer(*lens.back());
  }
  ReplyIntegers(ctx, lens);
}

}  // namespace

namespace jsoncmd {

// JSON.STRLEN / JSON.OBJLEN / JSON.ARRLEN key [path]: `len` of each match passing `ok`.
void LengthReply(CommandContext& ctx, const std::function<bool(const Node&)>& ok,
                 const std::function<size_t(const Node&)>& len, std::string_view what) {
  DocScope packing;
  std::optional<Path> p;
  Node* doc;
  if (!ReadDocAndPath(ctx, 2, &doc, &p)) {
    return;
  }
  if (doc == nullptr) {
    return p->legacy() ? ctx.rb().Null() : ctx.rb().Error(kNoKey);
  }
  std::vector<Match> ms = json::Select(*p, *doc);
  if (!CheckLegacyRead(ctx, *p, ms, ok, what)) {
    return;
  }
  if (p->legacy()) {
    return ctx.rb().Integer(static_cast<int64_t>(len(*ms[0].node)));
  }
  std::vector<std::optional<int64_t>> out;
  for (const Match& m : ms) {
    out.push_back(ok(*m.node) ? std::optional<int64_t>(static_cast<int64_t>(len(*m.node)))
                              : std::nullopt);
  }
  ReplyIntegers(ctx, out);
}

}  // namespace jsoncmd

namespace {

void JsonStrLenCommand(CommandContext& ctx) {
  DocScope packing;
  LengthReply(
      ctx, [](const Node& n) { return n.is_string(); },
      [](const Node& n) { return n.str().size(); }, "not a string");
}

// JSON.OBJLEN key [path]: unlike the other length readers, a legacy path replies null
// for a missing path or a non-object, and a JSONPath on a missing key is "ERR Path does
// not exist or not an object" (Redis's replies).
void JsonObjLenCommand(CommandContext& ctx) {
  DocScope packing;
  std::optional<Path> p;
  Node* doc;
  if (!ReadDocAndPath(ctx, 2, &doc, &p)) {
    return;
  }
  if (doc == nullptr) {
    return p->legacy() ? ctx.rb().Null()
                       : ctx.rb().Error("ERR Path does not exist or not an object");
  }
  std::vector<Match> ms = json::Select(*p, *doc);
  std::vector<std::optional<int64_t>> out;
  for (const Match& m : ms) {
    out.push_back(m.node->is_object()
                      ? std::optional<int64_t>(static_cast<int64_t>(m.node->members().size()))
                      : std::nullopt);
  }
  if (p->legacy()) {
    return out.empty() || !out[0] ? ctx.rb().Null() : ctx.rb().Integer(*out[0]);
  }
  ReplyIntegers(ctx, out);
}

// JSON.OBJKEYS key [path]
void JsonObjKeysCommand(CommandContext& ctx) {
  DocScope packing;
  std::optional<Path> p;
  Node* doc;
  if (!ReadDocAndPath(ctx, 2, &doc, &p)) {
    return;
  }
  if (doc == nullptr) {
    return p->legacy() ? ctx.rb().Null() : ctx.rb().Error(kNoKey);
  }
  std::vector<Match> ms = json::Select(*p, *doc);
  auto keys = [&](const Node& n) {
    ctx.rb().Array(n.members().size());
    for (const json::Member& m : n.members()) {
      ctx.rb().Bulk(m.key.str());
    }
  };
  if (p->legacy()) {
    if (ms.empty()) {
      return ctx.rb().Null();
    }
    if (!ms[0].node->is_object()) {
      return ctx.rb().Error("ERR Path does not exist or not an object");
    }
    return keys(*ms[0].node);
  }
  ctx.rb().Array(ms.size());
  for (const Match& m : ms) {
    if (m.node->is_object()) {
      keys(*m.node);
    } else {
      ctx.rb().Null();
    }
  }
}

// JSON.TOGGLE key path
void JsonToggleCommand(CommandContext& ctx) {
  DocScope packing;
  std::optional<Path> p = PathArg(ctx, ctx.arg(2));
  if (!p) {
    return;
  }
  std::string_view key = ctx.arg(1);
  std::vector<Match> ms;
  if (!WriterMatches(
          ctx, *p, [](const Node& n) { return n.is_bool(); }, "not a bool", &ms)) {
    return;
  }
  std::vector<std::optional<int64_t>> out;
  for (const Match& m : ms) {
    if (!m.node->is_bool()) {
      out.emplace_back();
      continue;
    }
    *m.node = Node::Bool(!m.node->bool_value());
    out.emplace_back(m.node->bool_value() ? 1 : 0);
  }
  Changed(ctx, key, "json.toggle");
  if (p->legacy()) {
    return ctx.rb().Bulk(*out.back() ? "true" : "false");
  }
  ReplyIntegers(ctx, out);
}

// JSON.CLEAR key [path]: empties arrays and objects and sets numbers to 0; replies how
// many values it changed.
void JsonClearCommand(CommandContext& ctx) {
  DocScope packing;
  if (ctx.argc() > 3) {
    return ReplyWrongArity(ctx);
  }
  std::optional<Path> p = PathArgOr(ctx, 2);
  if (!p) {
    return;
  }
  std::string_view key = ctx.arg(1);
  Node* doc = ExistingDoc(ctx, key);
  if (doc == nullptr) {
    return;
  }
  std::vector<Match> ms = json::Select(*p, *doc);
  int64_t cleared = 0;
  for (const Match& m : ms) {
    // Only what changes counts: a non-empty container, a non-zero number (Redis).
    if (m.node->is_array() && !m.node->array().empty()) {
      m.node->array().clear();
    } else if (m.node->is_object() && !m.node->members().empty()) {
      m.node->members().clear();
    } else if (m.node->is_number() && m.node->number() != 0) {
      *m.node = Node::Int(0);
    } else {
      continue;
    }
    cleared++;
  }
  if (cleared > 0) {
    Changed(ctx, key, "json.clear");
  }
  ctx.rb().Integer(cleared);
}

}  // namespace

void RegisterJsonOpCommands(CommandTable& t) {
  struct Def {
    const char* name;
    int arity;
    const char* flags;
    bool write;
    CommandHandler handler;
    const char* since;
    const char* summary;
    const char* syntax;
  };
  static const Def kDefs[] = {
      {"json.numincrby", 4, "write", true, JsonNumIncrByCommand, "1.0.0",
       "Adds a number to the numbers at a path.", "key path value"},
      {"json.nummultby", 4, "write", true, JsonNumMultByCommand, "1.0.0",
       "Multiplies the numbers at a path by a number.", "key path value"},
      {"json.strappend", -3, "write denyoom", true, JsonStrAppendCommand, "1.0.0",
       "Appends a string to the strings at a path.", "key [path] value"},
      {"json.strlen", -2, "readonly", false, JsonStrLenCommand, "1.0.0",
       "Returns the length of the strings at a path.", "key [path]"},
      {"json.toggle", 3, "write", true, JsonToggleCommand, "2.0.0",
       "Toggles the booleans at a path.", "key path"},
      {"json.clear", -2, "write", true, JsonClearCommand, "2.0.0",
       "Empties the arrays and objects and zeroes the numbers at a path.", "key [path]"},
      {"json.objkeys", -2, "readonly", false, JsonObjKeysCommand, "1.0.0",
       "Returns the keys of the objects at a path.", "key [path]"},
      {"json.objlen", -2, "readonly", false, JsonObjLenCommand, "1.0.0",
       "Returns the number of keys of the objects at a path.", "key [path]"},
  };
  for (const Def& d : kDefs) {
    t.Add({.name = d.name,
           .arity = d.arity,
           .flags = d.flags,
           .acl = d.write ? "@write @json @slow" : "@read @json @slow",
           .keys = {KeyAt(1, d.write ? "RW UPDATE" : "RO")},
           .handler = d.handler,
           .doc = {"module", d.since, "O(N) where N is the number of values at the path", d.summary,
                   d.syntax}});
  }
  RegisterJsonArrayCommands(t);
}

}  // namespace hotkv
