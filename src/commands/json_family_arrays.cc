// JSON documents, part 3: arrays — JSON.ARRAPPEND, JSON.ARRINDEX, JSON.ARRINSERT,
// JSON.ARRLEN, JSON.ARRPOP, JSON.ARRTRIM.
//
// Edge cases honoured (as Redis): values are parsed before anything changes; ARRINSERT
// takes an index in [-len, len] ("ERR index out of bounds" otherwise); ARRPOP's index
// is clamped into the array (default -1, the last) and an empty array pops null;
// ARRTRIM clamps like LTRIM (start past the end or start > stop empties the array);
// ARRINDEX searches [start, stop) with negative positions from the end and stop 0 (or
// past the end) meaning the end, comparing values as JSON (1 equals 1.0).
#include <algorithm>
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

bool IsArray(const Node& n) { return n.is_array(); }

// Parses ctx.arg(first..) as JSON values; false after an error reply.
bool ValueArgs(CommandContext& ctx, size_t first, std::vector<Node>* out) {
  for (size_t i = first; i < ctx.argc(); i++) {
    std::optional<Node> v = JsonArg(ctx, ctx.arg(i));
    if (!v) {
      return false;
    }
    out->push_back(std::move(*v));
  }
  return true;
}

// Inserts clones of `values` at `at` in each array match; replies the new lengths.
void InsertValues(CommandContext& ctx, const Path& p, std::vector<Match>& ms,
                  const std::vector<Node>& values, std::optional<int64_t> at,
                  std::string_view event) {
  std::vector<std::optional<int64_t>> lens;
  for (const Match& m : ms) {
    if (!m.node->is_array()) {
      lens.emplace_back();
      continue;
    }
    auto& a = m.node->array();
    size_t pos = a.size();
    if (at) {
      int64_t i = *at < 0 ? *at + static_cast<int64_t>(a.size()) : *at;
      pos = static_cast<size_t>(i);
    }
    std::vector<Node> copies;
    copies.reserve(values.size());
    for (const Node& v : values) {
      copies.push_back(v.Clone());
    }
    a.insert(a.begin() + static_cast<ptrdiff_t>(pos), std::make_move_iterator(copies.begin()),
             std::make_move_iterator(copies.end()));
    lens.emplace_back(static_cast<int64_t>(a.size()));
  }
  ctx.KeyModified(ctx.arg(1), notify::kModule, event);
  if (p.legacy()) {
    for (size_t i = lens.size(); i-- > 0;) {
      if (lens[i]) {
        return ctx.rb().Integer(*lens[i]);
      }
    }
  }
  ReplyIntegers(ctx, lens);
}

// JSON.ARRAPPEND key path value [value ...]
void JsonArrAppendCommand(CommandContext& ctx) {
  DocScope packing;
  if (ctx.argc() < 4) {
    return ReplyWrongArity(ctx);
  }
  std::optional<Path> p = PathArg(ctx, ctx.arg(2));
  std::vector<Node> values;
  if (!p || !ValueArgs(ctx, 3, &values)) {
    return;
  }
  std::vector<Match> ms;
  if (!WriterMatches(ctx, *p, IsArray, "not an array", &ms)) {
    return;
  }
  InsertValues(ctx, *p, ms, values, std::nullopt, "json.arrappend");
}

// JSON.ARRINSERT key path index value [value ...]
void JsonArrInsertCommand(CommandContext& ctx) {
  DocScope packing;
  std::optional<Path> p = PathArg(ctx, ctx.arg(2));
  if (!p) {
    return;
  }
  std::optional<int64_t> index = ctx.IntArg(3);
  std::vector<Node> values;
  if (!index || !ValueArgs(ctx, 4, &values)) {
    return;
  }
  std::vector<Match> ms;
  if (!WriterMatches(ctx, *p, IsArray, "not an array", &ms)) {
    return;
  }
  for (const Match& m : ms) {
    if (m.node->is_array()) {
      auto len = static_cast<int64_t>(m.node->array().size());
      if (*index < -len || *index > len) {
        return ctx.rb().Error("ERR index out of bounds");
      }
    }
  }
  InsertValues(ctx, *p, ms, values, index, "json.arrinsert");
}

