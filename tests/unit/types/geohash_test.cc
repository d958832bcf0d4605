// Geohash math against values Redis produced (redis-server 7.0 and 8.8 agree on all of
// them): scores, decoded cell centres, GEOHASH strings, distances, and the search plan.

#include "types/geohash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>
#include <string>

namespace hotkv::types {
namespace {

std::string Fixed17(double v) {  // Redis 7.0's GEOPOS text before trimming zeros
  char buf[64];
  snprintf(buf, sizeof(buf), "%.17f", v);
  return buf;
}

TEST(GeoHash, ScoresOfTheDocumentationExamples) {
  EXPECT_EQ(GeoScore(13.361389, 38.115556), 3479099956230698u);  // Palermo
  EXPECT_EQ(GeoScore(15.087269, 37.502669), 3479447370796909u);  // Catania
  EXPECT_EQ(GeoScore(0, 0), 3377699720527872u);
  EXPECT_EQ(GeoScore(-180, -85.05112878), 0u);
  // The upper limits give a 2^26 cell index, which spills into bits 52 and 53.
  EXPECT_EQ(GeoScore(180, 85.05112878), 13510798882111488u);
  EXPECT_EQ(GeoScore(-0.0000001, -0.0000002), 1125899906842623u);
}

TEST(GeoHash, DecodesToTheCellCentre) {
  GeoLonLat p = GeoDecodeScore(3479099956230698.0);
  EXPECT_EQ(Fixed17(p.lon), "13.36138933897018433");
  EXPECT_EQ(Fixed17(p.lat), "38.11555639549629859");
  p = GeoDecodeScore(3479447370796909.0);
  EXPECT_EQ(Fixed17(p.lon), "15.08726745843887329");
  EXPECT_EQ(Fixed17(p.lat), "37.50266842333162032");
  p = GeoDecodeScore(0);
  EXPECT_EQ(Fixed17(p.lon), "-179.99999731779098511");
  EXPECT_EQ(Fixed17(p.lat), "-85.05112751263942528");
  p = GeoDecodeScore(13510798882111488.0);  // clamped to the limits
  EXPECT_EQ(p.lon, 180);
  EXPECT_EQ(p.lat, 85.05112878);
}

TEST(GeoHash, AnyScoreDecodes) {
  // Scores that GEOADD never writes still decode, as in Redis (no crash, in range).
  for (double s : {-1.0, -1e300, 1e300, 9.3e18, 2e19, 4503599627370496.5, -0.0}) {
    GeoLonLat p = GeoDecodeScore(s);
    EXPECT_TRUE(GeoValidLonLat(p.lon, p.lat)) << s;
  }
}

TEST(GeoHash, StandardGeohashStrings) {
  EXPECT_EQ(GeoHashString(3479099956230698.0), "sqc8b49rny0");
  EXPECT_EQ(GeoHashString(3479447370796909.0), "sqdtr74hyu0");
  EXPECT_EQ(GeoHashString(static_cast<double>(GeoScore(0.000001, 0.000001))), "s0000000000");
  EXPECT_EQ(GeoHashString(static_cast<double>(GeoScore(-0.0000001, -0.0000002))), "7zzzzzzzzz0");
  EXPECT_EQ(GeoHashString(static_cast<double>(GeoScore(180, 85.05112878))), "bp05b5048p0");
  EXPECT_EQ(GeoHashString(0), "00bh0hbj200");
}

TEST(GeoHash, Distances) {
  GeoLonLat a = GeoDecodeScore(3479099956230698.0);
  GeoLonLat b = GeoDecodeScore(3479447370796909.0);
  char buf[32];
  snprintf(buf, sizeof(buf), "%.4f", GeoDistance(a.lon, a.lat, b.lon, b.lat));
  EXPECT_STREQ(buf, "166274.1516");
  snprintf(buf, sizeof(buf), "%.4f", GeoDistance(a.lon, a.lat, b.lon, b.lat) / 1000);
  EXPECT_STREQ(buf, "166.2742");
  EXPECT_EQ(GeoDistance(10, 20, 10, 20), 0);
  // Same meridian: the latitude distance.
  EXPECT_EQ(GeoDistance(10, 20, 10, 21), GeoLatDistance(20, 21));
  EXPECT_NEAR(GeoLatDistance(0, 1), kEarthRadiusMeters * M_PI / 180, 1e-6);
}

TEST(GeoHash, ValidCoordinates) {
  EXPECT_TRUE(GeoValidLonLat(180, 85.05112878));
  EXPECT_TRUE(GeoValidLonLat(-180, -85.05112878));
  EXPECT_FALSE(GeoValidLonLat(180.0000001, 0));
  EXPECT_FALSE(GeoValidLonLat(0, 85.05112879));
  EXPECT_FALSE(GeoValidLonLat(0, -90));
}

TEST(GeoHash, EstimateSteps) {
  EXPECT_EQ(GeoEstimateSteps(0, 0), 26);
  EXPECT_EQ(GeoEstimateSteps(200000, 37), 6);  // 200 km * 2^7 >= 20037726.37
  EXPECT_EQ(GeoEstimateSteps(200000, 70), 5);
  EXPECT_EQ(GeoEstimateSteps(200000, -85), 4);
  EXPECT_EQ(GeoEstimateSteps(1, 0), 24);
  EXPECT_EQ(GeoEstimateSteps(1e-9, 0), 26);
  EXPECT_EQ(GeoEstimateSteps(5e7, 0), 1);
}

TEST(GeoHash, BoxScoresCoverTheCell) {
  GeoHashBits h = *GeoEncode(kGeoLonRange, kGeoLatRange, 13.361389, 38.115556, 26);
  GeoScoreRange r = GeoBoxScores(h);
  EXPECT_EQ(r.min, 3479099956230698u);
  EXPECT_EQ(r.max, 3479099956230699u);
  h = *GeoEncode(kGeoLonRange, kGeoLatRange, 13.361389, 38.115556, 7);
  r = GeoBoxScores(h);
  EXPECT_LE(r.min, 3479099956230698u);
  EXPECT_GT(r.max, 3479099956230698u);
  EXPECT_EQ(r.max - r.min, uint64_t{1} << 38);
}

TEST(GeoHash, SearchBoxesHoldEveryPointOfTheShape) {
  // Every point of a grid inside the shape must fall into one of the boxes.
  for (double clat : {0.0, 38.0, -45.0, 70.0, 84.0}) {
    for (double radius : {100.0, 5000.0, 200000.0}) {
      GeoShape shape;
      shape.lon = 13.36;
      shape.lat = clat;
      shape.radius = radius;
      auto boxes = GeoSearchBoxes(shape);
      for (double dlat = -0.05; dlat <= 0.05; dlat += 0.01) {
        for (double dlon = -0.05; dlon <= 0.05; dlon += 0.01) {
          const double plat = clat + dlat * radius / 5000;
          const double plon = shape.lon + dlon * radius / 5000;
          if (!GeoValidLonLat(plon, plat)) {
            continue;
          }
          const uint64_t score = GeoScore(plon, plat);
          GeoLonLat p = GeoDecodeScore(static_cast<double>(score));
          double dist;
          if (!GeoShapeContains(shape, p.lon, p.lat, &dist)) {
            continue;
          }
          bool found = false;
          for (const GeoHashBits& b : boxes) {
            if (b.IsZero()) {
              continue;
            }
            GeoScoreRange r = GeoBoxScores(b);
            found |= score >= r.min && score < r.max;
          }
          EXPECT_TRUE(found) << clat << " " << radius << " " << plon << "," << plat;
        }
      }
    }
  }
}

TEST(GeoHash, BoxShape) {
  GeoShape box;
  box.kind = GeoShape::Kind::kBox;
  box.lon = 15;
  box.lat = 37;
  box.width = 400;
  box.height = 400;
  box.conversion = 1000;
  double dist = -1;
  GeoLonLat catania = GeoDecodeScore(3479447370796909.0);
  EXPECT_TRUE(GeoShapeContains(box, catania.lon, catania.lat, &dist));
  char buf[32];
  snprintf(buf, sizeof(buf), "%.4f", dist / 1000);
  EXPECT_STREQ(buf, "56.4413");
  box.height = 100;  // Catania is 55.8 km north of the centre
  EXPECT_FALSE(GeoShapeContains(box, catania.lon, catania.lat, &dist));
}

}  // namespace
// GEOSEARCH's decoder (PEXT where the CPU has it) gives the portable decoder's doubles
// bit for bit, for valid scores and any other double.
TEST(GeoHash, PextDecodeMatchesPortable) {
  std::mt19937_64 rng(22);
  std::vector<double> scores = {0, 1, -1, 4503599627370495.0, 4503599627370496.0, 1e300, -1e300,
                                9223372036854775808.0, 18446744073709551615.0, 0.5};
  for (int i = 0; i < 200000; i++) {
    scores.push_back(static_cast<double>(rng() & ((uint64_t{1} << 52) - 1)));
  }
  for (int i = 0; i < 1000; i++) {
    scores.push_back(static_cast<double>(rng()) * (i % 2 ? 1 : -1));
  }
  for (size_t i = 10; i < 200010; i++) {  // valid scores: the cell's centre, as GeoDecode has it
    GeoHashBits h;
    h.bits = static_cast<uint64_t>(scores[i]);
    h.step = kGeoStepMax;
    const GeoArea area = GeoDecode(kGeoLonRange, kGeoLatRange, h);
    const GeoLonLat a = GeoDecodeScore(scores[i]);
    ASSERT_EQ(a.lon, std::clamp((area.lon.min + area.lon.max) / 2, kGeoLonMin, kGeoLonMax));
    ASSERT_EQ(a.lat, std::clamp((area.lat.min + area.lat.max) / 2, kGeoLatMin, kGeoLatMax));
  }
  for (double score : scores) {
    const GeoLonLat a = GeoDecodeScore(score), b = GeoDecodeScoreGeneric(score);
    ASSERT_EQ(std::memcmp(&a.lon, &b.lon, sizeof(double)), 0) << score;
    ASSERT_EQ(std::memcmp(&a.lat, &b.lat, sizeof(double)), 0) << score;
  }
  if (!GeoDecodeHasPext()) {
    GTEST_SKIP() << "no BMI2 here: only the portable decoder ran";
  }
}

}  // namespace hotkv::types

