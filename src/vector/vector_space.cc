#include "vector/vector_space.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace hotkv::vector {
namespace {

constexpr uint32_t kMaxDim = 65536;

}  // namespace

const char* MetricName(Metric metric) {
  switch (metric) {
    case Metric::kCosine:
      return "cosine";
    case Metric::kL2:
      return "l2";
    case Metric::kInnerProduct:
      return "ip";
  }
  return "unknown";
}

std::vector<float> Q8Preimage(const RawVector& raw) {
  const size_t dim = raw.data.size();
  const double range = raw.q8_range;
  std::vector<double> u(dim);
  int top = 0;  // the largest |code| (127 unless the vector is zero)
  for (size_t j = 0; j < dim; j++) {
    const int code = static_cast<int8_t>(raw.data[j]);
    u[j] = code * range / 127.0;
    top = std::max(top, std::abs(code));
  }
  // The components at the largest code stay at +-range (they set the range).
  auto fixed = [&](size_t j) { return std::abs(static_cast<int8_t>(raw.data[j])) == top; };
  double rest = 0.0, target = 1.0;
  for (size_t j = 0; j < dim; j++) {
    (fixed(j) ? target : rest) += (fixed(j) ? -1.0 : 1.0) * u[j] * u[j];
  }
  if (top > 0 && rest > 0.0 && target > 0.0) {
    const double scale = std::sqrt(target / rest);
    bool ok = true;
    for (size_t j = 0; j < dim && ok; j++) {
      const int code = static_cast<int8_t>(raw.data[j]);
      ok = fixed(j) || (std::abs(code * scale - code) < 0.45 && std::abs(code * scale) < top);
    }
    if (ok) {
      for (size_t j = 0; j < dim; j++) {
        u[j] = fixed(j) ? u[j] : u[j] * scale;
      }
    }
  }
  std::vector<float> out(dim);
  for (size_t j = 0; j < dim; j++) {
    out[j] = static_cast<float>(u[j] * raw.norm);
  }
  return out;
}

const char* QuantizationName(Quantization quant) {
  switch (quant) {
    case Quantization::kFloat32:
      return "f32";
    case Quantization::kQ8:
      return "q8";
    case Quantization::kBinary:
      return "bin";
  }
  return "unknown";
}

double SimilarityFromDistance(Metric metric, double distance) {
  switch (metric) {
    case Metric::kCosine:
    case Metric::kInnerProduct:
      return 1.0 - distance / 2.0;
    case Metric::kL2:
      return 1.0 / (1.0 + distance);
  }
  return 0.0;
}

double DistanceFromSimilarity(Metric metric, double similarity) {
  switch (metric) {
    case Metric::kCosine:
    case Metric::kInnerProduct:
      return 2.0 * (1.0 - similarity);
    case Metric::kL2:
      return similarity <= 0.0 ? HUGE_VAL : 1.0 / similarity - 1.0;
  }
  return 0.0;
}

VectorSpace::VectorSpace(uint32_t dim, Metric metric, Quantization quant)
    : VectorSpace(dim, metric, quant, BestKernels()) {}

VectorSpace::VectorSpace(uint32_t dim, Metric metric, Quantization quant,
                         const DistanceKernels& kernels)
    : dim_(dim),
      metric_(metric),
      quant_(quant),
      words_((dim + 63) / 64),
      inv_half_dim_(dim == 0 ? 0.0f : 2.0f / static_cast<float>(dim)),
      kernels_(&kernels) {
  switch (quant) {
    case Quantization::kFloat32:
      kind_ = metric == Metric::kL2 ? Kind::kF32L2 : Kind::kF32Dot;
      record_bytes_ = sizeof(float) * dim;
      break;
    case Quantization::kQ8:
      kind_ = metric == Metric::kL2 ? Kind::kQ8L2 : Kind::kQ8Dot;
      record_bytes_ = 2 * sizeof(float) + dim;
      break;
    case Quantization::kBinary:
      kind_ = Kind::kBinary;
      record_bytes_ = sizeof(uint64_t) * words_;
      break;
  }
}

Status VectorSpace::Validate(uint32_t dim, Metric metric, Quantization quant) {
  if (dim == 0 || dim > kMaxDim) {
    return Status::InvalidArgument("vector dimension must be between 1 and " +
                                   std::to_string(kMaxDim));
  }
  if (quant == Quantization::kBinary && metric != Metric::kCosine) {
    return Status::InvalidArgument("binary quantization supports only the cosine metric");
  }
  return Status::Ok();
}