// JSON.ARRINDEX key path value [start [stop]]
void JsonArrIndexCommand(CommandContext& ctx) {
  DocScope packing;
  if (ctx.argc() > 6) {
    return ReplyWrongArity(ctx);
  }
  std::optional<Path> p = PathArg(ctx, ctx.arg(2));
  if (!p) {
    return;
  }
  std::optional<Node> needle = JsonArg(ctx, ctx.arg(3));
  if (!needle) {
    return;
  }
  int64_t start = 0, stop = 0;
  if (ctx.argc() > 4) {
    std::optional<int64_t> v = ctx.IntArg(4);
    if (!v) {
      return;
    }
    start = *v;
  }
  if (ctx.argc() > 5) {
    std::optional<int64_t> v = ctx.IntArg(5);
    if (!v) {
      return;
    }
    stop = *v;
  }
  bool failed;
  Node* doc = ReadDoc(ctx, ctx.arg(1), &failed);
  if (failed) {
    return;
  }
  if (doc == nullptr) {
    return ctx.rb().Error("ERR Path does not exist");
  }
  std::vector<Match> ms = json::Select(*p, *doc);
  if (!CheckLegacyRead(ctx, *p, ms, IsArray, "not an array")) {
    return;
  }
  std::vector<std::optional<int64_t>> out;
  for (const Match& m : ms) {
    if (!m.node->is_array()) {
      out.emplace_back();
      continue;
    }
    const auto& a = m.node->array();
    auto len = static_cast<int64_t>(a.size());
    int64_t from = start < 0 ? std::max<int64_t>(0, len + start) : std::min(start, len);
    int64_t to = stop == 0  ? len
                 : stop < 0 ? std::max<int64_t>(0, len + stop)
                            : std::min(stop, len);
    int64_t found = -1;
    for (int64_t i = from; i < to; i++) {
      if (json::Equal(a[static_cast<size_t>(i)], *needle)) {
        found = i;
        break;
      }
    }
    out.emplace_back(found);
  }
  if (p->legacy()) {
    return ctx.rb().Integer(*out[0]);
  }
  ReplyIntegers(ctx, out);
}

void JsonArrLenCommand(CommandContext& ctx) {
  DocScope packing;
  LengthReply(
      ctx, IsArray, [](const Node& n) { return n.array().size(); }, "not an array");
}

// JSON.ARRPOP key [path [index]]
void JsonArrPopCommand(CommandContext& ctx) {
  DocScope packing;
  if (ctx.argc() > 4) {
    return ReplyWrongArity(ctx);
  }
  std::optional<Path> p = PathArgOr(ctx, 2);
  if (!p) {
    return;
  }
  int64_t index = -1;
  if (ctx.argc() > 3) {
    std::optional<int64_t> v = ctx.IntArg(3);
    if (!v) {
      return;
    }
    index = *v;
  }
  std::vector<Match> ms;
  if (!WriterMatches(ctx, *p, IsArray, "not an array", &ms)) {
    return;
  }
  std::vector<std::optional<std::string>> popped;
  for (const Match& m : ms) {
    if (!m.node->is_array() || m.node->array().empty()) {
      popped.emplace_back();
      continue;
    }
    auto& a = m.node->array();
    auto len = static_cast<int64_t>(a.size());
    int64_t i = index < 0 ? std::max<int64_t>(0, len + index) : std::min(index, len - 1);
    popped.emplace_back(json::ToJson(a[static_cast<size_t>(i)]));
    a.erase(a.begin() + i);
  }
  bool any = std::any_of(popped.begin(), popped.end(), [](const auto& s) { return s.has_value(); });
  if (any) {
    ctx.KeyModified(ctx.arg(1), notify::kModule, "json.arrpop");
  }
  if (p->legacy()) {
    return popped.back() ? ctx.rb().Bulk(*popped.back()) : ctx.rb().Null();
  }
  ctx.rb().Array(popped.size());
  for (const auto& s : popped) {
    if (s) {
      ctx.rb().Bulk(*s);
    } else {
      ctx.rb().Null();
    }
  }
}

