// Value types shared by the vector engine's public API: metrics, storage
// (quantisation) types, index options, search parameters and results.
//
// Distances. Every search result carries a `distance`; smaller is closer:
//   kL2           squared Euclidean distance, in [0, inf).
//   kInnerProduct 1 - dot(q, v), in (-inf, inf) (vectors are stored as given).
//   kCosine       1 - dot(q/|q|, v/|v|), in [0, 2] (vectors are normalised on insert).
// Redis vector sets report a similarity in [0, 1] (1 = identical) instead;
// SimilarityFromDistance / DistanceFromSimilarity convert, so Redis's EPSILON e
// (similarity >= 1 - e) becomes max_distance = DistanceFromSimilarity(metric, 1 - e).
//
// Thread safety: plain value types.
#ifndef HOTKV_VECTOR_TYPES_H_
#define HOTKV_VECTOR_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv::vector {

class AttributePredicate;

enum class Metric : uint8_t { kCosine, kL2, kInnerProduct };

// How vectors are stored.
//   kFloat32  4 bytes per component, exact.
//   kQ8       signed 8-bit per component with one float scale per vector (max |x| of
//             the (normalised) vector maps to 127), as Redis's Q8. Queries are
//             quantised the same way; distances are computed on the int8 codes.
//   kBinary   one sign bit per component; distance = 2 * hamming / dim, an estimate
//             of the cosine distance. Cosine metric only.
enum class Quantization : uint8_t { kFloat32, kQ8, kBinary };

const char* MetricName(Metric metric);
const char* QuantizationName(Quantization quant);  // "f32", "q8", "bin"

struct IndexOptions {
  uint32_t dim = 0;                // Required, 1..65536.
  Metric metric = Metric::kCosine;
  uint32_t m = 16;                 // Links per node on layers >= 1; layer 0 has 2*m.
  uint32_t ef_construction = 200;  // Beam width while inserting.
  Quantization quant = Quantization::kFloat32;
  uint64_t seed = 100;             // Seeds the level generator (deterministic builds).
  // A second, compact copy of each vector that the walks of SearchNear() measure
  // instead of the full record (kFloat32 storage only; kNone, kQ8, or kBinary with the
  // cosine metric). Inserts and every other search use the records. Costs the sketch's
  // bytes per node (Q8: dim + 8).
  enum class Sketch : uint8_t { kNone, kQ8, kBinary };
  Sketch sketch = Sketch::kNone;
};

// Filters results by their attributes JSON (see filter_expr.h for the Redis FILTER
// expression implementation). Elements without attributes are passed an empty view.
class AttributePredicate {
 public:
  virtual ~AttributePredicate() = default;
  // Must be thread-safe: one predicate may be evaluated by several searches at once.
  virtual bool Matches(std::string_view attributes_json) const = 0;
};

struct SearchParams {
  uint32_t k = 10;  // Number of results wanted (Redis COUNT).
  // Beam width (Redis EF). 0 = default: max(k, kDefaultEf). Values below k act as k.
  uint32_t ef = 0;
  // Only results with distance <= max_distance are returned (Redis EPSILON).
  std::optional<float> max_distance;
  // Only elements whose attributes match are returned; the others still guide the
  // graph walk. Not owned; must outlive the call.
  const AttributePredicate* filter = nullptr;
  // With a filter: at most this many candidates are expanded (Redis FILTER-EF: its walk
  // counts the nodes whose neighbours it visits). 0 = default k * 100;
  // kUnlimitedFilterEf = explore as much as needed.
  uint32_t filter_ef = 0;
  // With a filter: the walk keeps the best `filter_beam` filter-passing elements and stops
  // only once that many are found and no candidate left is nearer than the worst of them
  // (Redis's VSIM keeps a beam of EF of them: kFilterBeamEf). At most the search's ef;
  // 0 = k, enough for a caller that already widened ef for the filter's selectivity
  // (FT.SEARCH's pre-filtered KNN).
  uint32_t filter_beam = 0;
  // Linear scan of every element instead of the graph walk (Redis TRUTH).
  bool exact = false;
  // Fill SearchHit::attributes.
  bool with_attributes = false;
};

// Polled by long walks (SearchRange): true stops the walk, and what was found so far
// comes back (a caller's time limit).
class StopCheck {
 public:
  virtual ~StopCheck() = default;
  virtual bool ShouldStop() const = 0;
};

inline constexpr uint32_t kDefaultEf = 100;
inline constexpr uint32_t kUnlimitedFilterEf = UINT32_MAX;
inline constexpr uint32_t kFilterBeamEf = UINT32_MAX;  // SearchParams::filter_beam = ef.

struct SearchHit {
  std::string label;
  float distance = 0.0f;  // See the table at the top of this file.
  std::optional<std::string> attributes;  // Only with SearchParams::with_attributes.
};

// The stored representation of a vector (Redis VEMB ... RAW).
struct RawVector {
  Quantization quant = Quantization::kFloat32;
  // kFloat32: dim floats (unit length for cosine); kQ8: dim int8 codes; kBinary:
  // ceil(dim/64) 64-bit little-endian words, bit i%64 of word i/64 set when
  // component i > 0.
  std::string data;
  float norm = 0.0f;      // L2 norm of the vector as given.
  float q8_range = 0.0f;  // kQ8: codes -127..127 stand for [-range, range].
};

// A vector that, given to VADD (normalised, then quantised to Q8), is stored as `raw`
// (a Q8 element) again: the same codes and the same range, so VEMB and VSIM scores stay.
// The dequantised vector (code * range / 127) is not of unit length, and normalising it
// would scale the range by 1/length; instead the components at the largest code stay
// at +-range and the others are scaled by one factor to make the length 1, as long as
// every code still rounds to itself (else the dequantised vector). Times raw.norm.
// Used by the RDB loader and the AOF rewrite's VADD commands.
std::vector<float> Q8Preimage(const RawVector& raw);

// A neighbour link of an element, as VLINKS reports it.
struct Link {
  std::string label;
  float distance = 0.0f;
};

struct IndexInfo {
  Quantization quant = Quantization::kFloat32;
  Metric metric = Metric::kCosine;
  uint32_t dim = 0;
  size_t size = 0;          // Elements (labels) present.
  int max_level = -1;       // Level of the entry point; -1 when empty.
  uint32_t m = 0;
  uint32_t ef_construction = 0;
  size_t num_nodes = 0;     // Graph node slots in use, including deleted ones not yet
                            // reclaimed.
  size_t capacity = 0;      // Node slots allocated.
  size_t node_bytes = 0;    // Bytes of one node slot (links + vector + header).
  size_t memory_bytes = 0;  // See HnswIndex::MemoryUsage().
  size_t mapped_bytes = 0;  // Of memory_bytes, node chunks mapped with mmap (not malloc).
};

// Maps an engine distance to Redis's similarity score in [0, 1] (1 = identical):
// cosine 1 - d/2; inner product (dot in [-1, 1] for unit vectors) (2 - d)/2;
// L2 1 / (1 + d).
double SimilarityFromDistance(Metric metric, double distance);
// Inverse of SimilarityFromDistance.
double DistanceFromSimilarity(Metric metric, double similarity);

}  // namespace hotkv::vector

#endif  // HOTKV_VECTOR_TYPES_H_