namespace hotkv::types {
namespace {

// The point at `distance` metres from (lon, lat) along `bearing` (radians), on Redis's
// sphere.
GeoLonLat Destination(double lon, double lat, double distance, double bearing) {
  const double d = distance / kEarthRadiusMeters;
  const double la = lat * M_PI / 180, lo = lon * M_PI / 180;
  const double la2 = std::asin(std::sin(la) * std::cos(d) + std::cos(la) * std::sin(d) * std::cos(bearing));
  double lo2 = lo + std::atan2(std::sin(bearing) * std::sin(d) * std::cos(la),
                               std::cos(d) - std::sin(la) * std::sin(la2));
  double lon2 = lo2 * 180 / M_PI;
  while (lon2 > 180) lon2 -= 360;
  while (lon2 < -180) lon2 += 360;
  return {lon2, la2 * 180 / M_PI};
}

// GeoCellRanges keeps every point that GeoShapeContains() accepts: random circles and
// boxes (poles, the antimeridian, radii from 1 m to 5,000 km), points drawn uniformly in
// each of the nine cells and on the shape's edge (±1e-9..1e-3 of its size).
TEST(GeoHash, CellRangesKeepEveryPointOfTheShape) {
  std::mt19937_64 rng(2212);
  std::uniform_real_distribution<double> unit(0, 1);
  size_t kept_points = 0, cell_area = 0, kept_area = 0;
  for (int trial = 0; trial < 1500; trial++) {
    GeoShape shape;
    shape.kind = trial % 3 == 2 ? GeoShape::Kind::kBox : GeoShape::Kind::kRadius;
    shape.lon = trial % 17 == 0 ? (trial % 2 ? 179.9999 : -180) : -180 + 360 * unit(rng);
    shape.lat = trial % 23 == 0 ? (trial % 2 ? 85.05 : -84.9) : -85 + 170 * unit(rng);
    shape.conversion = trial % 4 == 0 ? 1000 : 1;
    const double size = std::exp(std::log(1.0) + unit(rng) * std::log(5e6)) / shape.conversion;
    shape.radius = size;
    shape.width = size * (0.2 + 2 * unit(rng));
    shape.height = size * (0.2 + 2 * unit(rng));
    const GeoShapeFilter filter = GeoShapeFilterFor(shape);
    const double reach = shape.conversion * (shape.kind == GeoShape::Kind::kRadius
                                                 ? shape.radius
                                                 : std::hypot(shape.width, shape.height) / 2);
    for (const GeoHashBits& box : GeoSearchBoxes(shape)) {
      if (box.IsZero()) {
        continue;
      }
      const GeoScoreRange whole = GeoBoxScores(box);
      for (int levels = 0; levels <= 3; levels++) {
        GeoScoreRange ranges[kGeoMaxCellRanges];
        const int n = GeoCellRanges(filter, box, levels, ranges);
        ASSERT_GE(n, 0);
        ASSERT_LE(n, kGeoMaxCellRanges);
        for (int k = 0; k < n; k++) {  // ascending, disjoint, not adjacent, inside the cell
          ASSERT_LT(ranges[k].min, ranges[k].max);
          ASSERT_GE(ranges[k].min, whole.min);
          ASSERT_LE(ranges[k].max, whole.max);
          if (k > 0) {
            ASSERT_LT(ranges[k - 1].max, ranges[k].min);
          }
        }
        if (levels == 2 && box.step <= kGeoStepMax - 2) {
          cell_area += 16;
          for (int k = 0; k < n; k++) {
            kept_area += (ranges[k].max - ranges[k].min) / ((whole.max - whole.min) / 16);
          }
        }
        auto covered = [&](uint64_t score) {
          for (int k = 0; k < n; k++) {
            if (score >= ranges[k].min && score < ranges[k].max) {
              return true;
            }
          }
          return false;
        };
        auto check = [&](uint64_t score) {
          if (score < whole.min || score >= whole.max) {
            return;
          }
          const GeoLonLat p = GeoDecodeScore(static_cast<double>(score));
          double dist;
          if (GeoShapeContains(shape, p.lon, p.lat, &dist)) {
            kept_points++;
            ASSERT_TRUE(covered(score)) << "trial " << trial << " levels " << levels << " score "
                                        << score << " at " << p.lon << "," << p.lat;
          }
        };
        for (int i = 0; i < 40; i++) {
          check(whole.min + rng() % (whole.max - whole.min));
        }
        for (int i = 0; i < 40; i++) {
          const double jitter = (unit(rng) < 0.5 ? -1 : 1) * std::pow(10.0, -9 + 6 * unit(rng));
          const GeoLonLat q =
              Destination(shape.lon, shape.lat, reach * (1 + jitter) * (i % 8 == 0 ? unit(rng) : 1),
                          2 * M_PI * unit(rng));
          if (GeoValidLonLat(q.lon, q.lat)) {
            check(GeoScore(q.lon, q.lat));
          }
        }
        if (shape.kind == GeoShape::Kind::kBox) {  // the box's edges: parallels and sides
          const double half_h = shape.height * shape.conversion / 2 / kEarthRadiusMeters * 180 / M_PI;
          for (int i = 0; i < 40; i++) {
            const double jitter = (unit(rng) < 0.5 ? -1 : 1) * std::pow(10.0, -9 + 6 * unit(rng));
            double lat = shape.lat + (2 * unit(rng) - 1) * half_h;
            if (i % 2 == 0) {
              lat = shape.lat + (i % 4 == 0 ? 1 : -1) * half_h * (1 + jitter);
            }
            const double s = std::sin(shape.width * shape.conversion / 4 / kEarthRadiusMeters) /
                             std::cos(lat * M_PI / 180);
            double dlon = s < 1 ? 2 * std::asin(s) * 180 / M_PI : 180;
            dlon *= i % 2 == 1 ? 1 + jitter : unit(rng);
            double lon = shape.lon + (unit(rng) < 0.5 ? -dlon : dlon);
            lon = lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon);
            if (GeoValidLonLat(lon, lat)) {
              check(GeoScore(lon, lat));
            }
          }
        }
      }
    }
  }
  EXPECT_GT(kept_points, 20000u);
  // The filter does filter: with 16 sub-cells per cell, well under half are scanned.
  EXPECT_LT(kept_area * 2, cell_area);
}

// GeoShapeTest answers as GeoShapeContains, with the same distance bits: random circles
// and boxes, points near their edge (±1e-12..1e-2 of the size), inside and far away.
TEST(GeoHash, ShapeTestMatchesShapeContains) {
  std::mt19937_64 rng(2213);
  std::uniform_real_distribution<double> unit(0, 1);
  size_t inside = 0, outside = 0;
  for (int trial = 0; trial < 3000; trial++) {
    GeoShape shape;
    shape.kind = trial % 4 == 3 ? GeoShape::Kind::kBox : GeoShape::Kind::kRadius;
    shape.lon = -180 + 360 * unit(rng);
    shape.lat = trial % 29 == 0 ? 84.9 : -85 + 170 * unit(rng);
    shape.conversion = trial % 2 ? 1000 : 1;
    const double size = (trial % 31 == 0 ? 0 : std::exp(unit(rng) * std::log(8e6))) / shape.conversion;
    shape.radius = size;
    shape.width = 2 * size;
    shape.height = size;
    const GeoShapeTest test(shape);
    for (int i = 0; i < 100; i++) {
      const double jitter = (unit(rng) < 0.5 ? -1 : 1) * std::pow(10.0, -12 + 10 * unit(rng));
      const double d = size * shape.conversion * (i % 5 == 0 ? 3 * unit(rng) : 1 + jitter);
      const GeoLonLat q = Destination(shape.lon, shape.lat, d, 2 * M_PI * unit(rng));
      if (!GeoValidLonLat(q.lon, q.lat)) {
        continue;
      }
      const GeoLonLat p = GeoDecodeScore(static_cast<double>(GeoScore(q.lon, q.lat)));
      double d1 = -1, d2 = -2;
      const bool a = GeoShapeContains(shape, p.lon, p.lat, &d1);
      const bool b = test.Contains(p.lon, p.lat, &d2);
      ASSERT_EQ(a, b) << "trial " << trial << " point " << p.lon << "," << p.lat;
      if (a) {
        ASSERT_EQ(std::memcmp(&d1, &d2, sizeof(double)), 0) << d1 << " " << d2;
        inside++;
      } else {
        outside++;
      }
    }
  }
  EXPECT_GT(inside, 20000u);
  EXPECT_GT(outside, 20000u);
}

}  // namespace
}  // namespace hotkv::types
