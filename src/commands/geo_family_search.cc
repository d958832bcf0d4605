// Geo searches: GEOSEARCH, GEOSEARCHSTORE, GEORADIUS, GEORADIUS_RO, GEORADIUSBYMEMBER,
// GEORADIUSBYMEMBER_RO — one parser and one search, as Redis's georadiusGeneric.
//
// The search scans the score ranges of the nine cells types::GeoSearchBoxes() picks
// (skipping a cell equal to the one scanned just before, which happens with huge radii),
// keeps the points inside the shape by exact distance, then sorts by distance as Redis
// does (glibc's stable qsort for a full sort; Redis's own partial quicksort when COUNT
// cuts the result, replayed step for step so that points at equal distances are picked
// and ordered alike), so the same points are found at the edges. COUNT without ASC/DESC sorts
// ascending; COUNT ... ANY stops scanning once COUNT points are found and keeps their
// scan order unless ASC/DESC is given.
//
// Edge cases honoured (as Redis): WRONGTYPE before any argument error; GEORADIUS parses
// its centre and radius first, GEORADIUSBYMEMBER its member ("could not decode requested
// zset member") and radius, but with a missing key the member and radius are not read.
// Options are read left to right, each error replied as met: COUNT must be an integer >
// 0; STORE/STOREDIST only on GEORADIUS/GEORADIUSBYMEMBER, STOREDIST alone on
// GEOSEARCHSTORE; FROMMEMBER/FROMLONLAT and BYRADIUS/BYBOX are exclusive pairs (the
// second of a pair is a syntax error; the same one twice is allowed, the last wins).
// Then: WITH* options with a store, a missing FROM*, a missing BY*, ANY without COUNT.
// A missing source key replies an empty array, or deletes the destination and replies 0.
// A store of no points deletes the destination. Stored scores are the geohash scores, or
// distances in the query's unit with STOREDIST; events "georadiusstore" (GEORADIUS*)
// and "geosearchstore".
#include <algorithm>
#include <string>
#include <vector>

#include "commands/geo_common.h"
#include "commands/helpers.h"
#include "commands/zset_common.h"
#include "types/zset_builder.h"

