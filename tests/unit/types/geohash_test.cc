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
