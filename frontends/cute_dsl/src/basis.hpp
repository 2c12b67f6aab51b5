// Coordinate layouts (spec/CUTE_DSL.md §2.2), private to frontends/cute_dsl/src: CuTe's basis
// strides `n@k` encoded as n R^k so that the reference's integer algebra and evaluation apply; used
// by the translation validation (validate.cpp) and the MMA partitions of coordinate tensors
// (mma_partition.cpp).
#pragma once
#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec::cute_dsl {

// §2.2 Coordinate layouts: CuTe's basis strides `n@k` (ScaledBasis, n times the unit vector of
// coordinate mode k) map an index to a tuple of coordinates. The ops that only scale A's strides
// by integers and compare scaled strides (composition and the divides of a coordinate A by a plain
// B, coalesce) commute with the encoding n@k -> n R^k of a coordinate tuple as one integer in radix
// R, as long as no coordinate reaches R / 2 (no carry: the encoding is then one-to-one, and a
// scaled stride equals another only within one mode k). So the reference computes the op on the
// encoded integers, and both results are compared point by point, decoded back to coordinates.
struct BasisCode {
  int modes = 0;       // K: the coordinate tuple's length (1 + the largest k named)
  int64_t radix = 0;   // R = 2^floor(62 / K)
};

// `n@k` leaves of a static CuTe layout string replaced by n R^k; nullopt (with why) where a leaf is
// another basis form (`1@0@1`, a negative n) or a stride beside the bases is a plain nonzero integer.
inline std::optional<std::string> basis_encoded(const std::string& text, const BasisCode& c, std::string& why) {
  static const std::regex leaf("-?[0-9]+(@[0-9]+)*");
  const size_t colon = text.rfind(':');
  const std::string strides = colon == std::string::npos ? std::string() : text.substr(colon + 1);
  for (std::sregex_iterator it(strides.begin(), strides.end(), leaf), end; it != end; ++it)
    if (it->str().find('@') == std::string::npos && it->str() != "0") {
      why = "a plain stride " + it->str() + " beside basis strides in " + text;
      return std::nullopt;
    }
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t at = text.find('@', i);
    if (at == std::string::npos) { out += text.substr(i); break; }
    size_t a = at;
    while (a > i && std::isdigit(static_cast<unsigned char>(text[a - 1]))) --a;
    size_t b = at + 1;
    while (b < text.size() && std::isdigit(static_cast<unsigned char>(text[b]))) ++b;
    if (a == at || b == at + 1 || (b < text.size() && text[b] == '@') || (a > 0 && text[a - 1] == '-')) {
      why = "a basis stride other than n@k with n, k >= 0 in " + text;
      return std::nullopt;
    }
    const int64_t n = std::stoll(text.substr(a, at - a)), k = std::stoll(text.substr(at + 1, b - at - 1));
    int64_t scale = 1;
    for (int64_t j = 0; j < k; ++j) scale *= c.radix;
    out += text.substr(i, a - i) + std::to_string(checked_mul(n, scale));
    i = b;
  }
  return out;
}

// The coordinates of an encoded value (K digits in radix R).
inline std::vector<int64_t> basis_digits(int64_t v, const BasisCode& c) {
  std::vector<int64_t> d(static_cast<size_t>(c.modes));
  for (int64_t& x : d) x = v % c.radix, v /= c.radix;
  return d;
}

inline std::string coordinate_text(const std::vector<int64_t>& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + ")";
}

// Each stride of an encoded coordinate layout is one n@k or 0 (else why): the largest coordinate
// each mode k reaches, sum of (extent - 1) n over its leaves, must stay below R / 2.
inline bool basis_bounded(const Layout& l, const BasisCode& c, std::string& why) {
  std::vector<int64_t> reach(static_cast<size_t>(c.modes), 0);
  const std::vector<IntTuple> shape = flat_leaves(l.shape_ref()), stride = flat_leaves(l.stride());
  for (size_t i = 0; i < shape.size(); ++i) {
    const std::vector<int64_t> d = basis_digits(stride[i].value(), c);
    if (std::count_if(d.begin(), d.end(), [](int64_t x) { return x != 0; }) > 1 || stride[i].value() < 0) {
      why = "a stride that is no single n@k: " + std::to_string(stride[i].value());
      return false;
    }
    for (size_t k = 0; k < d.size(); ++k) reach[k] = checked_add(reach[k], checked_mul(shape[i].value() - 1, d[k]));
  }
  for (const int64_t r : reach)
    if (r >= c.radix / 2) {
      why = "a coordinate reaches " + std::to_string(r) + ", past the encoding's range " + std::to_string(c.radix / 2);
      return false;
    }
  return true;
}

}  // namespace tfspec::cute_dsl
