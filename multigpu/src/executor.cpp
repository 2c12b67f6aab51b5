// What every executor shares (spec/MULTIGPU.md "Executing a plan"): the element codec (values
// travel as the plan's dtype, the bytes the plan prices), the byte model an executor counts its
// own calls with, and step names for messages.
#include "tfspec/multigpu/executor.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::multigpu {

Dtype dtype_of(std::string_view name) {
  Dtype t;
  t.name = dtype_name(name);
  t.bytes = dtype_bytes(t.name);
  if (t.name.starts_with("int")) t.kind = Dtype::Kind::Signed;
  else if (t.name.starts_with("uint")) t.kind = Dtype::Kind::Unsigned;
  else if (t.name == "float16") t.kind = Dtype::Kind::Half;
  else if (t.name == "bfloat16") t.kind = Dtype::Kind::BFloat;
  else t.kind = Dtype::Kind::Float;
  return t;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  const uint32_t bits = exp == 31 ? sign | 0x7f800000u | (mant << 13) : sign | ((exp - 15 + 127) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// IEEE binary16, rounding to nearest even (a carry out of the mantissa correctly bumps the exponent).
uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  uint32_t mant = x & 0x7fffff;
  const int exp = static_cast<int>((x >> 23) & 0xff);
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  const int e = exp - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  auto rounded = [](uint32_t kept, uint32_t rest, uint32_t half) { return kept + (rest > half || (rest == half && (kept & 1)) ? 1 : 0); };
  if (e <= 0) {  // a subnormal half: (1.mant) * 2^(exp-127) / 2^-24
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    const uint32_t shift = static_cast<uint32_t>(14 - e);
    return static_cast<uint16_t>(sign | rounded(mant >> shift, mant & ((1u << shift) - 1), 1u << (shift - 1)));
  }
  return static_cast<uint16_t>(sign | rounded((static_cast<uint32_t>(e) << 10) | (mant >> 13), mant & 0x1fff, 0x1000));
}

float bfloat_to_float(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_bfloat(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40);
  return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

namespace {

template <class T>
void put(unsigned char* out, T v) {
  std::memcpy(out, &v, sizeof v);
}
template <class T>
T get(const unsigned char* in) {
  T v;
  std::memcpy(&v, in, sizeof v);
  return v;
}

int64_t decode_one(const Dtype& t, const unsigned char* p) {
  switch (t.kind) {
    case Dtype::Kind::Signed:
      return t.bytes == 1 ? get<int8_t>(p) : t.bytes == 4 ? get<int32_t>(p) : get<int64_t>(p);
    case Dtype::Kind::Unsigned:
      return t.bytes == 1 ? get<uint8_t>(p) : t.bytes == 4 ? get<uint32_t>(p) : static_cast<int64_t>(get<uint64_t>(p));
    case Dtype::Kind::Half: return static_cast<int64_t>(half_to_float(get<uint16_t>(p)));
    case Dtype::Kind::BFloat: return static_cast<int64_t>(bfloat_to_float(get<uint16_t>(p)));
    case Dtype::Kind::Float: return t.bytes == 4 ? static_cast<int64_t>(get<float>(p)) : static_cast<int64_t>(get<double>(p));
  }
  return 0;
}

void encode_one(const Dtype& t, int64_t v, unsigned char* p) {
  switch (t.kind) {
    case Dtype::Kind::Signed:
      if (t.bytes == 1) put(p, static_cast<int8_t>(v));
      else if (t.bytes == 4) put(p, static_cast<int32_t>(v));
      else put(p, v);
      return;
    case Dtype::Kind::Unsigned:
      if (t.bytes == 1) put(p, static_cast<uint8_t>(v));
      else if (t.bytes == 4) put(p, static_cast<uint32_t>(v));
      else put(p, static_cast<uint64_t>(v));
      return;
    case Dtype::Kind::Half: put(p, float_to_half(static_cast<float>(v))); return;
    case Dtype::Kind::BFloat: put(p, float_to_bfloat(static_cast<float>(v))); return;
    case Dtype::Kind::Float:
      if (t.bytes == 4) put(p, static_cast<float>(v));
      else put(p, static_cast<double>(v));
      return;
  }
}

}  // namespace

std::vector<unsigned char> encode(const Dtype& t, const std::vector<int64_t>& values) {
  std::vector<unsigned char> out(values.size() * static_cast<size_t>(t.bytes));
  for (size_t i = 0; i < values.size(); ++i) {
    unsigned char* p = out.data() + i * static_cast<size_t>(t.bytes);
    encode_one(t, values[i], p);
    // Exactness: the comparison with the reference is element for element, so no rounding.
    if (decode_one(t, p) != values[i])
      fail(rule::kInternal, "the value " + std::to_string(values[i]) + " is not exact in " + t.name);
  }
  return out;
}

std::vector<int64_t> decode(const Dtype& t, const std::vector<unsigned char>& bytes) {
  std::vector<int64_t> out(bytes.size() / static_cast<size_t>(t.bytes));
  for (size_t i = 0; i < out.size(); ++i) out[i] = decode_one(t, bytes.data() + i * static_cast<size_t>(t.bytes));
  return out;
}

// spec/MULTIGPU.md "The byte model": all-gather and reduce-scatter forward n-1 blocks of `count`
// each way; the ring all-reduce splits N = count into chunks c_0..c_(n-1) (floor(N/n), the first
// N mod n one more) and rank r sends 2N - c_r - c_(r+1), receives 2N - c_(r-1) - c_r.
DeviceBytes ring_elements(CollectiveKind kind, int64_t count, int64_t n, int64_t position) {
  if (n <= 1) return {};
  switch (kind) {
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter: return {(n - 1) * count, (n - 1) * count};
    case CollectiveKind::AllReduce: {
      auto chunk = [&](int64_t i) { return count / n + ((i + n) % n < count % n ? 1 : 0); };
      return {2 * count - chunk(position) - chunk(position + 1), 2 * count - chunk(position - 1) - chunk(position)};
    }
    default: fail(rule::kInternal, "ring_elements prices the ring collectives only");
  }
}

std::string describe_step(const Plan& plan, size_t index) {
  std::string s = "step " + std::to_string(index) + " (";
  if (index >= plan.steps.size()) return s + "after the plan)";
  if (const auto* c = std::get_if<LocalCopy>(&plan.steps[index]))
    return s + "local " + to_string(c->from) + "->" + to_string(c->to) + " on device " + std::to_string(c->device) + ")";
  const auto& c = std::get<Collective>(plan.steps[index]);
  s += nccl_name(c.kind);
  if (c.mesh_axis >= 0 && static_cast<size_t>(c.mesh_axis) < plan.axis_names.size()) s += " along " + plan.axis_names[static_cast<size_t>(c.mesh_axis)];
  if (!c.groups.empty()) {
    s += ", groups [";
    for (size_t g = 0; g < c.groups.size(); ++g) {
      s += g ? " [" : "[";
      for (size_t i = 0; i < c.groups[g].size(); ++i) s += (i ? "," : "") + std::to_string(c.groups[g][i]);
      s += "]";
    }
    s += "]";
  }
  return s + ")";
}

}  // namespace tfspec::multigpu
