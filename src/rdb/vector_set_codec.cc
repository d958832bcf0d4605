// Vector sets as Redis 8 stores them (see vector_set_codec.h for the layout).
#include "rdb/vector_set_codec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/vector_set_value.h"
#include "vector/hnsw_index.h"

namespace hotkv::rdb {
namespace {

constexpr uint64_t kFlagProjection = 1;
constexpr uint64_t kFlagAttributes = 2;
constexpr uint32_t kMaxDim = 65536;
constexpr uint32_t kMaxLevel = 255;  // 8 bits in the node parameters
// Redis's quantisation numbers.
constexpr uint64_t kQuantNone = 0, kQuantQ8 = 1, kQuantBin = 2;

uint64_t QuantNumber(vector::Quantization q) {
  switch (q) {
    case vector::Quantization::kQ8: return kQuantQ8;
    case vector::Quantization::kBinary: return kQuantBin;
    default: return kQuantNone;
  }
}

size_t StoredBytes(uint64_t quant, uint32_t dim) {
  switch (quant) {
    case kQuantQ8: return dim;
    case kQuantBin: return (static_cast<size_t>(dim) + 63) / 64 * 8;
    default: return static_cast<size_t>(dim) * 4;
  }
}

// Redis's (and HotKV's, see VectorSet::Project) projection matrix entry (i, j).
float ProjectionEntry(uint32_t i, uint32_t j, uint32_t input_dim) {
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(input_dim)));
  const bool odd = (__builtin_popcount(i & j) & 1) != 0;
  return odd ? -scale : scale;
}

void PutUint(Encoder& enc, uint64_t v) {
  enc.Len(kModuleOpUint);
  enc.Len(v);
}

void PutString(Encoder& enc, std::string_view s) {
  enc.Len(kModuleOpString);
  enc.String(s);
}

bool GetUint(Reader& r, uint64_t* v) {
  uint64_t op;
  if (!r.Len(&op)) return false;
  if (op != kModuleOpUint) return r.Fail("Module value: expected an unsigned integer");
  return r.Len(v);
}

bool GetString(Reader& r, std::string* scratch, std::string_view* out) {
  uint64_t op;
  if (!r.Len(&op)) return false;
  if (op != kModuleOpString) return r.Fail("Module value: expected a string");
  return r.String(scratch, out);
}

struct Node {
  std::string label;
  std::string attributes;
  vector::RawVector raw;
  std::vector<std::vector<uint32_t>> links;  // per level, ids (1-based), sorted
};

}  // namespace

