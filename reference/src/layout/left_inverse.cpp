// §3 left_inverse (spec/ALGEBRA.md A8): pycute's construction, and where it is refused or leaves
// offsets uncovered the digit-aligned search below (D17, issue 44; the search is complete for
// left inverses of that form only, see A8).
#include <algorithm>
#include <numeric>
#include <optional>
#include <set>

#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec {
namespace {

void push_ints(const IntTuple& t, std::vector<int64_t>& out) {
  if (t.is_leaf()) {
    out.push_back(require_int(t, "left_inverse"));
    return;
  }
  for (const auto& c : t.children()) push_ints(c, out);
}

// One mode of L that moves the offset: stride d, extent s, and e, the index step of that mode
// (its compact stride in L's colexicographic domain, D1).
struct Mode {
  int64_t d, s, e;
};

// The divisors of n (n >= 1) in decreasing order; nullopt past a trial-division budget.
std::optional<std::vector<int64_t>> divisors(int64_t n) {
  std::vector<std::pair<int64_t, int>> primes;
  int64_t steps = 0;
  for (int64_t p = 2; p <= n / p; ++p) {
    if (++steps > (int64_t{1} << 22)) return std::nullopt;
    int k = 0;
    while (n % p == 0) n /= p, ++k;
    if (k) primes.emplace_back(p, k);
  }
  if (n > 1) primes.emplace_back(n, 1);
  std::vector<int64_t> out{1};
  for (auto [p, k] : primes) {
    const size_t m = out.size();
    int64_t f = 1;
    for (int i = 0; i < k; ++i) {
      f *= p;
      for (size_t j = 0; j < m; ++j) out.push_back(out[j] * f);
    }
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

// R as digits over the offset, least significant first. Block j of consecutive sorted modes sits
// in one digit of R with base P_j: P_j divides their strides, P_{j-1} divides P_j, the modes below
// reach less than P_j, and the digit's stride t_j = e * P_j / d is one integer for every mode of
// the block. Then R(L(i)) == i: the digit holds the block's sum of c * d / P_j, and t_j times that
// is the block's sum of c * e; every other digit (below P_1, past the last block) has stride 0.
class DigitSearch {
 public:
  DigitSearch(std::vector<Mode> modes, int64_t cosize) : m_(std::move(modes)), cosize_(cosize) {
    below_.push_back(0);
    for (const Mode& x : m_) below_.push_back(checked_add(below_.back(), checked_mul(x.s - 1, x.d)));
  }
  // The digits (radix, stride) of R, or nullopt when no digit-aligned left inverse exists.
  std::optional<std::vector<std::pair<int64_t, int64_t>>> solve() {
    digits_ = {{1, 0}};  // the digit below the first block (stride 0); its radix is P_1
    if (!from(0, 1)) return std::nullopt;
    return digits_;
  }
  bool exhausted = false;  // the budget ran out: no answer either way

 private:
  // Blocks from mode k on; the last digit of digits_ starts at `base`, its radix still open.
  bool from(size_t k, int64_t base) {
    if (k == m_.size()) {
      digits_.back().first = ceil_div(cosize_, base);  // R covers [0, cosize(L))
      return true;
    }
    if (exhausted || failed_.count({k, base})) return false;
    int64_t g = 0;
    const Mode& a = m_[k];
    for (size_t end = k + 1; end <= m_.size(); ++end) {
      const Mode& b = m_[end - 1];
      if (static_cast<__int128>(a.e) * b.d != static_cast<__int128>(b.e) * a.d) break;  // one stride per digit
      g = std::gcd(g, b.d);
      const auto ds = divisors(g);
      if (!ds) {
        exhausted = true;
        return false;
      }
      for (int64_t p : *ds) {  // the largest base first
        if (++steps_ > (int64_t{1} << 20)) {
          exhausted = true;
          return false;
        }
        if (p % base != 0 || p <= below_[k] || (static_cast<__int128>(a.e) * p) % a.d != 0) continue;
        digits_.back().first = p / base;
        digits_.emplace_back(1, static_cast<int64_t>(static_cast<__int128>(a.e) * p / a.d));
        if (from(end, p)) return true;
        digits_.pop_back();
      }
    }
    failed_.insert({k, base});
    return false;
  }

  std::vector<Mode> m_;
  int64_t cosize_;
  std::vector<int64_t> below_;  // below_[k]: the largest offset the modes before k reach
  std::vector<std::pair<int64_t, int64_t>> digits_;
  std::set<std::pair<size_t, int64_t>> failed_;
  int64_t steps_ = 0;
};

}  // namespace

// §3 (pycute): R(L(i)) == i for injective L, L(R(L(i))) == L(i) otherwise; R covers [0, cosize(L)).
Layout left_inverse(const Layout& l) {
  std::optional<SpecError> cute;
  try {
    Layout r = right_inverse(make_layout({l, complement(l, 1)}));
    if (r.size() >= l.cosize()) return r;
    cute = SpecError(rule::kLeftInverseGaps, "left_inverse of " + to_string(l) + ": (L, complement(L)) covers only [0, " + std::to_string(r.size()) +
                                                 ") of L's offsets [0, " + std::to_string(l.cosize()) + "), and no digit-aligned left inverse exists (A8)");
  } catch (const SpecError& e) {
    cute = e;
  }
  std::vector<int64_t> shape, stride;
  push_ints(l.shape_ref(), shape);
  push_ints(l.stride(), stride);
  std::vector<Mode> modes;
  int64_t e = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (stride[i] < 0 && shape[i] > 1) throw *cute;
    if (stride[i] > 0 && shape[i] > 1) modes.push_back({stride[i], shape[i], e});
    e = checked_mul(e, shape[i]);
  }
  std::sort(modes.begin(), modes.end(), [](const Mode& a, const Mode& b) { return a.d < b.d; });
  DigitSearch search(modes, l.cosize());
  const auto digits = search.solve();
  if (search.exhausted) fail(rule::kResourceLimit, "left_inverse of " + to_string(l) + ": the search for a digit-aligned left inverse ran past its budget");
  if (!digits) throw *cute;
  std::vector<Layout> parts;
  for (auto [r, t] : *digits) parts.emplace_back(IntTuple(r), IntTuple(t));
  return coalesce(make_layout(parts));
}

}  // namespace tfspec
