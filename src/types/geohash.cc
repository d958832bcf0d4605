// Geohash math (see geohash.h). Built with -ffp-contract=off (CMakeLists.txt): a fused
// multiply-add would change the last bits that Redis's results have.
#include "types/geohash.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

namespace hotkv::types {

namespace {

constexpr double kDegToRad = M_PI / 180.0;
constexpr double kMercatorMax = 20037726.37;  // metres: half the Web Mercator width
constexpr char kBase32[] = "0123456789bcdefghjkmnpqrstuvwxyz";

double DegToRad(double deg) { return deg * kDegToRad; }
double RadToDeg(double rad) { return rad / kDegToRad; }

// Moves bit i of v to bit 2i.
uint64_t SpreadBits(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x;
}

// The inverse: bit 2i of x to bit i (odd bits ignored).
uint32_t GatherBits(uint64_t x) {
  x &= 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(x);
}

// Latitude cells in the even bits, longitude cells in the odd bits.
uint64_t Interleave(uint32_t lat_cell, uint32_t lon_cell) {
  return SpreadBits(lat_cell) | (SpreadBits(lon_cell) << 1);
}

// A score as a 64-bit unsigned integer, as x86-64 converts a double (Redis casts the
// score): in range it truncates; out of range, the hardware's "integer indefinite"
// value takes part, so any score decodes to some cell.
uint64_t ScoreToBits(double score) {
  constexpr double kTwo63 = 9223372036854775808.0;
  auto to_int64 = [](double v) -> uint64_t {
    if (v >= -kTwo63 && v < kTwo63) {
      return static_cast<uint64_t>(static_cast<int64_t>(v));
    }
    return uint64_t{1} << 63;
  };
  if (score < kTwo63) {
    return to_int64(score);
  }
  return to_int64(score - kTwo63) ^ (uint64_t{1} << 63);
}

bool IsZeroRange(GeoRange r) { return r.min == 0 && r.max == 0; }

// A neighbouring cell, one step east (+1) or west (-1): the longitude bits are the odd
// ones, so adding one cell carries across the even bits filled with ones.
GeoHashBits MoveLon(GeoHashBits hash, int d) {
  const int shift = 64 - hash.step * 2;
  uint64_t lon = hash.bits & 0xAAAAAAAAAAAAAAAAULL;
  const uint64_t lat = hash.bits & 0x5555555555555555ULL;
  const uint64_t fill = 0x5555555555555555ULL >> shift;
  if (d > 0) {
    lon = lon + (fill + 1);
  } else {
    lon = (lon | fill) - (fill + 1);
  }
  lon &= 0xAAAAAAAAAAAAAAAAULL >> shift;
  hash.bits = lon | lat;
  return hash;
}

// One step north (+1) or south (-1).
GeoHashBits MoveLat(GeoHashBits hash, int d) {
  const int shift = 64 - hash.step * 2;
  const uint64_t lon = hash.bits & 0xAAAAAAAAAAAAAAAAULL;
  uint64_t lat = hash.bits & 0x5555555555555555ULL;
  const uint64_t fill = 0xAAAAAAAAAAAAAAAAULL >> shift;
  if (d > 0) {
    lat = lat + (fill + 1);
  } else {
    lat = (lat | fill) - (fill + 1);
  }
  lat &= 0x5555555555555555ULL >> shift;
  hash.bits = lon | lat;
  return hash;
}

// Bounding box of a shape: [0] min lon, [1] min lat, [2] max lon, [3] max lat. The
// longitude span is taken at the latitude edge nearer the pole.
struct GeoBounds {
  double min_lon, min_lat, max_lon, max_lat;
};

GeoBounds BoundingBox(const GeoShape& s) {
  const bool circle = s.kind == GeoShape::Kind::kRadius;
  const double height = s.conversion * (circle ? s.radius : s.height / 2);
  const double width = s.conversion * (circle ? s.radius : s.width / 2);
  const double lat_delta = RadToDeg(height / kEarthRadiusMeters);
  const double lon_delta_top =
      RadToDeg(width / kEarthRadiusMeters / std::cos(DegToRad(s.lat + lat_delta)));
  const double lon_delta_bottom =
      RadToDeg(width / kEarthRadiusMeters / std::cos(DegToRad(s.lat - lat_delta)));
  const double lon_delta = s.lat < 0 ? lon_delta_bottom : lon_delta_top;
  return {s.lon - lon_delta, s.lat - lat_delta, s.lon + lon_delta, s.lat + lat_delta};
}

struct CellAndNeighbours {
  GeoHashBits hash;
  GeoArea area;
  // north, south, east, west, north-east, north-west, south-east, south-west
  GeoHashBits n, s, e, w, ne, nw, se, sw;
};

CellAndNeighbours CellAt(double lon, double lat, int step) {
  CellAndNeighbours c;
  c.hash = GeoEncode(kGeoLonRange, kGeoLatRange, lon, lat, step).value_or(GeoHashBits{0, 0});
  c.hash.step = static_cast<uint8_t>(step);  // Redis sets the step even when encoding fails
  c.area = GeoDecode(kGeoLonRange, kGeoLatRange, c.hash);
  c.e = MoveLon(c.hash, 1);
  c.w = MoveLon(c.hash, -1);
  c.s = MoveLat(c.hash, -1);
  c.n = MoveLat(c.hash, 1);
  c.nw = MoveLat(MoveLon(c.hash, -1), 1);
  c.sw = MoveLat(MoveLon(c.hash, -1), -1);
  c.ne = MoveLat(MoveLon(c.hash, 1), 1);
  c.se = MoveLat(MoveLon(c.hash, 1), -1);
  return c;
}

}  // namespace

bool GeoValidLonLat(double lon, double lat) {
  return !(lon < kGeoLonMin || lon > kGeoLonMax || lat < kGeoLatMin || lat > kGeoLatMax);
}

std::optional<GeoHashBits> GeoEncode(GeoRange lon_range, GeoRange lat_range, double lon, double lat,
                                     int step) {
  if (step > 32 || step <= 0 || IsZeroRange(lat_range) || IsZeroRange(lon_range)) {
    return std::nullopt;
  }
  if (lon > kGeoLonMax || lon < kGeoLonMin || lat > kGeoLatMax || lat < kGeoLatMin) {
    return std::nullopt;
  }
  if (lat < lat_range.min || lat > lat_range.max || lon < lon_range.min || lon > lon_range.max) {
    return std::nullopt;
  }
  double lat_offset = (lat - lat_range.min) / (lat_range.max - lat_range.min);
  double lon_offset = (lon - lon_range.min) / (lon_range.max - lon_range.min);
  lat_offset *= static_cast<double>(uint64_t{1} << step);
  lon_offset *= static_cast<double>(uint64_t{1} << step);
  return GeoHashBits{
      Interleave(static_cast<uint32_t>(lat_offset), static_cast<uint32_t>(lon_offset)),
      static_cast<uint8_t>(step)};
}

GeoArea GeoDecode(GeoRange lon_range, GeoRange lat_range, GeoHashBits hash) {
  GeoArea area;
  if (hash.IsZero() || IsZeroRange(lat_range) || IsZeroRange(lon_range)) {
    return area;
  }
  const uint32_t lat_cell = GatherBits(hash.bits);
  const uint32_t lon_cell = GatherBits(hash.bits >> 1);
  const double lat_scale = lat_range.max - lat_range.min;
  const double lon_scale = lon_range.max - lon_range.min;
  const double cells = static_cast<double>(uint64_t{1} << hash.step);
  // The "+ 1" wraps in 32 bits, as Redis's unsigned arithmetic does.
  const uint32_t lat_next = lat_cell + 1;
  const uint32_t lon_next = lon_cell + 1;
  area.lat.min = lat_range.min + (lat_cell * 1.0 / cells) * lat_scale;
  area.lat.max = lat_range.min + (lat_next * 1.0 / cells) * lat_scale;
  area.lon.min = lon_range.min + (lon_cell * 1.0 / cells) * lon_scale;
  area.lon.max = lon_range.min + (lon_next * 1.0 / cells) * lon_scale;
  return area;
}

uint64_t GeoScore(double lon, double lat) {
  auto hash = GeoEncode(kGeoLonRange, kGeoLatRange, lon, lat, kGeoStepMax);
  return hash ? hash->bits : 0;  // step 26: already 52-bit aligned
}

namespace {

// GeoDecodeScore's arithmetic once the cells are known: GeoDecode's area at step 26 over
// the full ranges, its centre, clamped (the same operations in the same order).
inline GeoLonLat CellsToLonLat(uint32_t lat_cell, uint32_t lon_cell) {
  GeoArea area;
  {  // step 26 is never a zero hash: every score decodes
    const double lat_scale = kGeoLatRange.max - kGeoLatRange.min;
    const double lon_scale = kGeoLonRange.max - kGeoLonRange.min;
    const double cells = static_cast<double>(uint64_t{1} << kGeoStepMax);
    const uint32_t lat_next = lat_cell + 1;
    const uint32_t lon_next = lon_cell + 1;
    area.lat.min = kGeoLatRange.min + (lat_cell * 1.0 / cells) * lat_scale;
    area.lat.max = kGeoLatRange.min + (lat_next * 1.0 / cells) * lat_scale;
    area.lon.min = kGeoLonRange.min + (lon_cell * 1.0 / cells) * lon_scale;
    area.lon.max = kGeoLonRange.min + (lon_next * 1.0 / cells) * lon_scale;
  }
  GeoLonLat p;
  p.lon = (area.lon.min + area.lon.max) / 2;
  if (p.lon > kGeoLonMax) {
    p.lon = kGeoLonMax;
  }
  if (p.lon < kGeoLonMin) {
    p.lon = kGeoLonMin;
  }
  p.lat = (area.lat.min + area.lat.max) / 2;
  if (p.lat > kGeoLatMax) {
    p.lat = kGeoLatMax;
  }
  if (p.lat < kGeoLatMin) {
    p.lat = kGeoLatMin;
  }
  return p;
}

// The cells by BMI2's PEXT (one instruction each; GEOSEARCH decodes every candidate).
__attribute__((target("bmi2"))) GeoLonLat DecodeScorePext(double score) {
  const uint64_t bits = ScoreToBits(score);
  const auto lat_cell = static_cast<uint32_t>(_pext_u64(bits, 0x5555555555555555ULL));
  const auto lon_cell = static_cast<uint32_t>(_pext_u64(bits, 0xAAAAAAAAAAAAAAAAULL));
  return CellsToLonLat(lat_cell, lon_cell);
}

}  // namespace

GeoLonLat GeoDecodeScoreGeneric(double score) {
  const uint64_t bits = ScoreToBits(score);
  return CellsToLonLat(GatherBits(bits), GatherBits(bits >> 1));
}

GeoLonLat GeoDecodeScore(double score) {
  static const bool pext = __builtin_cpu_supports("bmi2");
  return pext ? DecodeScorePext(score) : GeoDecodeScoreGeneric(score);
}

bool GeoDecodeHasPext() { return __builtin_cpu_supports("bmi2"); }

std::string GeoHashString(double score) {
  const GeoLonLat p = GeoDecodeScore(score);
  // The standard geohash spans latitude -90..90; re-encode the decoded point in it.
  const uint64_t bits = GeoEncode(GeoRange{-180, 180}, GeoRange{-90, 90}, p.lon, p.lat, kGeoStepMax)
                            .value_or(GeoHashBits{})
                            .bits;
  std::string out(11, '0');
  for (int i = 0; i < 10; i++) {  // 50 of the 52 bits; the 11th char is always '0'
    out[i] = kBase32[(bits >> (52 - (i + 1) * 5)) & 0x1f];
  }
  return out;
}

double GeoLatDistance(double lat1, double lat2) {
  return kEarthRadiusMeters * std::fabs(DegToRad(lat2) - DegToRad(lat1));
}

double GeoDistance(double lon1, double lat1, double lon2, double lat2) {
  const double lon1r = DegToRad(lon1);
  const double lon2r = DegToRad(lon2);
  const double v = std::sin((lon2r - lon1r) / 2);
  if (v == 0.0) {
    return GeoLatDistance(lat1, lat2);  // same meridian: no trigonometry needed
  }
  const double lat1r = DegToRad(lat1);
  const double lat2r = DegToRad(lat2);
  const double u = std::sin((lat2r - lat1r) / 2);
  const double a = u * u + std::cos(lat1r) * std::cos(lat2r) * v * v;
  return 2.0 * kEarthRadiusMeters * std::asin(std::sqrt(a));
}

bool GeoShapeContains(const GeoShape& shape, double lon, double lat, double* distance) {
  if (shape.kind == GeoShape::Kind::kRadius) {
    // The distance along the meridian never exceeds the great-circle distance, so a point
    // farther in latitude alone is out without the trigonometry (as Redis 7.2+ checks).
    const double radius = shape.radius * shape.conversion;
    if (GeoLatDistance(lat, shape.lat) > radius) {
      return false;
    }
    *distance = GeoDistance(shape.lon, shape.lat, lon, lat);
    return *distance <= radius;
  }
  const double width = shape.width * shape.conversion;
  const double height = shape.height * shape.conversion;
  if (GeoLatDistance(lat, shape.lat) > height / 2) {
    return false;
  }
  if (GeoDistance(lon, lat, shape.lon, lat) > width / 2) {
    return false;
  }
  *distance = GeoDistance(shape.lon, shape.lat, lon, lat);
  return true;
}

GeoShapeTest::GeoShapeTest(const GeoShape& shape) : shape_(shape) {
  if (shape.kind != GeoShape::Kind::kRadius) {
    return;
  }
  radius_m_ = shape.radius * shape.conversion;
  lon1r_ = DegToRad(shape.lon);
  lat1r_ = DegToRad(shape.lat);
  cos_lat1_ = std::cos(lat1r_);
  const double half_angle = radius_m_ / (2 * kEarthRadiusMeters);
  const double band = RadToDeg(radius_m_ / kEarthRadiusMeters) * (1 + 1e-6) + 1e-9;
  const double far_lat = std::fabs(shape.lat) + band;
  if (half_angle < 0.5 && far_lat < 89.0) {
    bound_ = true;
    bound_cos_ = cos_lat1_ * std::cos(DegToRad(far_lat));
    const double s = std::sin(half_angle);
    a_max_ = s * s * (1 + 1e-6);
  }
}

bool GeoShapeTest::Contains(double lon, double lat, double* distance) const {
  if (shape_.kind != GeoShape::Kind::kRadius) {
    return GeoShapeContains(shape_, lon, lat, distance);
  }
  // GeoShapeContains()'s steps, GeoDistance(shape.lon, shape.lat, lon, lat) inlined.
  if (GeoLatDistance(lat, shape_.lat) > radius_m_) {
    return false;
  }
  const double lon2r = DegToRad(lon);
  const double lat2r = DegToRad(lat);
  if (bound_) {
    // A point passing the latitude test lies in the band: cos(lat2) >= its smallest.
    const double x = (lon2r - lon1r_) / 2;
    const double y = (lat2r - lat1r_) / 2;
    if (std::fabs(x) < 0.5 && std::fabs(y) < 0.5) {
      const double sx = x * (1 - x * x / 6);
      const double sy = y * (1 - y * y / 6);
      if (sy * sy + bound_cos_ * sx * sx > a_max_) {
        return false;
      }
    }
  }
  const double v = std::sin((lon2r - lon1r_) / 2);
  if (v == 0.0) {
    *distance = GeoLatDistance(shape_.lat, lat);
  } else {
    const double u = std::sin((lat2r - lat1r_) / 2);
    const double a = u * u + cos_lat1_ * std::cos(lat2r) * v * v;
    *distance = 2.0 * kEarthRadiusMeters * std::asin(std::sqrt(a));
  }
  return *distance <= radius_m_;
}

int GeoEstimateSteps(double radius_meters, double lat) {
  if (radius_meters == 0) {
    return kGeoStepMax;
  }
  int step = 1;
  while (radius_meters < kMercatorMax) {
    radius_meters *= 2;
    step++;
  }
  step -= 2;                    // so that the radius fits the cells in most cases
  if (lat > 66 || lat < -66) {  // meridians converge: wider cells near the poles
    step--;
    if (lat > 80 || lat < -80) {
      step--;
    }
  }
  if (step < 1) {
    step = 1;
  }
  if (step > kGeoStepMax) {
    step = kGeoStepMax;
  }
  return step;
}

std::array<GeoHashBits, 9> GeoSearchBoxes(const GeoShape& shape) {
  const GeoBounds b = BoundingBox(shape);
  double radius_meters = shape.kind == GeoShape::Kind::kRadius
                             ? shape.radius
                             : std::sqrt((shape.width / 2) * (shape.width / 2) +
                                         (shape.height / 2) * (shape.height / 2));
  radius_meters *= shape.conversion;
  int steps = GeoEstimateSteps(radius_meters, shape.lat);
  CellAndNeighbours c = CellAt(shape.lon, shape.lat, steps);

  // When the shape comes near an edge of the centre cell, a neighbour may not reach
  // the bounding box: use cells twice as large.
  const GeoArea north = GeoDecode(kGeoLonRange, kGeoLatRange, c.n);
  const GeoArea south = GeoDecode(kGeoLonRange, kGeoLatRange, c.s);
  const GeoArea east = GeoDecode(kGeoLonRange, kGeoLatRange, c.e);
  const GeoArea west = GeoDecode(kGeoLonRange, kGeoLatRange, c.w);
  const bool decrease = north.lat.max < b.max_lat || south.lat.min > b.min_lat ||
                        east.lon.max < b.max_lon || west.lon.min > b.min_lon;
  if (steps > 1 && decrease) {
    steps--;
    c = CellAt(shape.lon, shape.lat, steps);
  }

  // Drop the neighbours on a side the bounding box does not reach.
  if (steps >= 2) {
    const GeoHashBits zero{};
    if (c.area.lat.min < b.min_lat) {
      c.s = c.sw = c.se = zero;
    }
    if (c.area.lat.max > b.max_lat) {
      c.n = c.ne = c.nw = zero;
    }
    if (c.area.lon.min < b.min_lon) {
      c.w = c.sw = c.nw = zero;
    }
    if (c.area.lon.max > b.max_lon) {
      c.e = c.se = c.ne = zero;
    }
  }
  return {c.hash, c.n, c.s, c.e, c.w, c.ne, c.nw, c.se, c.sw};
}

GeoScoreRange GeoBoxScores(GeoHashBits hash) {
  const int shift = 52 - hash.step * 2;
  return {hash.bits << shift, (hash.bits + 1) << shift};
}

GeoShapeFilter GeoShapeFilterFor(const GeoShape& shape) {
  constexpr double kMargin = 1 + 1e-6;
  GeoShapeFilter f;
  f.lon = shape.lon;
  const bool circle = shape.kind == GeoShape::Kind::kRadius;
  // Latitude: GeoShapeContains() rejects a point whose meridian distance exceeds the
  // radius (a box: half its height).
  const double half_height = shape.conversion * (circle ? shape.radius : shape.height / 2);
  const double lat_delta = RadToDeg(half_height / kEarthRadiusMeters) * kMargin + 1e-9;
  f.lat_min = shape.lat - lat_delta;
  f.lat_max = shape.lat + lat_delta;
  // Longitude: every kept point lies in the latitude band, where cos(lat) >= cos_min.
  const double far_lat = std::max(std::fabs(f.lat_min), std::fabs(f.lat_max));
  if (!(far_lat < 89.0) || !std::isfinite(lat_delta)) {
    return f;  // the band reaches (or nears) a pole: no longitude bound
  }
  const double cos_min = std::cos(DegToRad(far_lat));
  // Circle: distance = 2R·asin(sqrt(a)), a >= cos(lat_c)·cos(lat_p)·sin²(Δlon/2), and a
  // kept point has a <= sin²(radius / 2R). Box: the distance along the point's parallel,
  // 2R·asin(cos(lat_p)·|sin(Δlon/2)|) <= width / 2.
  const double half_angle = shape.conversion * (circle ? shape.radius : shape.width / 2) /
                            (2 * kEarthRadiusMeters);
  if (!(half_angle < M_PI / 2)) {
    return f;
  }
  const double scale = circle ? std::sqrt(std::cos(DegToRad(shape.lat)) * cos_min) : cos_min;
  const double s = std::sin(half_angle) * kMargin / scale;
  if (!(s < 1) || !(scale > 0)) {
    return f;
  }
  f.lon_delta = RadToDeg(2 * std::asin(s)) * kMargin + 1e-9;
  return f;
}

int GeoCellRanges(const GeoShapeFilter& filter, GeoHashBits cell, int levels, GeoScoreRange* out) {
  levels = std::clamp(levels, 0, std::max(0, kGeoStepMax - static_cast<int>(cell.step)));
  levels = std::min(levels, 3);
  const int sub_step = cell.step + levels;
  const int shift = 52 - 2 * sub_step;
  if (cell.step == 0 || shift < 0) {
    out[0] = GeoBoxScores(cell);
    return 1;
  }
  const GeoArea area = GeoDecode(kGeoLonRange, kGeoLatRange, cell);
  const int side = 1 << levels;
  const double lat_size = (area.lat.max - area.lat.min) / side;
  const double lon_size = (area.lon.max - area.lon.min) / side;
  // Rows (latitude) and columns (longitude) of sub-cells that may hold a point.
  uint32_t rows = 0, cols = 0;
  for (int i = 0; i < side; i++) {
    const double lat_lo = area.lat.min + i * lat_size;
    const double lat_hi = lat_lo + lat_size;
    if (lat_hi >= filter.lat_min && lat_lo <= filter.lat_max) {
      rows |= 1u << i;
    }
    const double lon_lo = area.lon.min + i * lon_size;
    const double lon_hi = lon_lo + lon_size;
    double d = 0;
    if (filter.lon < lon_lo || filter.lon > lon_hi) {
      // The nearest edge, the shorter way round.
      auto wrapped = [](double x) {
        x = std::fabs(x);
        return x > 180 ? 360 - x : x;
      };
      d = std::min(wrapped(lon_lo - filter.lon), wrapped(lon_hi - filter.lon));
    }
    if (d <= filter.lon_delta) {
      cols |= 1u << i;
    }
  }
  // Sub-cell j: latitude index in its even bits, longitude index in its odd bits.
  uint64_t keep = 0;
  for (int r = 0; r < side; r++) {
    if (!(rows >> r & 1)) {
      continue;
    }
    for (int c = 0; c < side; c++) {
      if (cols >> c & 1) {
        keep |= uint64_t{1} << Interleave(static_cast<uint32_t>(r), static_cast<uint32_t>(c));
      }
    }
  }
  const uint64_t base = cell.bits << (2 * levels);
  int n = 0;
  while (keep != 0) {
    const int first = __builtin_ctzll(keep);
    const uint64_t run = keep >> first;
    const int len = run == ~uint64_t{0} >> first ? 64 - first : __builtin_ctzll(~run);
    out[n++] = {(base + static_cast<uint64_t>(first)) << shift,
                (base + static_cast<uint64_t>(first + len)) << shift};
    keep = len + first >= 64 ? 0 : keep & ~(((uint64_t{1} << len) - 1) << first);
  }
  return n;
}

}  // namespace hotkv::types
