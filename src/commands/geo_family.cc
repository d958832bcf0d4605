// Geo commands on single members: GEOADD GEOPOS GEODIST GEOHASH, the family's shared
// helpers, and its command-table entries (the searches are in geo_family_search.cc).
//
// Edge cases honoured (as Redis): GEOADD reads NX/XX/CH up to the first other word, then
// needs a multiple of three words (syntax error, also for NX+XX), checks every pair's
// floats and limits before touching the key (so a bad pair changes nothing, and is
// reported before WRONGTYPE), then runs as ZADD (event "zadd"; GT/LT are not options
// here). GEOPOS replies a null array, GEOHASH a null bulk, for each missing member (all
// of them for a missing key). GEODIST checks its unit first, replies null for a missing
// key or member, and takes no more than one unit argument. Coordinates are the centre
// of the stored cell, replied as doubles; distances are "%.4f" bulk strings.
#include <cstdio>
#include <string>

#include "commands/geo_common.h"
#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/zset_common.h"

namespace hotkv {

using types::GeoDecodeScore;
using types::GeoLonLat;

std::optional<GeoLonLat> ParseGeoLonLat(CommandContext& ctx, size_t i) {
  auto lon = ctx.DoubleArg(i);
  if (!lon) {
    return std::nullopt;
  }
  auto lat = ctx.DoubleArg(i + 1);
  if (!lat) {
    return std::nullopt;
  }
  if (!types::GeoValidLonLat(*lon, *lat)) {
    char buf[512];
    snprintf(buf, sizeof(buf), "ERR invalid longitude,latitude pair %f,%f", *lon, *lat);
    ctx.rb().Error(buf);
    return std::nullopt;
  }
  return GeoLonLat{*lon, *lat};
}

std::optional<double> ParseGeoUnit(CommandContext& ctx, std::string_view unit) {
  if (EqualsIgnoreCase(unit, "m")) {
    return 1;
  }
  if (EqualsIgnoreCase(unit, "km")) {
    return 1000;
  }
  if (EqualsIgnoreCase(unit, "ft")) {
    return 0.3048;
  }
  if (EqualsIgnoreCase(unit, "mi")) {
    return 1609.34;
  }
  ctx.rb().Error("ERR unsupported unit provided. please use M, KM, FT, MI");
  return std::nullopt;
}

void ReplyGeoDistance(CommandContext& ctx, double distance) {
  char buf[400];  // "%.4f" of the largest double fits
  const int n = snprintf(buf, sizeof(buf), "%.4f", distance);
  ctx.rb().Bulk(std::string_view(buf, n));
}

void ReplyGeoCoordinate(CommandContext& ctx, double value) { ctx.rb().Double(value); }

// GEOADD key [NX | XX] [CH] longitude latitude member [longitude latitude member ...]
void GeoAddCommand(CommandContext& ctx) {
  const ZAddOptions opts = ParseZAddOptions(ctx, 2, /*geo=*/true);
  const size_t idx = opts.next;
  const size_t words = ctx.argc() - idx;
  if (words == 0 || words % 3 != 0 || (opts.flags.nx && opts.flags.xx)) {
    return ctx.rb().Error(errors::kSyntax);
  }
  const size_t n = words / 3;
  ZAddPair inline_pairs[8];  // most GEOADDs carry a few points: no allocation for them
  std::vector<ZAddPair> heap_pairs(n > 8 ? n : 0);
  ZAddPair* pairs = n > 8 ? heap_pairs.data() : inline_pairs;
  for (size_t j = 0; j < n; j++) {
    auto p = ParseGeoLonLat(ctx, idx + 3 * j);
    if (!p) {
      return;
    }
    pairs[j] = {static_cast<double>(types::GeoScore(p->lon, p->lat)), ctx.arg(idx + 3 * j + 2)};
  }
  ZAddAndReply(ctx, ctx.arg(1), opts.flags, opts.ch, pairs, n);
}

namespace {

// GEOPOS / GEOHASH: one reply per member argument, from its score or for its absence.
template <typename Missing, typename Found>
void ReplyPerMember(CommandContext& ctx, Missing missing, Found found) {
  ZFound z = FindZSetForRead(ctx, ctx.arg(1));
  if (z.wrong_type) {
    return;
  }
  ctx.rb().Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); i++) {
    auto score = z.zset ? z.zset->Score(ctx.arg(i)) : std::nullopt;
    if (score) {
      found(*score);
    } else {
      missing();
    }
  }
}

}  // namespace