Status VectorSpace::CheckInput(std::span<const float> vec) const {
  if (vec.size() != dim_) {
    return Status::InvalidArgument("vector dimension mismatch: got " + std::to_string(vec.size()) +
                                   ", index has " + std::to_string(dim_));
  }
  for (size_t i = 0; i < vec.size(); ++i) {
    if (!std::isfinite(vec[i])) {
      return Status::InvalidArgument("vector component " + std::to_string(i) +
                                     " is not a finite number");
    }
  }
  return Status::Ok();
}

float VectorSpace::Encode(std::span<const float> vec, uint8_t* record, bool want_norm) const {
  double sq = 0.0;
  if (want_norm || metric_ == Metric::kCosine) {
    for (float x : vec) {
      sq += static_cast<double>(x) * x;
    }
  }
  const float norm = static_cast<float>(std::sqrt(sq));
  // Cosine compares directions: normalise once here. A zero vector stays zero.
  const float mul = (metric_ == Metric::kCosine && norm > 0.0f) ? 1.0f / norm : 1.0f;

  switch (quant_) {
    case Quantization::kFloat32: {
      float* out = reinterpret_cast<float*>(record);
      for (uint32_t i = 0; i < dim_; ++i) {
        out[i] = vec[i] * mul;
      }
      break;
    }
    case Quantization::kQ8: {
      float max_abs = 0.0f;
      for (uint32_t i = 0; i < dim_; ++i) {
        max_abs = std::max(max_abs, std::fabs(vec[i] * mul));
      }
      const float scale = max_abs / 127.0f;
      const float inv = max_abs > 0.0f ? 127.0f / max_abs : 0.0f;
      int8_t* codes = reinterpret_cast<int8_t*>(record + 2 * sizeof(float));
      int64_t sum_sq = 0;
      for (uint32_t i = 0; i < dim_; ++i) {
        // Round to nearest, ties to even, as std::nearbyint in the default rounding mode
        // (|q| <= 127.5 << 2^22), without its library call per component: adding and
        // subtracting 1.5 * 2^23 leaves no fraction bits. The empty asm keeps q a rounded
        // float (no fused multiply-add into the addition where FMA is enabled).
        float q = vec[i] * mul * inv;
        asm("" : "+x"(q));
        q = (q + 0x1.8p23f) - 0x1.8p23f;
        q = std::min(127.0f, std::max(-127.0f, q));
        codes[i] = static_cast<int8_t>(q);
        sum_sq += static_cast<int64_t>(codes[i]) * codes[i];
      }
      const float header[2] = {scale, static_cast<float>(static_cast<double>(sum_sq) * scale * scale)};
      std::memcpy(record, header, sizeof(header));
      break;
    }
    case Quantization::kBinary: {
      uint64_t* words = reinterpret_cast<uint64_t*>(record);
      std::memset(words, 0, sizeof(uint64_t) * words_);
      for (uint32_t i = 0; i < dim_; ++i) {
        if (vec[i] > 0.0f) {
          words[i / 64] |= uint64_t{1} << (i % 64);
        }
      }
      break;
    }
  }
  return norm;
}

std::vector<float> VectorSpace::Decode(const uint8_t* record, float norm) const {
  std::vector<float> out(dim_);
  const float denorm = metric_ == Metric::kCosine ? norm : 1.0f;
  switch (quant_) {
    case Quantization::kFloat32: {
      const float* in = AsFloat(record);
      for (uint32_t i = 0; i < dim_; ++i) {
        out[i] = in[i] * denorm;
      }
      break;
    }
    case Quantization::kQ8: {
      const float scale = Q8Scale(record) * denorm;
      const int8_t* codes = Q8Codes(record);
      for (uint32_t i = 0; i < dim_; ++i) {
        out[i] = static_cast<float>(codes[i]) * scale;
      }
      break;
    }
    case Quantization::kBinary: {
      // Each component is +-1/sqrt(dim) so the decoded vector has the original norm.
      const float mag = denorm / std::sqrt(static_cast<float>(dim_));
      const uint64_t* words = AsWords(record);
      for (uint32_t i = 0; i < dim_; ++i) {
        out[i] = ((words[i / 64] >> (i % 64)) & 1) ? mag : -mag;
      }
      break;
    }
  }
  return out;
}

}  // namespace hotkv::vector