uint64_t VectorSetModuleId() {
  static constexpr char kCharset[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  uint64_t id = 0;
  for (char c : std::string_view("vectorset")) {
    id = (id << 6) | static_cast<uint64_t>(strchr(kCharset, c) - kCharset);
  }
  return id << 10;  // encoding version 0
}

bool WriteVectorSet(Encoder& enc, const Entry& e, std::string* error) {
  const VectorSet& set = *e.As<VectorSetValue>()->set;
  const vector::IndexOptions& opts = set.options();
  if (opts.metric != vector::Metric::kCosine) {
    *error = std::string("vector sets with the ") + vector::MetricName(opts.metric) +
             " metric cannot be written to an RDB file (Redis's vector sets are cosine only)";
    return false;
  }
  if (set.persistent()) {
    *error = "vector sets made by VSIM.CREATEINDEX cannot be written to an RDB file yet";
    return false;
  }
  const vector::HnswIndex& index = set.index();

  // Snapshot every element first: ids are positions + 1.
  std::vector<Node> nodes;
  nodes.reserve(index.size());
  index.ForEachElement([&](const vector::ElementView& v) {
    Node n;
    n.label.assign(v.label);
    n.attributes.assign(v.attributes);
    nodes.push_back(std::move(n));
  });
  std::unordered_map<std::string_view, uint32_t> ids;
  ids.reserve(nodes.size());
  std::vector<Node> kept;
  kept.reserve(nodes.size());
  std::vector<std::vector<std::vector<vector::Link>>> links;
  links.reserve(nodes.size());
  for (Node& n : nodes) {
    std::optional<vector::RawVector> raw = index.GetRawVector(n.label);
    std::optional<std::vector<std::vector<vector::Link>>> l = index.GetLinks(n.label);
    if (!raw || !l || l->empty()) continue;  // removed meanwhile
    if (l->size() - 1 > kMaxLevel) {
      *error = "vector set element level too high for Redis's format";
      return false;
    }
    n.raw = std::move(*raw);
    links.push_back(std::move(*l));
    kept.push_back(std::move(n));
  }
  for (uint32_t i = 0; i < kept.size(); ++i) ids.emplace(kept[i].label, i + 1);
  for (size_t i = 0; i < kept.size(); ++i) {
    kept[i].links.resize(links[i].size());
    for (size_t level = 0; level < links[i].size(); ++level) {
      for (const vector::Link& link : links[i][level]) {
        auto it = ids.find(link.label);
        if (it != ids.end() && it->second != i + 1) kept[i].links[level].push_back(it->second);
      }
      auto& v = kept[i].links[level];
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
  }
  // Redis accepts only reciprocal links: keep a -> b at level l when b -> a exists.
  auto linked = [&](uint32_t from, uint32_t to, size_t level) {
    const Node& n = kept[from - 1];
    return level < n.links.size() && std::binary_search(n.links[level].begin(), n.links[level].end(), to);
  };
  std::vector<std::vector<std::vector<uint32_t>>> mutual(kept.size());
  for (uint32_t i = 0; i < kept.size(); ++i) {
    mutual[i].resize(kept[i].links.size());
    for (size_t level = 0; level < kept[i].links.size(); ++level) {
      for (uint32_t to : kept[i].links[level]) {
        if (linked(to, i + 1, level)) mutual[i][level].push_back(to);
      }
    }
  }

  bool has_attributes = false;
  for (const Node& n : kept) has_attributes |= !n.attributes.empty();
  const uint32_t input_dim = set.projection_input_dim();
  enc.Len(VectorSetModuleId());
  PutUint(enc, opts.dim);
  PutUint(enc, kept.size());
  PutUint(enc, QuantNumber(opts.quant) | (static_cast<uint64_t>(opts.m & 0xffff) << 8));
  PutUint(enc, (input_dim ? kFlagProjection : 0) | (has_attributes ? kFlagAttributes : 0));
  if (input_dim) {
    PutUint(enc, input_dim);
    std::string matrix(static_cast<size_t>(input_dim) * opts.dim * 4, '\0');
    for (uint32_t i = 0; i < opts.dim; ++i) {
      for (uint32_t j = 0; j < input_dim; ++j) {
        float f = ProjectionEntry(i, j, input_dim);
        memcpy(&matrix[(static_cast<size_t>(i) * input_dim + j) * 4], &f, 4);
      }
    }
    PutString(enc, matrix);
  }
  std::vector<uint64_t> params;
  for (uint32_t i = 0; i < kept.size(); ++i) {
    const Node& n = kept[i];
    PutString(enc, n.label);
    if (has_attributes) PutString(enc, n.attributes);
    PutString(enc, n.raw.data);
    params.clear();
    params.push_back(i + 1);
    params.push_back(mutual[i].size() - 1);  // level; serialisation version 0
    for (size_t level = 0; level < mutual[i].size(); ++level) {
      const auto& l = mutual[i][level];
      const uint64_t cap = level == 0 ? 2ull * opts.m : opts.m;
      params.push_back(l.size());
      params.push_back(std::max<uint64_t>(cap, l.size()));
      params.insert(params.end(), l.begin(), l.end());
    }
    uint32_t l2_bits, range_bits;
    memcpy(&l2_bits, &n.raw.norm, 4);
    memcpy(&range_bits, &n.raw.q8_range, 4);
    params.push_back((static_cast<uint64_t>(range_bits) << 32) | l2_bits);
    PutUint(enc, params.size());
    for (uint64_t p : params) PutUint(enc, p);
  }
  enc.Len(kModuleOpEof);
  return true;
}

Entry* LoadVectorSet(Reader& r, std::string_view key, bool expire_block, bool* empty) {
  uint64_t dim, count, config, flags;
  if (!GetUint(r, &dim) || !GetUint(r, &count) || !GetUint(r, &config) || !GetUint(r, &flags)) {
    return nullptr;
  }
  const uint64_t quant = config & 0xff;
  uint64_t m = (config >> 8) & 0xffff;
  if (m == 0) m = 16;  // files from before M was configurable
  if (dim == 0 || dim > kMaxDim || quant > kQuantBin || m < 2 || m > 255) {
    r.Fail("Vector set with invalid dimension, quantisation or M");
    return nullptr;
  }
  // An element takes at least: label, vector, parameter count and 3 parameters, each
  // an opcode and a value.
  if (count > r.remaining() / 12) {
    r.ShortRead();
    return nullptr;
  }
  std::string s1, s2;
  uint32_t input_dim = 0;
  if (flags & kFlagProjection) {
    uint64_t in;
    std::string_view matrix;
    if (!GetUint(r, &in) || !GetString(r, &s1, &matrix)) return nullptr;
    if (in == 0 || in > kMaxDim || matrix.size() != in * dim * 4) {
      r.Fail("Vector set projection matrix of the wrong size");
      return nullptr;
    }
    input_dim = static_cast<uint32_t>(in);
    for (uint32_t i = 0; i < dim; ++i) {
      for (uint32_t j = 0; j < input_dim; ++j) {
        float f;
        memcpy(&f, matrix.data() + (static_cast<size_t>(i) * input_dim + j) * 4, 4);
        if (f != ProjectionEntry(i, j, input_dim)) {
          r.Fail("vector set projection matrix is not Redis's Hadamard matrix: not supported");
          return nullptr;
        }
      }
    }
  }
  if (count == 0) {
    uint64_t eof;
    if (!r.Len(&eof)) return nullptr;
    if (eof != kModuleOpEof) {
      r.Fail("Module value not terminated by EOF");
      return nullptr;
    }
    *empty = true;
    return nullptr;
  }
  vector::IndexOptions opts;
  opts.dim = static_cast<uint32_t>(dim);
  opts.metric = vector::Metric::kCosine;
  opts.m = static_cast<uint32_t>(m);
  opts.quant = quant == kQuantQ8   ? vector::Quantization::kQ8
               : quant == kQuantBin ? vector::Quantization::kBinary
                                    : vector::Quantization::kFloat32;
  Result<std::unique_ptr<vector::HnswIndex>> index = vector::HnswIndex::Create(opts);
  if (!index.ok()) {
    r.Fail("Vector set: " + index.status().message());
    return nullptr;
  }
  const size_t stored = StoredBytes(quant, static_cast<uint32_t>(dim));
  std::vector<float> vec(dim);
  int64_t with_attributes = 0;
  for (uint64_t e = 0; e < count; ++e) {
    std::string_view label_view, attr, data;
    if (!GetString(r, &s1, &label_view)) return nullptr;
    const std::string label(label_view);
    std::string attributes;
    if (flags & kFlagAttributes) {
      if (!GetString(r, &s2, &attr)) return nullptr;
      attributes.assign(attr);
    }
    if (!GetString(r, &s2, &data)) return nullptr;
    if (data.size() != stored) {
      r.Fail("Mismatching vector dimension");
      return nullptr;
    }
    uint64_t nparams;
    if (!GetUint(r, &nparams)) return nullptr;
    if (nparams < 3 || nparams > r.remaining() / 2) {
      r.Fail("Vector set node index loading error");
      return nullptr;
    }
    uint64_t p = 0, l2_and_range = 0;
    for (uint64_t i = 0; i < nparams; ++i) {
      if (!GetUint(r, &p)) return nullptr;
    }
    l2_and_range = p;  // the last parameter; the links are not needed to rebuild
    float l2, range;
    const uint32_t l2_bits = static_cast<uint32_t>(l2_and_range);
    const uint32_t range_bits = static_cast<uint32_t>(l2_and_range >> 32);
    memcpy(&l2, &l2_bits, 4);
    memcpy(&range, &range_bits, 4);
    // The vector as given to VADD: stored form, dequantised, times its norm; for Q8 the
    // one that quantises back to the same codes and range (vector::Q8Preimage), so VSIM
    // scores are those of the writer's set.
    if (quant == kQuantQ8) {
      vector::RawVector raw;
      raw.quant = vector::Quantization::kQ8;
      raw.data.assign(data.data(), dim);
      raw.norm = l2;
      raw.q8_range = range;
      vec = vector::Q8Preimage(raw);
    }
    for (uint32_t j = 0; j < dim && quant != kQuantQ8; ++j) {
      float x;
      if (quant == kQuantBin) {
        const bool bit = (static_cast<uint8_t>(data[j / 8]) >> (j % 8)) & 1;
        x = (bit ? 1.0f : -1.0f) / std::sqrt(static_cast<float>(dim));
      } else {
        memcpy(&x, data.data() + static_cast<size_t>(j) * 4, 4);
      }
      vec[j] = x * l2;
    }
    Result<bool> added = (*index)->Add(label, vec, attributes.empty()
                                                       ? std::nullopt
                                                       : std::optional<std::string_view>(attributes));
    if (!added.ok()) {
      r.Fail("Vector set element: " + added.status().message());
      return nullptr;
    }
    if (!*added) {
      r.Fail("Duplicate vector set elements detected");
      return nullptr;
    }
    with_attributes += !attributes.empty();
  }
  uint64_t eof;
  if (!r.Len(&eof)) return nullptr;
  if (eof != kModuleOpEof) {
    r.Fail("Module value not terminated by EOF");
    return nullptr;
  }
  VectorSetFlags vflags;
  vflags.projection_input_dim = input_dim;
  auto set = std::make_shared<VectorSet>(std::move(*index), vflags);
  set->AddAttributeCount(with_attributes);
  return Entry::NewObject(key, ValueType::kVectorSet, new VectorSetValue{std::move(set)}, expire_block);
}

}  // namespace hotkv::rdb
