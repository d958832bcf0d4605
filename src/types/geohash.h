// Geohash math of the GEO* commands, bit-exact with Redis: a point is stored as the
// score of a sorted-set member, the 52-bit interleaving of its 26-bit latitude and
// longitude cells (latitude in the even bits), with latitude spanning the Web Mercator
// range -85.05112878..85.05112878 and longitude -180..180.
//
//   uint64_t score = GeoScore(13.361389, 38.115556);       // GEOADD
//   GeoLonLat p = GeoDecodeScore(static_cast<double>(score)); // GEOPOS: the cell centre
//   std::string h = GeoHashString(score);                  // GEOHASH: "sqc8b49rny0"
//   double m = GeoDistance(p.lon, p.lat, 15.087269, 37.502669);  // GEODIST, metres
//
// A search (GEOSEARCH / GEORADIUS) follows Redis's plan so that the same points are found
// at the edges: GeoSearchBoxes() estimates a geohash precision from the radius (or the
// box's half-diagonal), takes the cell of the centre and its eight neighbours, drops the
// neighbours that the bounding box cannot reach, and the caller scans each box's score
// range [GeoBoxScores().min, .max) in order, keeping the points for which
// GeoShapeContains() holds (exact haversine distance).
//
// Every function repeats Redis's floating-point operations in the same order, so the
// results (scores, decoded coordinates, distances) agree to the last bit.
//
// Thread safety: pure functions over values.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace hotkv::types {

inline constexpr int kGeoStepMax = 26;  // bits per coordinate: 52-bit scores
inline constexpr double kGeoLatMin = -85.05112878;
inline constexpr double kGeoLatMax = 85.05112878;
inline constexpr double kGeoLonMin = -180;
inline constexpr double kGeoLonMax = 180;
inline constexpr double kEarthRadiusMeters = 6372797.560856;  // Redis's WGS-84 mean radius

// Hash bits of a cell at a precision of `step` bits per coordinate. A zero value (bits 0
// and step 0) marks "no cell" in a search plan.
struct GeoHashBits {
  uint64_t bits = 0;
  uint8_t step = 0;
  bool IsZero() const { return bits == 0 && step == 0; }
};

struct GeoRange {
  double min = 0;
  double max = 0;
};

struct GeoArea {
  GeoRange lon;
  GeoRange lat;
};

struct GeoLonLat {
  double lon = 0;
  double lat = 0;
};

// The coordinate ranges of the stored scores.
inline constexpr GeoRange kGeoLonRange{kGeoLonMin, kGeoLonMax};
inline constexpr GeoRange kGeoLatRange{kGeoLatMin, kGeoLatMax};

// True when GEOADD accepts the pair (Redis: "invalid longitude,latitude pair").
bool GeoValidLonLat(double lon, double lat);

// Encodes a point into the cell of `step` bits per coordinate within the given ranges;
// nullopt outside the Web Mercator limits or the ranges.
std::optional<GeoHashBits> GeoEncode(GeoRange lon_range, GeoRange lat_range, double lon, double lat,
                                     int step);
// The area covered by a cell.
GeoArea GeoDecode(GeoRange lon_range, GeoRange lat_range, GeoHashBits hash);

// The 52-bit score of a valid point (GEOADD).
uint64_t GeoScore(double lon, double lat);
// The centre of the cell that a score names, clamped to the limits (GEOPOS). Any score
// decodes, as in Redis (the double is converted to 64 bits as x86-64 converts it).
GeoLonLat GeoDecodeScore(double score);
// For tests: the portable decoder (GeoDecodeScore uses BMI2's PEXT where the CPU has it,
// with the same results), and whether the CPU has it.
GeoLonLat GeoDecodeScoreGeneric(double score);
bool GeoDecodeHasPext();
// The 11-character standard geohash (latitude over -90..90) of a score (GEOHASH).
std::string GeoHashString(double score);

// Great-circle distance in metres (haversine over Redis's earth radius).
double GeoDistance(double lon1, double lat1, double lon2, double lat2);
// The distance along a meridian between two latitudes, in metres.
double GeoLatDistance(double lat1, double lat2);

// The area of a search: a circle of `radius` or a `width` x `height` box, centred on
// (lon, lat); sizes are in the unit whose length in metres is `conversion`.
struct GeoShape {
  enum class Kind : uint8_t { kRadius, kBox };
  Kind kind = Kind::kRadius;
  double lon = 0;
  double lat = 0;
  double conversion = 1;
  double radius = 0;
  double width = 0;
  double height = 0;
};

// Whether the point lies in the shape; if so, `*distance` is its distance from the centre
// in metres.
bool GeoShapeContains(const GeoShape& shape, double lon, double lat, double* distance);

// GeoShapeContains() for the many points of one search, with what they share computed
// once: the centre's cosine, and for a circle a cheap lower bound of the haversine term
// (|sin t| >= |t|·(1 - t²/6), cos(lat) at its smallest in the latitude band) that turns
// away points clearly outside before any trigonometry. Same answers and the same
// distances, bit for bit.
class GeoShapeTest {
 public:
  explicit GeoShapeTest(const GeoShape& shape);
  bool Contains(double lon, double lat, double* distance) const;

 private:
  GeoShape shape_;
  double radius_m_ = 0;  // circle: the radius in metres
  double lon1r_ = 0, lat1r_ = 0, cos_lat1_ = 0;
  bool bound_ = false;    // whether the lower bound applies
  double bound_cos_ = 0;  // cos(lat1) · (the smallest cos(lat) of the band)
  double a_max_ = 0;      // a haversine term above this is out, with a margin
};

// The precision (bits per coordinate, 1..26) of the cells searched for a radius in
// metres at a latitude.
int GeoEstimateSteps(double radius_meters, double lat);

// The nine cells to scan for a shape, in Redis's order: centre, north, south, east, west,
// north-east, north-west, south-east, south-west; cells that cannot hold a match are zero.
std::array<GeoHashBits, 9> GeoSearchBoxes(const GeoShape& shape);

// The score range [min, max) of the points inside a cell.
struct GeoScoreRange {
  uint64_t min;
  uint64_t max;
};
GeoScoreRange GeoBoxScores(GeoHashBits hash);

// Narrowing a cell's scan: bounds outside which no point of a shape can be, derived from
// GeoShapeContains()'s own tests (the latitude distance, and for the longitude the
// haversine's cos(lat1)·cos(lat2)·sin²(Δlon/2) term) with a relative margin of 1e-6, so
// that a point the exact test keeps is never outside them.
struct GeoShapeFilter {
  double lat_min = 0;  // degrees
  double lat_max = 0;
  double lon = 0;           // the centre's longitude
  double lon_delta = 360;   // no point farther in longitude (degrees, either way round)
};
GeoShapeFilter GeoShapeFilterFor(const GeoShape& shape);

// The parts of a cell's score range that may hold points of the shape: the cell split
// into 4^levels sub-cells (levels 0..3, fewer past the finest step), the sub-cells
// entirely outside the filter's bounds dropped, consecutive ones merged into one range.
// Writes the ranges in ascending order to `out` (room for kGeoMaxCellRanges) and returns
// their number. Scanning them in order finds the same points, in the same order, as
// scanning GeoBoxScores(cell) and keeping those GeoShapeContains() accepts.
inline constexpr int kGeoMaxCellRanges = 32;
int GeoCellRanges(const GeoShapeFilter& filter, GeoHashBits cell, int levels, GeoScoreRange* out);

}  // namespace hotkv::types
