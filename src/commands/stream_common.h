// Shared pieces of the stream command family (stream_family*.cc): id parsing with Redis's
// errors, reply shapes of entries, typed lookups, the write-stream records Redis emits for
// consumer-group changes (XCLAIM ... and XGROUP SETID), and the handlers' registration
// functions.
//
// Thread safety: stateless helpers; handlers run with their keys' shard locks held.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/command_context.h"
#include "types/stream.h"

namespace hotkv {

namespace stream_errors {
inline constexpr std::string_view kInvalidId =
    "ERR Invalid stream ID specified as stream command argument";
inline constexpr std::string_view kInvalidStart = "ERR invalid start ID for the interval";
inline constexpr std::string_view kInvalidEnd = "ERR invalid end ID for the interval";
}  // namespace stream_errors

using types::StreamId;
using types::StreamValue;

// Parses an id as Redis's streamGenericParseIDOrReply: "ms-seq", "ms" (seq =
// missing_seq), "-" and "+" unless `strict`, and "ms-*" when seq_given is not null (it is
// then set to false). Replies kInvalidId on failure.
std::optional<StreamId> ParseStreamId(CommandContext& ctx, std::string_view arg,
                                      uint64_t missing_seq, bool strict,
                                      bool* seq_given = nullptr);
// A range bound: "(" makes it exclusive (strict id after it); `start` bounds move up,
// end bounds down, with Redis's errors when they cannot.
std::optional<StreamId> ParseRangeBound(CommandContext& ctx, std::string_view arg, bool start);

void ReplyStreamId(ReplyBuilder& rb, const StreamId& id);
// [id, [field, value, ...]]
void ReplyStreamEntry(ReplyBuilder& rb, const StreamId& id, const types::StreamFields& fv);
// Replies the entries in [start, end] (at most count, 0 = all) as an array.
size_t ReplyStreamRange(ReplyBuilder& rb, const StreamValue& s, const StreamId& start,
                        const StreamId& end, bool rev, size_t count);

// The stream at `key` for reading (statistics, keymiss); null when missing or of another
// type (*wrong_type set and WRONGTYPE replied).
StreamValue* ReadStream(CommandContext& ctx, std::string_view key, bool* wrong_type);
// Without statistics (a write lookup).
StreamValue* FindStream(CommandContext& ctx, std::string_view key, bool* wrong_type);

types::StreamNodeLimits StreamLimits(CommandContext& ctx);

// A new, empty stream with the server's stream-idmp-* settings (Redis copies them into
// every stream it creates).
StreamValue* NewStream(CommandContext& ctx);
// A stream's IDMP settings (its own, else the server's).
int64_t IdmpDuration(CommandContext& ctx, const StreamValue& s);
int64_t IdmpMaxSize(CommandContext& ctx, const StreamValue& s);

// "-NOGROUP No such key '<key>' or consumer group '<group>'<suffix>"
void ReplyNoGroup(CommandContext& ctx, std::string_view key, std::string_view group,
                  std::string_view suffix = "");

// The group `group` of the stream at `key` (a read lookup): null with *wrong set
// (WRONGTYPE replied), or when the key or the group is missing (nothing replied).
types::StreamGroup* GroupOf(CommandContext& ctx, std::string_view key, std::string_view group,
                            StreamValue** stream, bool* wrong);

// GroupOf, replying WRONGTYPE or "NOGROUP No such key ... or consumer group ..." when
// there is no group; null then.
types::StreamGroup* GroupOrNoGroup(CommandContext& ctx, std::string_view key,
                                   std::string_view group, StreamValue** stream);

// The stream at `key` for a write that answers 0 when the key is missing: null with
// *done set when the reply is written (WRONGTYPE, or 0).
StreamValue* StreamOrZero(CommandContext& ctx, std::string_view key, bool* done);

// Parses ids (strict) from argument `first` to the end; replies and returns false on error.
bool ParseStreamIds(CommandContext& ctx, size_t first, std::vector<StreamId>* out);

// A help reply (one simple string per line) and an array of integers.
void ReplyLines(CommandContext& ctx, const std::vector<std::string_view>& lines);
void ReplyIntegers(CommandContext& ctx, const std::vector<int64_t>& values);

// The records Redis writes for group changes (streamPropagateXCLAIM,
// streamPropagateGroupID, streamPropagateConsumerCreation).
void PropagateXClaim(CommandContext& ctx, std::string_view key, std::string_view group_name,
                     const types::StreamGroup& group, const StreamId& id,
                     const types::PendingEntry& pe);
void PropagateGroupSetId(CommandContext& ctx, std::string_view key, std::string_view group_name,
                         const types::StreamGroup& group);
void PropagateConsumerCreation(CommandContext& ctx, std::string_view key,
                               std::string_view group_name, std::string_view consumer);

// Creates `name` in `g` if missing (with its "xgroup-createconsumer" event); the consumer.
types::StreamConsumer* LookupOrCreateConsumer(CommandContext& ctx, std::string_view key,
                                              types::StreamGroup& g, std::string_view name,
                                              bool* created = nullptr);

// Counts a change of group state (dirty; not WATCH, as Redis) without a keyspace event.
void StreamDirty(CommandContext& ctx, std::string_view key);

// "ERR unknown subcommand or wrong number of arguments for '<sub>'. Try <CMD> HELP."
void ReplySubcommandSyntaxError(CommandContext& ctx);

}  // namespace hotkv
