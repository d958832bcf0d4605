// Shared pieces of the geo command family (geo_family*.cc): argument parsing with
// Redis's error texts, the reply formats of coordinates and distances, and the handler
// declarations that geo_family.cc puts into the command table.
//
// Geo keys are sorted sets whose scores are 52-bit geohashes (types/geohash.h); every
// command works on the zset API.
//
// Thread safety: stateless helpers; handlers run with their keys' shard locks held.
#pragma once

#include <optional>
#include <string_view>

#include "server/command_context.h"
#include "types/geohash.h"

namespace hotkv {

// Parses "longitude latitude" at ctx.arg(i), ctx.arg(i + 1): floats within the limits.
// Replies the error ("value is not a valid float", "invalid longitude,latitude pair
// %f,%f") and returns nullopt otherwise.
std::optional<types::GeoLonLat> ParseGeoLonLat(CommandContext& ctx, size_t i);

// Metres per unit of "m", "km", "ft", "mi" (any case); replies "unsupported unit
// provided..." and returns nullopt otherwise.
std::optional<double> ParseGeoUnit(CommandContext& ctx, std::string_view unit);

// A distance as GEODIST and WITHDIST reply it: a bulk string with 4 decimals.
void ReplyGeoDistance(CommandContext& ctx, double distance);
// A coordinate as GEOPOS and WITHCOORD reply it: a double (bulk string in RESP2).
void ReplyGeoCoordinate(CommandContext& ctx, double value);

void GeoAddCommand(CommandContext& ctx);
void GeoPosCommand(CommandContext& ctx);
void GeoDistCommand(CommandContext& ctx);
void GeoHashCommand(CommandContext& ctx);
void GeoSearchCommand(CommandContext& ctx);
void GeoSearchStoreCommand(CommandContext& ctx);
void GeoRadiusCommand(CommandContext& ctx);
void GeoRadiusRoCommand(CommandContext& ctx);
void GeoRadiusByMemberCommand(CommandContext& ctx);
void GeoRadiusByMemberRoCommand(CommandContext& ctx);

}  // namespace hotkv