// GEOPOS key [member ...]
void GeoPosCommand(CommandContext& ctx) {
  ReplyPerMember(
      ctx, [&] { ctx.rb().NullArray(); },
      [&](double score) {
        const GeoLonLat p = GeoDecodeScore(score);
        ctx.rb().Array(2);
        ReplyGeoCoordinate(ctx, p.lon);
        ReplyGeoCoordinate(ctx, p.lat);
      });
}

// GEOHASH key [member ...]
void GeoHashCommand(CommandContext& ctx) {
  ReplyPerMember(
      ctx, [&] { ctx.rb().Null(); },
      [&](double score) { ctx.rb().Bulk(types::GeoHashString(score)); });
}

// GEODIST key member1 member2 [M | KM | FT | MI]
void GeoDistCommand(CommandContext& ctx) {
  double to_meters = 1;
  if (ctx.argc() == 5) {
    auto unit = ParseGeoUnit(ctx, ctx.arg(4));
    if (!unit) {
      return;
    }
    to_meters = *unit;
  } else if (ctx.argc() > 5) {
    return ctx.rb().Error(errors::kSyntax);
  }
  ZFound z = FindZSetForRead(ctx, ctx.arg(1));
  if (z.wrong_type) {
    return;
  }
  if (z.zset == nullptr) {
    return ctx.rb().Null();
  }
  auto s1 = z.zset->Score(ctx.arg(2));
  auto s2 = z.zset->Score(ctx.arg(3));
  if (!s1 || !s2) {
    return ctx.rb().Null();
  }
  const GeoLonLat a = GeoDecodeScore(*s1);
  const GeoLonLat b = GeoDecodeScore(*s2);
  ReplyGeoDistance(ctx, types::GeoDistance(a.lon, a.lat, b.lon, b.lat) / to_meters);
}

namespace {

constexpr const char* kGroup = "geo";
constexpr const char* kSearchComplexity =
    "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area "
    "around the shape provided as the filter and M is the number of items inside the shape";
constexpr const char* kRadiusComplexity =
    "O(N+log(M)) where N is the number of elements inside the bounding box of the circular "
    "area delimited by center and radius and M is the number of items inside the index.";
constexpr const char* kUnit = "<unit: 'm' | 'km' | 'ft' | 'mi'>";
constexpr const char* kCountBlock = "[count-block: <count: COUNT count:integer> [ANY]]";
const std::string kRadiusOptions =
    std::string("[WITHCOORD] [WITHDIST] [WITHHASH] ") + kCountBlock + " [order: ASC | DESC]";
constexpr const char* kStore = " [store: STORE storekey:key | STOREDIST storedistkey:key]";
const std::string kSearchArgs =
    std::string(
        "<from: FROMMEMBER member | <fromlonlat: FROMLONLAT longitude:double latitude:double>> "
        "<by: <circle: <radius: BYRADIUS radius:double> ") +
    kUnit + "> | <box: <width: BYBOX width:double> height:double " + kUnit +
    ">> [order: ASC | DESC] " + kCountBlock;

// A read-only geo command on the key in argument 1.
CommandDef GeoReader(std::string name, int arity, CommandHandler handler, CommandDoc doc) {
  return {.name = std::move(name),
          .arity = arity,
          .flags = "readonly",
          .acl = "@read @geo @slow",
          .keys = {KeyAt(1, "RO ACCESS")},
          .handler = handler,
          .doc = std::move(doc)};
}

// GEORADIUS / GEORADIUSBYMEMBER: the source, and a STORE or STOREDIST destination searched
// from argument `startfrom`.
CommandDef GeoRadiusWriter(std::string name, int arity, int startfrom, CommandHandler handler,
                           CommandDoc doc) {
  return {.name = std::move(name),
          .arity = arity,
          .flags = "write denyoom",
          .acl = "@write @geo @slow",
          .keys = {KeyAt(1, "RO ACCESS"), KeyKeyword("STORE", startfrom, 0, 1, "OW UPDATE"),
                   KeyKeyword("STOREDIST", startfrom, 0, 1, "OW UPDATE")},
          .handler = handler,
          .doc = std::move(doc)};
}

}  // namespace

