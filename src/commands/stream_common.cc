#include "commands/stream_common.h"

#include <string>

#include "commands/helpers.h"
#include "common/string_util.h"
#include "engine/entry.h"
#include "server/server.h"

namespace hotkv {

std::optional<StreamId> ParseStreamId(CommandContext& ctx, std::string_view arg,
                                      uint64_t missing_seq, bool strict, bool* seq_given) {
  auto fail = [&]() -> std::optional<StreamId> {
    ctx.rb().Error(stream_errors::kInvalidId);
    return std::nullopt;
  };
  if (arg.size() > 127) {
    return fail();
  }
  if (seq_given != nullptr) {
    *seq_given = true;
  }
  if (arg == "-" || arg == "+") {
    if (strict) {
      return fail();
    }
    return arg == "-" ? StreamId::Min() : StreamId::Max();
  }
  if (seq_given != nullptr && arg.size() >= 2 && arg.substr(arg.size() - 2) == "-*") {
    auto id = StreamId::Parse(arg.substr(0, arg.size() - 2), 0);
    if (!id || arg.substr(0, arg.size() - 2).find('-') != std::string_view::npos) {
      return fail();
    }
    *seq_given = false;
    return id;
  }
  auto id = StreamId::Parse(arg, missing_seq);
  if (!id) {
    return fail();
  }
  return id;
}

std::optional<StreamId> ParseRangeBound(CommandContext& ctx, std::string_view arg, bool start) {
  const bool exclusive = arg.size() > 1 && arg[0] == '(';
  std::optional<StreamId> id =
      exclusive ? ParseStreamId(ctx, arg.substr(1), start ? 0 : UINT64_MAX, true)
                : ParseStreamId(ctx, arg, start ? 0 : UINT64_MAX, false);
  if (!id) {
    return std::nullopt;
  }
  if (exclusive) {
    if (start ? !id->Incr() : !id->Decr()) {
      ctx.rb().Error(start ? stream_errors::kInvalidStart : stream_errors::kInvalidEnd);
      return std::nullopt;
    }
  }
  return id;
}

void ReplyStreamId(ReplyBuilder& rb, const StreamId& id) {
  char buf[48];
  int n = snprintf(buf, sizeof(buf), "%llu-%llu", static_cast<unsigned long long>(id.ms),
                   static_cast<unsigned long long>(id.seq));
  rb.Bulk(std::string_view(buf, static_cast<size_t>(n)));
}

void ReplyStreamEntry(ReplyBuilder& rb, const StreamId& id, const types::StreamFields& fv) {
  rb.Array(2);
  ReplyStreamId(rb, id);
  rb.Array(fv.size());
  for (std::string_view s : fv) {
    rb.Bulk(s);
  }
}

size_t ReplyStreamRange(ReplyBuilder& rb, const StreamValue& s, const StreamId& start,
                        const StreamId& end, bool rev, size_t count) {
  size_t pos = rb.BeginDeferred();
  size_t n = s.Range(start, end, rev, count, [&](const StreamId& id, const types::StreamFields& fv) {
    ReplyStreamEntry(rb, id, fv);
    return true;
  });
  rb.EndDeferredArray(pos, n);
  return n;
}

StreamValue* ReadStream(CommandContext& ctx, std::string_view key, bool* wrong_type) {
  Entry* e = LookupRead(ctx, key);
  *wrong_type = !CheckType(ctx, e, ValueType::kStream);
  return e != nullptr && !*wrong_type ? e->As<StreamValue>() : nullptr;
}

StreamValue* FindStream(CommandContext& ctx, std::string_view key, bool* wrong_type) {
  Entry* e = ctx.db().Find(key);
  *wrong_type = !CheckType(ctx, e, ValueType::kStream);
  return e != nullptr && !*wrong_type ? e->As<StreamValue>() : nullptr;
}

types::StreamGroup* GroupOf(CommandContext& ctx, std::string_view key, std::string_view group,
                            StreamValue** stream, bool* wrong) {
  *stream = ReadStream(ctx, key, wrong);
  if (*wrong || *stream == nullptr) {
    return nullptr;
  }
  return (*stream)->FindGroup(group);
}

types::StreamGroup* GroupOrNoGroup(CommandContext& ctx, std::string_view key,
                                   std::string_view group, StreamValue** stream) {
  bool wrong;
  types::StreamGroup* g = GroupOf(ctx, key, group, stream, &wrong);
  if (g == nullptr && !wrong) {
    ReplyNoGroup(ctx, key, group);
  }
  return g;
}

StreamValue* StreamOrZero(CommandContext& ctx, std::string_view key, bool* done) {
  bool wrong;
  StreamValue* s = FindStream(ctx, key, &wrong);
  *done = wrong || s == nullptr;
  if (!wrong && s == nullptr) {
    ctx.rb().Integer(0);
  }
  return s;
}

bool ParseStreamIds(CommandContext& ctx, size_t first, std::vector<StreamId>* out) {
  for (size_t j = first; j < ctx.argc(); j++) {
    auto id = ParseStreamId(ctx, ctx.arg(j), 0, true);
    if (!id) {
      return false;
    }
    out->push_back(*id);
  }
  return true;
}

void ReplyLines(CommandContext& ctx, const std::vector<std::string_view>& lines) {
  ctx.rb().Array(lines.size());
  for (std::string_view l : lines) {
    ctx.rb().SimpleString(l);
  }
}

void ReplyIntegers(CommandContext& ctx, const std::vector<int64_t>& values) {
  ctx.rb().Array(values.size());
  for (int64_t v : values) {
    ctx.rb().Integer(v);
  }
}

types::StreamNodeLimits StreamLimits(CommandContext& ctx) {
  types::StreamNodeLimits l;
  l.max_bytes = static_cast<size_t>(ctx.server().config().stream_node_max_bytes());
  l.max_entries = static_cast<size_t>(ctx.server().config().stream_node_max_entries());
  return l;
}

void ReplyNoGroup(CommandContext& ctx, std::string_view key, std::string_view group,
                  std::string_view suffix) {
  std::string msg = "NOGROUP No such key '";
  msg.append(key);
  msg += "' or consumer group '";
  msg.append(group);
  msg += "'";
  msg.append(suffix);
  ctx.rb().Error(msg);
}

void PropagateXClaim(CommandContext& ctx, std::string_view key, std::string_view group_name,
                     const types::StreamGroup& group, const StreamId& id,
                     const types::PendingEntry& pe) {
  if (!ctx.propagating()) {
    return;
  }
  std::string ids = id.ToString();
  std::string time = std::to_string(pe.delivery_time);
  std::string count = std::to_string(pe.delivery_count);
  std::string last = group.last_id.ToString();
  ctx.PropagateAs({"XCLAIM", key, group_name, pe.consumer->name, "0", ids, "TIME", time,
                   "RETRYCOUNT", count, "FORCE", "JUSTID", "LASTID", last});
}

void PropagateGroupSetId(CommandContext& ctx, std::string_view key, std::string_view group_name,
                         const types::StreamGroup& group) {
  if (!ctx.propagating()) {
    return;
  }
  std::string last = group.last_id.ToString();
  std::string read = std::to_string(group.entries_read);
  ctx.PropagateAs({"XGROUP", "SETID", key, group_name, last, "ENTRIESREAD", read});
}

void PropagateConsumerCreation(CommandContext& ctx, std::string_view key,
                               std::string_view group_name, std::string_view consumer) {
  if (!ctx.propagating()) {
    return;
  }
  ctx.PropagateAs({"XGROUP", "CREATECONSUMER", key, group_name, consumer});
}

types::StreamConsumer* LookupOrCreateConsumer(CommandContext& ctx, std::string_view key,
                                              types::StreamGroup& g, std::string_view name,
                                              bool* created) {
  types::StreamConsumer* c = g.FindConsumer(name);
  if (created != nullptr) {
    *created = c == nullptr;
  }
  if (c == nullptr) {
    c = g.CreateConsumer(name, ctx.now_ms());
    ctx.KeyChangedUnwatched(key, notify::kStream, "xgroup-createconsumer");
  }
  return c;
}

StreamValue* NewStream(CommandContext& ctx) {
  auto* s = new StreamValue();
  s->set_idmp_duration(ctx.server().config().stream_idmp_duration());
  s->set_idmp_maxsize(ctx.server().config().stream_idmp_maxsize());
  return s;
}

int64_t IdmpDuration(CommandContext& ctx, const StreamValue& s) {
  return s.idmp_duration() != 0 ? s.idmp_duration() : ctx.server().config().stream_idmp_duration();
}

int64_t IdmpMaxSize(CommandContext& ctx, const StreamValue& s) {
  return s.idmp_maxsize() != 0 ? s.idmp_maxsize() : ctx.server().config().stream_idmp_maxsize();
}

void StreamDirty(CommandContext& ctx, std::string_view key) { ctx.KeyChangedUnwatched(key, 0, ""); }

void ReplySubcommandSyntaxError(CommandContext& ctx) {
  std::string msg = "ERR unknown subcommand or wrong number of arguments for '";
  msg.append(ctx.arg(1).substr(0, 128));
  msg += "'. Try ";
  msg += ToUpper(ctx.command()->parent != nullptr ? ctx.command()->parent->name
                                                  : ctx.command()->name);
  msg += " HELP.";
  ctx.rb().Error(msg);
}

}  // namespace hotkv