namespace hotkv {

namespace {

using types::GeoShape;

enum SearchFlags : unsigned {
  kFromCoords = 1,    // GEORADIUS[_RO]: centre and radius before the options
  kFromMember = 2,    // GEORADIUSBYMEMBER[_RO]: member and radius before the options
  kNoStore = 4,       // the _RO variants
  kSearch = 8,        // GEOSEARCH[STORE]: FROM* and BY* options
  kSearchStore = 16,  // GEOSEARCHSTORE: destination in argument 1
};

enum class Sort { kNone, kAsc, kDesc };

struct Found {
  std::string_view member;  // views the source zset, which nothing modifies meanwhile
  double score;
  double dist;
  types::GeoLonLat pos;
};

// Parses "radius unit" at ctx.arg(i): "need numeric radius", "radius cannot be negative",
// then the unit.
bool ParseRadius(CommandContext& ctx, size_t i, GeoShape* shape) {
  auto radius = ctx.DoubleArg(i, "ERR need numeric radius");
  if (!radius) {
    return false;
  }
  if (*radius < 0) {
    ctx.rb().Error("ERR radius cannot be negative");
    return false;
  }
  auto unit = ParseGeoUnit(ctx, ctx.arg(i + 1));
  if (!unit) {
    return false;
  }
  shape->kind = GeoShape::Kind::kRadius;
  shape->radius = *radius;
  shape->conversion = *unit;
  return true;
}

// Parses "width height unit" at ctx.arg(i).
bool ParseBox(CommandContext& ctx, size_t i, GeoShape* shape) {
  auto width = ctx.DoubleArg(i, "ERR need numeric width");
  if (!width) {
    return false;
  }
  auto height = ctx.DoubleArg(i + 1, "ERR need numeric height");
  if (!height) {
    return false;
  }
  if (*height < 0 || *width < 0) {
    ctx.rb().Error("ERR height or width cannot be negative");
    return false;
  }
  auto unit = ParseGeoUnit(ctx, ctx.arg(i + 2));
  if (!unit) {
    return false;
  }
  shape->kind = GeoShape::Kind::kBox;
  shape->width = *width;
  shape->height = *height;
  shape->conversion = *unit;
  return true;
}

// The position of a member, or the error "could not decode requested zset member".
bool MemberPosition(CommandContext& ctx, const types::ZSetValue& zset, std::string_view member,
                    GeoShape* shape) {
  auto score = zset.Score(member);
  if (!score) {
    ctx.rb().Error("ERR could not decode requested zset member");
    return false;
  }
  const types::GeoLonLat p = types::GeoDecodeScore(*score);
  shape->lon = p.lon;
  shape->lat = p.lat;
  return true;
}

// Each of the nine cells is scanned as its 4^kCellSplitLevels sub-cells, those outside
// the shape's latitude and longitude bounds skipped (types::GeoCellRanges): a 20 km radius
// search then visits about a sixth of the points of the nine cells.
constexpr int kCellSplitLevels = 2;

// The points of `zset` inside `shape`, in scan order, into `found` (emptied first); with
// `limit` > 0, stops once that many are found.
void Search(const types::ZSetValue& zset, const GeoShape& shape, size_t limit,
            std::vector<Found>& found) {
  found.clear();
  const auto boxes = types::GeoSearchBoxes(shape);
  const types::GeoShapeFilter filter = types::GeoShapeFilterFor(shape);
  const types::GeoShapeTest test(shape);
  int last = -1;
  for (int i = 0; i < static_cast<int>(boxes.size()); i++) {
    const types::GeoHashBits box = boxes[i];
    if (box.IsZero()) {
      continue;
    }
    // Neighbours of a huge cell can be the same cell: skip a repeat of the last one
    // scanned (Redis compares with the last scanned neighbour, never with the centre).
    if (last > 0 && box.bits == boxes[last].bits && box.step == boxes[last].step) {
      continue;
    }
    if (limit > 0 && found.size() >= limit) {
      break;
    }
    // Only the parts of the cell the shape can reach (the same points, in the same order).
    types::GeoScoreRange ranges[types::kGeoMaxCellRanges];
    const int nranges = types::GeoCellRanges(filter, box, kCellSplitLevels, ranges);
    bool full = false;
    for (int k = 0; k < nranges && !full; k++) {
      const types::GeoScoreRange r = ranges[k];
      types::ZScoreRange range{static_cast<double>(r.min), static_cast<double>(r.max), false,
                               true};
      zset.VisitScoreRange(range, [&](std::string_view member, double score) {
        if (full) {
          return;
        }
        const types::GeoLonLat p = types::GeoDecodeScore(score);
        double dist = 0;
        if (test.Contains(p.lon, p.lat, &dist)) {
          found.push_back({member, score, dist, p});
        }
        full = limit > 0 && found.size() >= limit;
      });
    }
    last = i;
  }
}

// The worker thread's buffer of found points, kept between searches (no allocation per
// search) unless a search made it large.
struct FoundBuffer {
  std::vector<Found>& v;
  explicit FoundBuffer(std::vector<Found>& buf) : v(buf) {}
  ~FoundBuffer() {
    if (v.capacity() > 4096) {
      std::vector<Found>().swap(v);
    }
  }
  FoundBuffer(const FoundBuffer&) = delete;
  FoundBuffer& operator=(const FoundBuffer&) = delete;
};

// -1, 0, 1 as Redis's sort_gp_asc / sort_gp_desc compare distances.
int CompareDist(const Found& a, const Found& b, bool desc) {
  const int c = a.dist > b.dist ? 1 : (a.dist == b.dist ? 0 : -1);
  return desc ? -c : c;
}

// Redis's partial sort (pqsort: Bentley & McIlroy's quicksort that skips the partitions
// outside the ranks [0, last]), step for step, so that with COUNT the points at equal
// distances are chosen and ordered as Redis chooses and orders them.
void PartialSort(std::vector<Found>& v, size_t base, size_t n, size_t last, bool desc) {
  auto cmp = [&](size_t i, size_t j) { return CompareDist(v[i], v[j], desc); };
  auto swap = [&](size_t i, size_t j) { std::swap(v[i], v[j]); };
  auto insertion_sort = [&](size_t a, size_t count) {
    for (size_t m = a + 1; m < a + count; m++) {
      for (size_t l = m; l > a && cmp(l - 1, l) > 0; l--) {
        swap(l, l - 1);
      }
    }
  };
  auto med3 = [&](size_t a, size_t b, size_t c) {
    return cmp(a, b) < 0 ? (cmp(b, c) < 0 ? b : (cmp(a, c) < 0 ? c : a))
                         : (cmp(b, c) > 0 ? b : (cmp(a, c) < 0 ? a : c));
  };
  // Whether a partition starting at rank s may hold any of the ranks 0..last.
  auto wanted = [&](size_t s) { return s <= last; };
  size_t a = base;
  while (true) {
    if (n < 7) {
      insertion_sort(a, n);
      return;
    }
    size_t pm = a + n / 2;
    if (n > 7) {
      size_t pl = a;
      size_t pn = a + n - 1;
      if (n > 40) {
        const size_t d = n / 8;
        pl = med3(pl, pl + d, pl + 2 * d);
        pm = med3(pm - d, pm, pm + d);
        pn = med3(pn - 2 * d, pn - d, pn);
      }
      pm = med3(pl, pm, pn);
    }
    swap(a, pm);
    size_t pa = a + 1, pb = a + 1;
    // pc and pd may step to a - 1 conceptually; keep them as signed offsets.
    int64_t pc = static_cast<int64_t>(a + n - 1), pd = pc;
    while (true) {
      int c;
      while (static_cast<int64_t>(pb) <= pc && (c = cmp(pb, a)) <= 0) {
        if (c == 0) {
          swap(pa, pb);
          pa++;
        }
        pb++;
      }
      while (static_cast<int64_t>(pb) <= pc && (c = cmp(static_cast<size_t>(pc), a)) >= 0) {
        if (c == 0) {
          swap(static_cast<size_t>(pc), static_cast<size_t>(pd));
          pd--;
        }
        pc--;
      }
      if (static_cast<int64_t>(pb) > pc) {
        break;
      }
      swap(pb, static_cast<size_t>(pc));
      pb++;
      pc--;
    }
    const size_t pn = a + n;
    size_t r = std::min(pa - a, pb - pa);
    for (size_t j = 0; j < r; j++) {
      swap(a + j, pb - r + j);
    }
    r = std::min(static_cast<size_t>(pd - pc), pn - static_cast<size_t>(pd) - 1);
    for (size_t j = 0; j < r; j++) {
      swap(pb + j, pn - r + j);
    }
    r = pb - pa;
    if (r > 1 && wanted(a)) {
      PartialSort(v, a, r, last, desc);
    }
    r = static_cast<size_t>(pd - pc);
    if (r <= 1) {
      return;
    }
    a = pn - r;
    n = r;
    if (!wanted(a)) {
      return;
    }
  }
}

void SearchGeneric(CommandContext& ctx, size_t src_index, unsigned flags) {
  std::string_view src = ctx.arg(src_index);
  ZFound z = FindZSetForRead(ctx, src);
  if (z.wrong_type) {
    return;
  }
  GeoShape shape;
  size_t base = 0;
  std::string_view store_key;
  bool store = false;
  bool storedist = false;
  if (flags & kFromCoords) {
    base = 6;
    auto p = ParseGeoLonLat(ctx, 2);
    if (!p || !ParseRadius(ctx, 4, &shape)) {
      return;
    }
    shape.lon = p->lon;
    shape.lat = p->lat;
  } else if (flags & kFromMember) {
    base = 5;
    if (z.zset != nullptr &&
        (!MemberPosition(ctx, *z.zset, ctx.arg(2), &shape) || !ParseRadius(ctx, 3, &shape))) {
      return;
    }
  } else {
    base = 2;
    if (flags & kSearchStore) {
      base = 3;
      store_key = ctx.arg(1);
      store = true;
    }
  }

  bool withdist = false, withhash = false, withcoord = false, any = false;
  bool frommember = false, fromlonlat = false, byradius = false, bybox = false;
  Sort sort = Sort::kNone;
  int64_t count = 0;
  const size_t argc = ctx.argc();
  for (size_t i = base; i < argc; i++) {
    std::string_view a = ctx.arg(i);
    const size_t left = argc - i - 1;  // words after this one
    if (EqualsIgnoreCase(a, "WITHDIST")) {
      withdist = true;
    } else if (EqualsIgnoreCase(a, "WITHHASH")) {
      withhash = true;
    } else if (EqualsIgnoreCase(a, "WITHCOORD")) {
      withcoord = true;
    } else if (EqualsIgnoreCase(a, "ANY")) {
      any = true;
    } else if (EqualsIgnoreCase(a, "ASC")) {
      sort = Sort::kAsc;
    } else if (EqualsIgnoreCase(a, "DESC")) {
      sort = Sort::kDesc;
    } else if (EqualsIgnoreCase(a, "COUNT") && left >= 1) {
      auto n = ctx.IntArg(i + 1);
      if (!n) {
        return;
      }
      if (*n <= 0) {
        return ctx.rb().Error("ERR COUNT must be > 0");
      }
      count = *n;
      i++;
    } else if ((EqualsIgnoreCase(a, "STORE") || EqualsIgnoreCase(a, "STOREDIST")) && left >= 1 &&
               !(flags & (kNoStore | kSearch))) {
      store_key = ctx.arg(i + 1);
      store = true;
      storedist = EqualsIgnoreCase(a, "STOREDIST");
      i++;
    } else if (EqualsIgnoreCase(a, "STOREDIST") && (flags & kSearchStore)) {
      storedist = true;
    } else if (EqualsIgnoreCase(a, "FROMMEMBER") && left >= 1 && (flags & kSearch) && !fromlonlat) {
      if (z.zset != nullptr && !MemberPosition(ctx, *z.zset, ctx.arg(i + 1), &shape)) {
        return;
      }
      frommember = true;
      i++;
    } else if (EqualsIgnoreCase(a, "FROMLONLAT") && left >= 2 && (flags & kSearch) && !frommember) {
      auto p = ParseGeoLonLat(ctx, i + 1);
      if (!p) {
        return;
      }
      shape.lon = p->lon;
      shape.lat = p->lat;
      fromlonlat = true;
      i += 2;
    } else if (EqualsIgnoreCase(a, "BYRADIUS") && left >= 2 && (flags & kSearch) && !bybox) {
      if (!ParseRadius(ctx, i + 1, &shape)) {
        return;
      }
      byradius = true;
      i += 2;
    } else if (EqualsIgnoreCase(a, "BYBOX") && left >= 3 && (flags & kSearch) && !byradius) {
      if (!ParseBox(ctx, i + 1, &shape)) {
        return;
      }
      bybox = true;
      i += 3;
    } else {
      return ctx.rb().Error(errors::kSyntax);
    }
  }

  if (store && (withdist || withhash || withcoord)) {
    return ctx.rb().Error(
        (flags & kSearchStore)
            ? "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
            : "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and "
              "WITHCOORD options");
  }
  if ((flags & kSearch) && !(frommember || fromlonlat)) {
    return ctx.rb().Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " +
                          std::string(ctx.arg(0)));
  }
  if ((flags & kSearch) && !(byradius || bybox)) {
    return ctx.rb().Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " +
                          std::string(ctx.arg(0)));
  }
  if (any && count == 0) {
    return ctx.rb().Error("ERR the ANY argument requires COUNT argument");
  }