void RegisterGeoCommands(CommandTable& t) {
  t.Add({.name = "geoadd", .arity = -5, .flags = "write denyoom", .acl = "@write @geo @slow",
         .keys = {KeyAt(1, "RW UPDATE")}, .handler = GeoAddCommand,
         .doc = {kGroup, "3.2.0", "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
                 "Adds points (longitude, latitude, member) to a geospatial index stored as a sorted set; creates the key if needed.",
                 "key [condition: NX | XX] [change: CH] <data: longitude:double latitude:double member> ..."}});
  t.Add(GeoReader("geopos", -2, GeoPosCommand,
                  {kGroup, "3.2.0", "O(1) for each member requested.",
                   "Returns the longitude and latitude of members (the centre of their stored cell).",
                   "key [member ...]"}));
  t.Add(GeoReader("geodist", -4, GeoDistCommand,
                  {kGroup, "3.2.0", "O(1)",
                   "Returns the distance between two members of a geospatial index.",
                   "key member1 member2 [unit: 'm' | 'km' | 'ft' | 'mi']"}));
  t.Add(GeoReader("geohash", -2, GeoHashCommand,
                  {kGroup, "3.2.0", "O(1) for each member requested.",
                   "Returns members' positions as standard 11-character geohash strings.",
                   "key [member ...]"}));
  t.Add(GeoReader("geosearch", -7, GeoSearchCommand,
                  {kGroup, "6.2.0", kSearchComplexity,
                   "Returns the members of a geospatial index inside a circle or a box.",
                   std::string("key ") + kSearchArgs + " [WITHCOORD] [WITHDIST] [WITHHASH]"}));
  t.Add({.name = "geosearchstore", .arity = -8, .flags = "write denyoom",
         .acl = "@write @geo @slow", .keys = {KeyAt(1, "OW UPDATE"), KeyAt(2, "RO ACCESS")},
         .handler = GeoSearchStoreCommand,
         .doc = {kGroup, "6.2.0", kSearchComplexity,
                 "Stores the members of a geospatial index inside a circle or a box as a sorted set.",
                 std::string("destination:key source:key ") + kSearchArgs + " [STOREDIST]"}});
  const std::string from_point = std::string("key longitude:double latitude:double radius:double ") +
                                 kUnit + " " + kRadiusOptions;
  const std::string from_member = std::string("key member radius:double ") + kUnit + " " +
                                  kRadiusOptions;
  t.Add(GeoRadiusWriter("georadius", -6, 6, GeoRadiusCommand,
                        {kGroup, "3.2.0", kRadiusComplexity,
                         "Returns (or stores) the members of a geospatial index within a distance of a point.",
                         from_point + kStore, "deprecated", "6.2.0",
                         "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` argument"}));
  t.Add(GeoReader("georadius_ro", -6, GeoRadiusRoCommand,
                  {kGroup, "3.2.10", kRadiusComplexity,
                   "Returns the members of a geospatial index within a distance of a point.",
                   from_point, "deprecated", "6.2.0", "`GEOSEARCH` with the `BYRADIUS` argument"}));
  t.Add(GeoRadiusWriter("georadiusbymember", -5, 5, GeoRadiusByMemberCommand,
                        {kGroup, "3.2.0", kRadiusComplexity,
                         "Returns (or stores) the members of a geospatial index within a distance of a member.",
                         from_member + kStore, "deprecated", "6.2.0",
                         "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` arguments"}));
  t.Add(GeoReader("georadiusbymember_ro", -5, GeoRadiusByMemberRoCommand,
                  {kGroup, "3.2.10", kRadiusComplexity,
                   "Returns the members of a geospatial index within a distance of a member.",
                   from_member, "deprecated", "6.2.0",
                   "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments"}));
}

}  // namespace hotkv