// JSON.ARRTRIM key path start stop
void JsonArrTrimCommand(CommandContext& ctx) {
  DocScope packing;
  std::optional<Path> p = PathArg(ctx, ctx.arg(2));
  if (!p) {
    return;
  }
  std::optional<int64_t> start = ctx.IntArg(3);
  if (!start) {
    return;
  }
  std::optional<int64_t> stop = ctx.IntArg(4);
  if (!stop) {
    return;
  }
  std::vector<Match> ms;
  if (!WriterMatches(ctx, *p, IsArray, "not an array", &ms)) {
    return;
  }
  std::vector<std::optional<int64_t>> lens;
  for (const Match& m : ms) {
    if (!m.node->is_array()) {
      lens.emplace_back();
      continue;
    }
    auto& a = m.node->array();
    auto len = static_cast<int64_t>(a.size());
    auto norm = [len](int64_t v) {
      return v < 0 ? std::max<int64_t>(0, len + v) : std::min(v, len - 1);
    };
    int64_t to = norm(*stop);
    int64_t from = (*start < 0 || *start < len) ? norm(*start) : to + 1;
    if (len == 0 || from > to) {
      a.clear();
    } else {
      a.erase(a.begin() + to + 1, a.end());
      a.erase(a.begin(), a.begin() + from);
    }
    lens.emplace_back(static_cast<int64_t>(a.size()));
  }
  ctx.KeyModified(ctx.arg(1), notify::kModule, "json.arrtrim");
  if (p->legacy()) {
    return ctx.rb().Integer(*lens.back());
  }
  ReplyIntegers(ctx, lens);
}

}  // namespace

void RegisterJsonArrayCommands(CommandTable& t) {
  struct Def {
    const char* name;
    int arity;
    const char* flags;
    bool write;
    CommandHandler handler;
    const char* summary;
    const char* syntax;
  };
  static const Def kDefs[] = {
      {"json.arrappend", -3, "write denyoom", true, JsonArrAppendCommand,
       "Appends values to the arrays at a path.", "key path value [value ...]"},
      {"json.arrindex", -4, "readonly", false, JsonArrIndexCommand,
       "Returns the first index of a value in the arrays at a path.",
       "key path value [range: start [stop]]"},
      {"json.arrinsert", -5, "write denyoom", true, JsonArrInsertCommand,
       "Inserts values before an index of the arrays at a path.",
       "key path index value [value ...]"},
      {"json.arrlen", -2, "readonly", false, JsonArrLenCommand,
       "Returns the length of the arrays at a path.", "key [path]"},
      {"json.arrpop", -2, "write", true, JsonArrPopCommand,
       "Removes and returns an element of the arrays at a path.", "key [path [index]]"},
      {"json.arrtrim", 5, "write", true, JsonArrTrimCommand,
       "Keeps only a range of the arrays at a path.", "key path start stop"},
  };
  for (const Def& d : kDefs) {
    t.Add({.name = d.name,
           .arity = d.arity,
           .flags = d.flags,
           .acl = d.write ? "@write @json @slow" : "@read @json @slow",
           .keys = {KeyAt(1, d.write ? "RW UPDATE" : "RO")},
           .handler = d.handler,
           .doc = {"module", "1.0.0", "O(N) where N is the size of the arrays at the path",
                   d.summary, d.syntax}});
  }
}

}  // namespace hotkv
