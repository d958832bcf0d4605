// The sorted-set family's entries in the command table (handlers in zset_family.cc,
// zset_family_ranges.cc, zset_family_pops.cc, zset_family_algebra.cc). Arity, flags and key specs
// follow Redis's command table exactly; commands with a numkeys argument describe their
// keys with KeyNum, so COMMAND GETKEYS, shard locking and EXEC find every input key.
#include <string>

#include "commands/register.h"
#include "commands/zset_common.h"

namespace hotkv {

namespace {

constexpr const char* kGroup = "sorted-set";
constexpr const char* kLogN = "O(log(N)) where N is the number of elements in the sorted set.";
constexpr const char* kLogNPlusM =
    "O(log(N)+M) with N the number of elements in the sorted set and M the number of "
    "elements returned.";
constexpr const char* kLogNPlusMRemoved =
    "O(log(N)+M) with N the number of elements in the sorted set and M the number of "
    "elements removed.";
constexpr const char* kUnionComplexity =
    "O(N)+O(M*log(M)) with N the total size of the inputs and M the size of the result.";
constexpr const char* kInterComplexity =
    "O(N*K)+O(M*log(M)) worst case, with N the size of the smallest input, K the number "
    "of inputs and M the size of the result.";
constexpr const char* kDiffComplexity =
    "O(L + (N-K)log(N)) worst case, with L the total number of elements in all the "
    "inputs, N the size of the first input and K the size of the result.";
constexpr const char* kPopComplexity =
    "O(log(N)*M) with N the number of elements in the sorted set and M the number of "
    "elements popped.";
constexpr const char* kMPopComplexity =
    "O(K) + O(M*log(N)) with K the number of keys given, N the number of elements in the "
    "sorted set and M the number of elements popped.";

}  // namespace

void RegisterZSetCommands(CommandTable& t) {
  // ---- single members, counts, ranks ----
  t.Add({.name = "zadd", .arity = -4, .flags = "write denyoom fast",
         .acl = "@write @sortedset @fast", .keys = {KeyAt(1, "RW UPDATE")},
         .handler = ZAddCommand,
         .doc = {kGroup, "1.2.0", "O(log(N)) for each member added or updated, N being the size of the sorted set.",
                 "Adds members with scores to a sorted set, or updates their scores; creates the key if needed.",
                 "key [condition: NX | XX] [comparison: GT | LT] [change: CH] [increment: INCR] "
                 "<data: score member> ..."}});
  t.Add({.name = "zincrby", .arity = 4, .flags = "write denyoom fast",
         .acl = "@write @sortedset @fast", .keys = {KeyAt(1, "RW ACCESS UPDATE")},
         .handler = ZIncrByCommand,
         .doc = {kGroup, "1.2.0", kLogN,
                 "Adds an increment to the score of a member (0 when absent) and returns the new score.",
                 "key increment member"}});
  t.Add({.name = "zrem", .arity = -3, .flags = "write fast", .acl = "@write @sortedset @fast",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = ZRemCommand,
         .doc = {kGroup, "1.2.0", "O(M*log(N)) with N the size of the sorted set and M the number of members removed.",
                 "Removes members from a sorted set; deletes the key when it becomes empty.",
                 "key member [member ...]"}});
  t.Add({.name = "zcard", .arity = 2, .flags = "readonly fast", .acl = "@read @sortedset @fast",
         .keys = {KeyAt(1, "RO")}, .handler = ZCardCommand,
         .doc = {kGroup, "1.2.0", "O(1)", "Returns the number of members of a sorted set.", "key"}});
  t.Add({.name = "zcount", .arity = 4, .flags = "readonly fast", .acl = "@read @sortedset @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZCountCommand,
         .doc = {kGroup, "2.0.0", kLogN, "Counts the members whose score lies in a range.",
                 "key min:double max:double"}});
  t.Add({.name = "zlexcount", .arity = 4, .flags = "readonly fast", .acl = "@read @sortedset @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZLexCountCommand,
         .doc = {kGroup, "2.8.9", kLogN,
                 "Counts the members in a lexicographical range (members of equal score).",
                 "key min max"}});
  t.Add({.name = "zscore", .arity = 3, .flags = "readonly fast", .acl = "@read @sortedset @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZScoreCommand,
         .doc = {kGroup, "1.2.0", "O(1)", "Returns the score of a member, or nil.", "key member"}});
  t.Add({.name = "zmscore", .arity = -3, .flags = "readonly fast", .acl = "@read @sortedset @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZMScoreCommand,
         .doc = {kGroup, "6.2.0", "O(N) where N is the number of members asked for.",
                 "Returns the scores of several members (nil for each absent one).",
                 "key member [member ...]"}});
  t.Add({.name = "zrank", .arity = -3, .flags = "readonly fast", .acl = "@read @sortedset @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZRankCommand,
         .doc = {kGroup, "2.0.0", "O(log(N))",
                 "Returns the 0-based position of a member in ascending score order, optionally with its score.",
                 "key member [WITHSCORE]"}});
  t.Add({.name = "zrevrank", .arity = -3, .flags = "readonly fast", .acl = "@read @sortedset @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZRevRankCommand,
         .doc = {kGroup, "2.0.0", "O(log(N))",
                 "Returns the 0-based position of a member in descending score order, optionally with its score.",
                 "key member [WITHSCORE]"}});
  t.Add({.name = "zrandmember", .arity = -2, .flags = "readonly", .acl = "@read @sortedset @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZRandMemberCommand,
         .doc = {kGroup, "6.2.0", "O(N) where N is the number of members returned.",
                 "Returns random members: distinct ones for a positive count, possibly repeated ones for a negative count.",
                 "key [options: count [WITHSCORES]]"},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "zscan", .arity = -3, .flags = "readonly", .acl = "@read @sortedset @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZScanCommand,
         .doc = {kGroup, "2.8.0", "O(1) for every call. O(N) for a complete iteration, N being the size of the sorted set.",
                 "Iterates over the members and scores of a sorted set with a cursor.",
                 "key cursor [MATCH pattern] [COUNT count]"},
         .tips = {"nondeterministic_output"}});

  // ---- ranges ----
  t.Add({.name = "zrange", .arity = -4, .flags = "readonly", .acl = "@read @sortedset @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZRangeCommand,
         .doc = {kGroup, "1.2.0", kLogNPlusM,
                 "Returns members in a range of positions, scores (BYSCORE) or members (BYLEX), optionally reversed and paged.",
                 "key start:string stop:string [sortby: BYSCORE | BYLEX] [REV] [limit: LIMIT offset count] [WITHSCORES]"}});
  t.Add({.name = "zrangestore", .arity = -5, .flags = "write denyoom",
         .acl = "@write @sortedset @slow",
         .keys = {KeyAt(1, "OW UPDATE"), KeyAt(2, "RO ACCESS")}, .handler = ZRangeStoreCommand,
         .doc = {kGroup, "6.2.0", kLogNPlusM,
                 "Stores a range of a sorted set (as ZRANGE selects it) under another key.",
                 "dst:key src:key min max [sortby: BYSCORE | BYLEX] [REV] [limit: LIMIT offset count]"}});
  t.Add({.name = "zrevrange", .arity = -4, .flags = "readonly", .acl = "@read @sortedset @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZRevRangeCommand,
         .doc = {kGroup, "1.2.0", kLogNPlusM,
                 "Returns members in a range of positions, highest score first.",
                 "key start stop [WITHSCORES]", "deprecated", "6.2.0",
                 "`ZRANGE` with the `REV` argument"}});
  t.Add({.name = "zrangebyscore", .arity = -4, .flags = "readonly", .acl = "@read @sortedset @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZRangeByScoreCommand,
         .doc = {kGroup, "1.0.5", kLogNPlusM, "Returns the members whose score lies in a range.",
                 "key min:double max:double [WITHSCORES] [limit: LIMIT offset count]", "deprecated", "6.2.0",
                 "`ZRANGE` with the `BYSCORE` argument"}});
  t.Add({.name = "zrevrangebyscore", .arity = -4, .flags = "readonly",
         .acl = "@read @sortedset @slow", .keys = {KeyAt(1, "RO ACCESS")},
         .handler = ZRevRangeByScoreCommand,
         .doc = {kGroup, "2.2.0", kLogNPlusM,
                 "Returns the members whose score lies in a range, highest score first.",
                 "key max:double min:double [WITHSCORES] [limit: LIMIT offset count]", "deprecated", "6.2.0",
                 "`ZRANGE` with the `REV` and `BYSCORE` arguments"}});
  t.Add({.name = "zrangebylex", .arity = -4, .flags = "readonly", .acl = "@read @sortedset @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = ZRangeByLexCommand,
         .doc = {kGroup, "2.8.9", kLogNPlusM,
                 "Returns the members in a lexicographical range (members of equal score).",
                 "key min max [limit: LIMIT offset count]", "deprecated", "6.2.0",
                 "`ZRANGE` with the `BYLEX` argument"}});
  t.Add({.name = "zrevrangebylex", .arity = -4, .flags = "readonly",
         .acl = "@read @sortedset @slow", .keys = {KeyAt(1, "RO ACCESS")},
         .handler = ZRevRangeByLexCommand,
         .doc = {kGroup, "2.8.9", kLogNPlusM,
                 "Returns the members in a lexicographical range, in reverse order.",
                 "key max min [limit: LIMIT offset count]", "deprecated", "6.2.0",
                 "`ZRANGE` with the `REV` and `BYLEX` arguments"}});
  t.Add({.name = "zremrangebyrank", .arity = 4, .flags = "write", .acl = "@write @sortedset @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = ZRemRangeByRankCommand,
         .doc = {kGroup, "2.0.0", kLogNPlusMRemoved,
                 "Removes the members in a range of positions; deletes the key when it becomes empty.",
                 "key start stop"}});
  t.Add({.name = "zremrangebyscore", .arity = 4, .flags = "write", .acl = "@write @sortedset @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = ZRemRangeByScoreCommand,
         .doc = {kGroup, "1.2.0", kLogNPlusMRemoved,
                 "Removes the members whose score lies in a range; deletes the key when it becomes empty.",
                 "key min:double max:double"}});
  t.Add({.name = "zremrangebylex", .arity = 4, .flags = "write", .acl = "@write @sortedset @slow",
         .keys = {KeyAt(1, "RW DELETE")}, .handler = ZRemRangeByLexCommand,
         .doc = {kGroup, "2.8.9", kLogNPlusMRemoved,
                 "Removes the members in a lexicographical range; deletes the key when it becomes empty.",
                 "key min max"}});

  // ---- pops ----
  t.Add({.name = "zpopmin", .arity = -2, .flags = "write fast", .acl = "@write @sortedset @fast",
         .keys = {KeyAt(1, "RW ACCESS DELETE")}, .handler = ZPopMinCommand,
         .doc = {kGroup, "5.0.0", kPopComplexity,
                 "Removes and returns the members with the lowest scores.", "key [count]"}});
  t.Add({.name = "zpopmax", .arity = -2, .flags = "write fast", .acl = "@write @sortedset @fast",
         .keys = {KeyAt(1, "RW ACCESS DELETE")}, .handler = ZPopMaxCommand,
         .doc = {kGroup, "5.0.0", kPopComplexity,
                 "Removes and returns the members with the highest scores.", "key [count]"}});
  t.Add({.name = "zmpop", .arity = -4, .flags = "write", .acl = "@write @sortedset @slow",
         .keys = {KeyNum(1, 0, 1, 1, "RW ACCESS DELETE")}, .handler = ZMPopCommand,
         .doc = {kGroup, "7.0.0", kMPopComplexity,
                 "Pops the lowest or highest scored members of the first non-empty sorted set among the keys.",
                 "numkeys key [key ...] <where: MIN | MAX> [COUNT count]"}});
  t.Add({.name = "bzpopmin", .arity = -3, .flags = "write fast blocking",
         .acl = "@write @sortedset @fast @blocking", .keys = {KeyRange(1, -2, 1, "RW ACCESS DELETE")},
         .handler = BZPopMinCommand,
         .doc = {kGroup, "5.0.0", kLogN,
                 "Pops the lowest scored member of the first non-empty sorted set, blocking until one has data.",
                 "key [key ...] timeout"}});
  t.Add({.name = "bzpopmax", .arity = -3, .flags = "write fast blocking",
         .acl = "@write @sortedset @fast @blocking", .keys = {KeyRange(1, -2, 1, "RW ACCESS DELETE")},
         .handler = BZPopMaxCommand,
         .doc = {kGroup, "5.0.0", kLogN,
                 "Pops the highest scored member of the first non-empty sorted set, blocking until one has data.",
                 "key [key ...] timeout"}});
  t.Add({.name = "bzmpop", .arity = -5, .flags = "write blocking",
         .acl = "@write @sortedset @slow @blocking", .keys = {KeyNum(2, 0, 1, 1, "RW ACCESS DELETE")},
         .handler = BZMPopCommand,
         .doc = {kGroup, "7.0.0", kMPopComplexity,
                 "Like ZMPOP, but blocks until one of the sorted sets has data or the timeout passes.",
                 "timeout numkeys key [key ...] <where: MIN | MAX> [COUNT count]"}});

  // ---- algebra ----
  const char* kWeightsAggregate = " [WEIGHTS weight:integer ...] [aggregate: AGGREGATE <SUM | MIN | MAX | COUNT>]";
  t.Add({.name = "zunion", .arity = -3, .flags = "readonly", .acl = "@read @sortedset @slow",
         .keys = {KeyNum(1, 0, 1, 1, "RO ACCESS")}, .handler = ZUnionCommand,
         .doc = {kGroup, "6.2.0", kUnionComplexity,
                 "Returns the union of sorted sets, with weighted and aggregated scores.",
                 std::string("numkeys key [key ...]") + kWeightsAggregate + " [WITHSCORES]"}});
  t.Add({.name = "zinter", .arity = -3, .flags = "readonly", .acl = "@read @sortedset @slow",
         .keys = {KeyNum(1, 0, 1, 1, "RO ACCESS")}, .handler = ZInterCommand,
         .doc = {kGroup, "6.2.0", kInterComplexity,
                 "Returns the intersection of sorted sets, with weighted and aggregated scores.",
                 std::string("numkeys key [key ...]") + kWeightsAggregate + " [WITHSCORES]"}});
  t.Add({.name = "zdiff", .arity = -3, .flags = "readonly", .acl = "@read @sortedset @slow",
         .keys = {KeyNum(1, 0, 1, 1, "RO ACCESS")}, .handler = ZDiffCommand,
         .doc = {kGroup, "6.2.0", kDiffComplexity,
                 "Returns the members of the first sorted set that are in none of the others.",
                 "numkeys key [key ...] [WITHSCORES]"}});
  t.Add({.name = "zunionstore", .arity = -4, .flags = "write denyoom",
         .acl = "@write @sortedset @slow",
         .keys = {KeyAt(1, "OW UPDATE"), KeyNum(2, 0, 1, 1, "RO ACCESS")},
         .handler = ZUnionStoreCommand,
         .doc = {kGroup, "2.0.0", kUnionComplexity,
                 "Stores the union of sorted sets under a key and returns its size.",
                 std::string("destination numkeys key [key ...]") + kWeightsAggregate}});
  t.Add({.name = "zinterstore", .arity = -4, .flags = "write denyoom",
         .acl = "@write @sortedset @slow",
         .keys = {KeyAt(1, "OW UPDATE"), KeyNum(2, 0, 1, 1, "RO ACCESS")},
         .handler = ZInterStoreCommand,
         .doc = {kGroup, "2.0.0", kInterComplexity,
                 "Stores the intersection of sorted sets under a key and returns its size.",
                 std::string("destination numkeys key [key ...]") + kWeightsAggregate}});
  t.Add({.name = "zdiffstore", .arity = -4, .flags = "write denyoom",
         .acl = "@write @sortedset @slow",
         .keys = {KeyAt(1, "OW UPDATE"), KeyNum(2, 0, 1, 1, "RO ACCESS")},
         .handler = ZDiffStoreCommand,
         .doc = {kGroup, "6.2.0", kDiffComplexity,
                 "Stores the difference of the first sorted set and the others under a key and returns its size.",
                 "destination numkeys key [key ...]"}});
  t.Add({.name = "zintercard", .arity = -3, .flags = "readonly", .acl = "@read @sortedset @slow",
         .keys = {KeyNum(1, 0, 1, 1, "RO ACCESS")}, .handler = ZInterCardCommand,
         .doc = {kGroup, "7.0.0", "O(N*K) worst case, with N the size of the smallest input and K the number of inputs.",
                 "Returns the size of the intersection of sorted sets, counting up to an optional limit.",
                 "numkeys key [key ...] [LIMIT limit]"}});
}

}  // namespace hotkv
