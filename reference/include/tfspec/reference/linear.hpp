// X2 (spec/ALGEBRA.md, Extensions): linear layouts, the F2-linear maps Triton's LinearLayout
// describes (one basis vector per input bit; the value of an input is the XOR of the bases its
// set bits select). Not part of the seed spec: corpus cases for it are tagged `extension`.
//
// Flattening (so that a linear layout is a LayoutBase and compares with a CuTe layout): the
// input index concatenates the in-dims' bits in their listed order, the first listed in-dim
// taking the least significant bits (the shape is the tuple of in-dim sizes, read
// colexicographically as every shape is, §1 D1); the output value flattens the out-dims with the
// first listed fastest (dim0 + size(dim0) * dim1 + ...). Every size is a power of two, so both
// flattenings are concatenations of bit fields and XOR commutes with them: a basis flattens to
// one integer and apply() is the XOR of the flattened bases selected by the index's bits.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tfspec/reference/composed.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/layout.hpp"

namespace tfspec {

// The most bits an input index or an output value has: both stay inside a non-negative int64.
inline constexpr int kMaxLinearBits = 62;

struct LinearInDim {
  std::string name;
  std::vector<std::vector<int64_t>> bases;  // one vector per input bit, entries in out_dims order
  friend bool operator==(const LinearInDim&, const LinearInDim&) = default;
};
struct LinearOutDim {
  std::string name;
  int64_t size = 1;  // a power of two
  friend bool operator==(const LinearOutDim&, const LinearOutDim&) = default;
};

class LinearLayout final : public LayoutBase {
 public:
  // linear-dims (names unique, non-empty; vectors as long as out_dims), linear-size-power-of-two,
  // linear-basis-range (every entry in [0, size of its out-dim)), linear-too-large.
  LinearLayout(std::vector<LinearInDim> ins, std::vector<LinearOutDim> outs);

  LayoutKind kind() const override { return LayoutKind::Linear; }
  // The in-dims' sizes (an int for one in-dim; 1 for none), read colexicographically.
  IntTuple shape() const override;
  int64_t apply(const IntTuple& coord) const override;  // coord-in-domain outside the domain
  int64_t operator()(int64_t index) const {             // index in [0, size()), unchecked
    int64_t v = 0;  // one table lookup per byte of the index: the XOR of that byte's bases
    for (size_t c = 0; index != 0 && c < tables_.size(); ++c, index >>= 8) v ^= tables_[c][static_cast<size_t>(index & 255)];
    return v;
  }

  const std::vector<LinearInDim>& ins() const { return ins_; }
  const std::vector<LinearOutDim>& outs() const { return outs_; }
  const std::vector<int64_t>& flat_bases() const { return flat_; }  // basis k of the flat index
  int in_bits() const { return static_cast<int>(flat_.size()); }
  int out_bits() const { return out_bits_; }
  int64_t size() const { return int64_t{1} << in_bits(); }
  int64_t out_size() const { return int64_t{1} << out_bits_; }
  int in_dim_bits(size_t i) const { return static_cast<int>(ins_[i].bases.size()); }
  int rank() const;  // dimension of the image over F2

  // Triton's names: is_injective (rank == in bits), is_surjective (rank == out bits),
  // is_invertible (surjective and as many in bits as out bits).
  bool injective() const { return rank() == in_bits(); }
  bool surjective() const { return rank() == out_bits(); }
  bool invertible() const { return surjective() && in_bits() == out_bits(); }
  // An input index other than 0 that maps to 0 (a witness of non-injectivity), the smallest.
  std::optional<int64_t> kernel_witness() const;
  int64_t max_value() const;  // the largest value the layout takes (cosize - 1)

  friend bool operator==(const LinearLayout& a, const LinearLayout& b) { return a.ins_ == b.ins_ && a.outs_ == b.outs_; }

