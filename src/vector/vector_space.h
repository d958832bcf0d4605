// VectorSpace: how a vector of one index is encoded, stored and compared.
//
// A stored vector is a fixed-size "record" of record_bytes() bytes:
//   kFloat32  dim floats (unit length for cosine).
//   kQ8       float scale, float squared norm of the dequantised vector, dim int8 codes.
//   kBinary   ceil(dim/64) 64-bit words of sign bits.
// Queries are encoded into the same record format, so Distance() always compares two
// records. Encode also reports the original L2 norm (so cosine vectors can be
// returned de-normalised, like Redis's VEMB).
//
// Thread safety: immutable after construction; all methods are const and thread-safe.
#ifndef HOTKV_VECTOR_VECTOR_SPACE_H_
#define HOTKV_VECTOR_VECTOR_SPACE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "vector/distance.h"
#include "common/status.h"
#include "vector/types.h"

namespace hotkv::vector {

class VectorSpace {
 public:
  VectorSpace(uint32_t dim, Metric metric, Quantization quant);
  VectorSpace(uint32_t dim, Metric metric, Quantization quant, const DistanceKernels& kernels);

  // Checks that options describe a valid space (dimension range, metric/quantisation
  // combination).
  static Status Validate(uint32_t dim, Metric metric, Quantization quant);

  uint32_t dim() const { return dim_; }
  Metric metric() const { return metric_; }
  Quantization quant() const { return quant_; }
  size_t record_bytes() const { return record_bytes_; }

  // Checks dimension and that every component is finite.
  Status CheckInput(std::span<const float> vec) const;

  // Encodes `vec` (already checked) into `record` (record_bytes() bytes). Returns the
  // L2 norm of the input.
  // With want_norm false (queries), the norm is computed only where encoding needs it
  // (cosine) and 0 is returned otherwise; the record is the same.
  float Encode(std::span<const float> vec, uint8_t* record, bool want_norm = true) const;

  // The (approximate, for quantised storage) original vector: dequantised and, for
  // cosine, multiplied back by `norm`.
  std::vector<float> Decode(const uint8_t* record, float norm) const;

  // Distance between two records; see types.h for its meaning per metric.
  float Distance(const uint8_t* a, const uint8_t* b) const {
    switch (kind_) {
      case Kind::kF32L2:
        return kernels_->l2_f32(AsFloat(a), AsFloat(b), dim_);
      case Kind::kF32Dot:
        return 1.0f - kernels_->dot_f32(AsFloat(a), AsFloat(b), dim_);
      case Kind::kQ8Dot:
        return 1.0f - Q8Scale(a) * Q8Scale(b) * static_cast<float>(kernels_->dot_i8(
                                                     Q8Codes(a), Q8Codes(b), dim_));
      case Kind::kQ8L2:
        return Q8L2(a, b);
      case Kind::kBinary:
        return static_cast<float>(kernels_->hamming(AsWords(a), AsWords(b), words_)) *
               inv_half_dim_;
    }
    return 0.0f;
  }

 private:
  enum class Kind : uint8_t { kF32L2, kF32Dot, kQ8Dot, kQ8L2, kBinary };

  static const float* AsFloat(const uint8_t* p) { return reinterpret_cast<const float*>(p); }
  static const uint64_t* AsWords(const uint8_t* p) {
    return reinterpret_cast<const uint64_t*>(p);
  }
  static float Q8Scale(const uint8_t* p) { return AsFloat(p)[0]; }
  static float Q8SqNorm(const uint8_t* p) { return AsFloat(p)[1]; }
  static const int8_t* Q8Codes(const uint8_t* p) {
    return reinterpret_cast<const int8_t*>(p + 2 * sizeof(float));
  }
  float Q8L2(const uint8_t* a, const uint8_t* b) const {
    float dot = Q8Scale(a) * Q8Scale(b) *
                static_cast<float>(kernels_->dot_i8(Q8Codes(a), Q8Codes(b), dim_));
    float d = Q8SqNorm(a) + Q8SqNorm(b) - 2.0f * dot;
    return d > 0.0f ? d : 0.0f;
  }

  uint32_t dim_;
  Metric metric_;
  Quantization quant_;
  Kind kind_;
  size_t record_bytes_;
  size_t words_;         // Binary: 64-bit words per record.
  float inv_half_dim_;   // Binary: 2 / dim.
  const DistanceKernels* kernels_;
};

}  // namespace hotkv::vector

#endif  // HOTKV_VECTOR_VECTOR_SPACE_H_