  if (z.zset == nullptr) {
    if (store) {
      return StoreZSetResult(ctx, store_key, types::ZSetValue(), "");
    }
    return ctx.rb().EmptyArray();
  }
  if (count != 0 && sort == Sort::kNone && !any) {
    sort = Sort::kAsc;  // the nearest COUNT points
  }

  thread_local std::vector<Found> found_buffer;
  FoundBuffer buffer(found_buffer);
  std::vector<Found>& found = buffer.v;
  Search(*z.zset, shape, any ? static_cast<size_t>(count) : 0, found);
  if (found.empty() && !store) {
    return ctx.rb().EmptyArray();
  }
  const size_t n = count == 0 || found.size() < static_cast<uint64_t>(count)
                       ? found.size()
                       : static_cast<size_t>(count);
  if (sort != Sort::kNone) {
    const bool desc = sort == Sort::kDesc;
    if (n == found.size()) {
      // Redis calls qsort(), which glibc implements as a stable merge sort.
      std::stable_sort(found.begin(), found.end(), [desc](const Found& a, const Found& b) {
        return CompareDist(a, b, desc) < 0;
      });
    } else {
      PartialSort(found, 0, found.size(), n - 1, desc);
    }
  }

  if (!store) {
    const size_t extras = (withdist ? 1 : 0) + (withhash ? 1 : 0) + (withcoord ? 1 : 0);
    ReplyBuilder& rb = ctx.rb();
    rb.Array(n);
    for (size_t i = 0; i < n; i++) {
      const Found& f = found[i];
      if (extras > 0) {
        rb.Array(extras + 1);
      }
      rb.Bulk(f.member);
      if (withdist) {
        ReplyGeoDistance(ctx, f.dist / shape.conversion);
      }
      if (withhash) {
        rb.Integer(static_cast<int64_t>(f.score));
      }
      if (withcoord) {
        rb.Array(2);
        ReplyGeoCoordinate(ctx, f.pos.lon);
        ReplyGeoCoordinate(ctx, f.pos.lat);
      }
    }
    return;
  }

  // The result is built before the destination is replaced: it may be the source.
  types::ZSetBuilder builder(n);
  for (size_t i = 0; i < n; i++) {
    const Found& f = found[i];
    builder.Insert(f.member, storedist ? f.dist / shape.conversion : f.score);
  }
  StoreZSetResult(ctx, store_key, std::move(builder).Build(ZLimits(ctx)),
                  (flags & kSearch) ? "geosearchstore" : "georadiusstore");
}

}  // namespace

void GeoSearchCommand(CommandContext& ctx) { SearchGeneric(ctx, 1, kSearch); }
void GeoSearchStoreCommand(CommandContext& ctx) { SearchGeneric(ctx, 2, kSearch | kSearchStore); }
void GeoRadiusCommand(CommandContext& ctx) { SearchGeneric(ctx, 1, kFromCoords); }
void GeoRadiusRoCommand(CommandContext& ctx) { SearchGeneric(ctx, 1, kFromCoords | kNoStore); }
void GeoRadiusByMemberCommand(CommandContext& ctx) { SearchGeneric(ctx, 1, kFromMember); }
void GeoRadiusByMemberRoCommand(CommandContext& ctx) {
  SearchGeneric(ctx, 1, kFromMember | kNoStore);
}

}  // namespace hotkv