 private:
  std::vector<LinearInDim> ins_;
  std::vector<LinearOutDim> outs_;
  std::vector<int64_t> flat_;
  std::vector<std::array<int64_t, 256>> tables_;  // tables_[c][b]: XOR of the bases of byte c's set bits b
  int out_bits_ = 0;
};

// The flat bases of a layout of any kind read as an F2-linear map, decided from its structure
// where that is exact: a linear layout's own; a plain Layout with non-negative strides (every
// extent of a power-of-two size is a power of two; bit j of mode m contributes stride * 2^j, and
// a sum of such values is their XOR for every input exactly when they have pairwise disjoint bits);
// Sw<B,M,S> o 0 o such a Layout (a swizzle is linear and its own inverse). `linear` false: the
// layout is certainly not F2-linear (a carry, an offset, a negative value); no answer: its
// structure does not tell (enumerate).
struct StructuralBases {
  bool linear = false;
  std::vector<int64_t> bases;
};
std::optional<StructuralBases> structural_bases(const LayoutBase& l);

// Ops with Triton's meaning (refusals with linear-* rules where Triton asserts):
// outer(inner(x)): inner's out-dims are outer's in-dims (as sets) and each is no larger there.
LinearLayout compose(const LinearLayout& inner, const LinearLayout& outer);
LinearLayout invert(const LinearLayout& l);         // linear-not-invertible
// A B with l(B(y)) == y for every y; of the inputs l maps to y, B picks the smallest index
// (Triton's invertAndCompose picks its own; spec/ALGEBRA.md X2). linear-not-surjective.
LinearLayout pseudo_invert(const LinearLayout& l);
// Triton's operator*(inner, outer): the supremum of the two dim orders; on a shared in-dim the
// inner's bits come first (least significant), on a shared out-dim the outer's values are
// scaled past the inner's size. linear-dim-order when the orders conflict.
LinearLayout product(const LinearLayout& inner, const LinearLayout& outer);
// Re-split the flattened input (output) into the given dims; the total size is kept.
LinearLayout reshape_ins(const LinearLayout& l, const std::vector<std::pair<std::string, int64_t>>& dims);
LinearLayout reshape_outs(const LinearLayout& l, const std::vector<std::pair<std::string, int64_t>>& dims);
// Reorder the dims (a permutation of the names); the function of named inputs is unchanged.
LinearLayout transpose_ins(const LinearLayout& l, const std::vector<std::string>& order);
LinearLayout transpose_outs(const LinearLayout& l, const std::vector<std::string>& order);

// Conversions (exact, or refused with the reason):
// A CuTe layout (a plain Layout, or Sw<B,M,S> o off o Layout) with power-of-two extents whose
// function is F2-linear -> one in-dim (or the given dims) and the out-dims given (default one
// "offset" dim of the smallest power of two above the largest offset). linear-not-f2 names the
// first index where the layout is not the XOR of its bases.
LinearLayout to_linear(const LayoutBase& l, const std::vector<std::pair<std::string, int64_t>>& ins,
                       const std::vector<std::pair<std::string, int64_t>>& outs);
// A linear layout as a CuTe layout of the same flattened function: a plain Layout when the
// flattened bases have pairwise disjoint bits, else Sw<B,M,S> o 0 o Layout for the first swizzle
// (smallest B, then M, then S) that makes them so; linear-not-cute otherwise.
LayoutPtr to_cute(const LinearLayout& l);

// The direction of a linear layout (X2, spec/ALGEBRA.md "Direction"), one rule for every op that
// reads a layout as tile index -> offset (banks, vector_width, kernel check's smem, equivalent's
// note): an in-dim named `offset` with bits is Triton's shared-memory direction, offset ->
// coordinates; in-dims without bases (size 1, such as Triton's `block` on one CTA) never count;
// any other layout maps its input (coordinates, a tile index) to its value.
enum class LinearDirection { ToValue, FromOffset };
LinearDirection direction(const LinearLayout& l);
// `l` as tile index -> offset: itself, or its inverse when it reads FromOffset (the in-dims of
// size 1 dropped first; the other in-dims with bits stay part of the flattened input;
// linear-not-invertible when it is no bijection). `said` is the sentence an answer prints.
LinearLayout as_tile_to_offset(const LinearLayout& l, std::string& said);

std::string to_string(const LinearLayout& l);  // linear[in=[(..),..], ... -> out=size, ...]
// The one-line notation above, or Triton's own printout (" - lane=1 -> (1, 0)" lines and
// "where out dims are: [dim0 (size 4), ...]"). parse-error otherwise.
LinearLayout parse_linear_layout(std::string_view text);
bool is_linear_text(std::string_view text);
Json linear_to_json(const LinearLayout& l);
LinearLayout linear_from_json(const Json& j);

// "lane=32,warp=4" -> {("lane",32),("warp",4)}; "" -> {}. parse-error on a malformed list.
std::vector<std::pair<std::string, int64_t>> parse_dim_sizes(std::string_view text);

}  // namespace tfspec
