// Shared-memory access analysis: the model of spec/SMEM.md, written out directly.
#include "tfspec/reference/smem.hpp"

#include <algorithm>
#include <functional>

#include "tfspec/reference/checked.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/swizzle.hpp"

namespace tfspec {
namespace {

// The most (thread, value) pairs one request enumerates.
constexpr int64_t kMaxTvPairs = int64_t{1} << 18;

// The widest access a thread makes in one instruction (LDS.128 / STS.128).
constexpr int64_t kMaxAccessBytes = 16;

bool power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

// tile index -> element offset; the plain and swizzled kinds without building IntTuples.
std::function<int64_t(int64_t)> offset_fn(const LayoutBase& smem) {
  if (smem.kind() == LayoutKind::Layout) {
    const auto& l = static_cast<const Layout&>(smem);
    return [&l](int64_t i) { return l(i); };
  }
  if (smem.kind() == LayoutKind::Composed) {
    const auto& c = static_cast<const ComposedLayout&>(smem);
    if (c.inner() && c.inner()->kind() == LayoutKind::Swizzle && c.outer() && c.outer()->kind() == LayoutKind::Layout) {
      const auto& sw = static_cast<const Swizzle&>(*c.inner());
      const auto& outer = static_cast<const Layout&>(*c.outer());
      const int64_t off = c.offset();
      return [&sw, &outer, off](int64_t i) { return sw(checked_add(off, outer(i))); };
    }
  }
  return [&smem](int64_t i) { return smem.apply(IntTuple(i)); };
}

std::string at(int64_t t, int64_t v) { return "thread " + std::to_string(t) + ", value " + std::to_string(v); }

void validate(const SmemAccess& a) {
  const auto bad = [](const std::string& m) { fail(rule::kSmemAccessParams, m); };
  if (!power_of_two(a.elem_bytes) || a.elem_bytes > kMaxAccessBytes) bad("--elem-bytes is 1, 2, 4, 8 or 16; got " + std::to_string(a.elem_bytes));
  if (a.vector < 1 || a.vector > kMaxAccessBytes || !power_of_two(a.vector * a.elem_bytes) || a.vector * a.elem_bytes > kMaxAccessBytes)
    bad("--vector V moves V * elem-bytes = 1, 2, 4, 8 or 16 bytes per thread; got V = " + std::to_string(a.vector) + " of " +
        std::to_string(a.elem_bytes) + " bytes");
  if (a.model.banks < 1 || a.model.banks > 1024 || a.model.bank_bytes < 1 || a.model.bank_bytes > 64)
    bad("--banks is 1..1024 and --bank-bytes 1..64");
}

// Words of one phase as (bank, word) pairs, and the threads that touch each.
struct Touch {
  int64_t bank, word, thread;
};

PhaseCost cost_phase(const std::vector<int64_t>& off, const BankReport& r, const SmemAccess& a, int64_t warp, int64_t access, int64_t phase) {
  PhaseCost p;
  p.warp = warp;
  p.access = access;
  p.phase = phase;
  p.first_thread = warp * a.model.warp_size + phase * r.phase_threads;
  p.threads = std::min(r.phase_threads, r.threads - p.first_thread);
  std::vector<Touch> touches;
  for (int64_t t = p.first_thread; t < p.first_thread + p.threads; ++t) {
    const int64_t o = off[static_cast<size_t>(t * r.values + access * a.vector)];
    if (o < 0) continue;  // a lane that takes no part in this access (table form only)
    const int64_t byte = checked_mul(o, a.elem_bytes);
    const int64_t last = checked_add(byte, r.access_bytes - 1);  // an offset near INT64_MAX: the overflow rule, not UB
    for (int64_t w = byte / a.model.bank_bytes, end = last / a.model.bank_bytes;; ++w) {
      touches.push_back({w % a.model.banks, w, t});
      if (w == end) break;  // never past INT64_MAX
    }
  }
  std::sort(touches.begin(), touches.end(), [](const Touch& x, const Touch& y) {
    return std::tie(x.bank, x.word, x.thread) < std::tie(y.bank, y.word, y.thread);
  });
  int64_t distinct = 0, run = 0;
  for (size_t i = 0; i < touches.size(); ++i) {
    const bool new_bank = i == 0 || touches[i].bank != touches[i - 1].bank;
    const bool new_word = new_bank || touches[i].word != touches[i - 1].word;  // same word: shared
    run = new_bank ? 1 : run + (new_word ? 1 : 0);
    distinct += new_word ? 1 : 0;
    if (run > p.wavefronts) {
      p.wavefronts = run;
      p.bank = touches[i].bank;
    }
  }
  p.ideal = (distinct + a.model.banks - 1) / a.model.banks;
  for (const Touch& x : touches)
    if (x.bank == p.bank && (p.colliding.empty() || p.colliding.back() != std::make_pair(x.thread, x.word))) {
      p.colliding.emplace_back(x.thread, x.word);
      p.colliding_offsets.push_back(off[static_cast<size_t>(x.thread * r.values + access * a.vector)]);
    }
  return p;
}

struct Break {
  int64_t thread, value;
  std::string reason;
};

// The first (thread, value) whose access of v values is not one aligned, contiguous vector.
std::optional<Break> first_break(const std::vector<int64_t>& off, int64_t threads, int64_t values, int64_t v) {
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t k = 0; k < values; k += v) {
      const int64_t base = off[static_cast<size_t>(t * values + k)];
      if (base < 0) {  // no access: every value of the vector says so
        for (int64_t j = 1; j < v; ++j)
          if (off[static_cast<size_t>(t * values + k + j)] >= 0) return Break{t, k + j, "an access is partly inactive (offset -1)"};
        continue;
      }
      if (base % v != 0) return Break{t, k, "offset " + std::to_string(base) + " is not aligned to " + std::to_string(v) + " elements"};
      for (int64_t j = 1; j < v; ++j) {
        const int64_t o = off[static_cast<size_t>(t * values + k + j)];
        if (o != base + j)
          return Break{t, k + j, "offset " + std::to_string(o) + " does not follow " + std::to_string(base + j - 1) + " (not contiguous)"};
      }
    }
  return std::nullopt;
}

// Each thread's V values of every access are contiguous and aligned (a vector instruction).
void require_vector_accesses(const std::vector<int64_t>& off, int64_t threads, int64_t values, int64_t v) {
  if (auto b = first_break(off, threads, values, v))
    fail(rule::kSmemVectorAccess, at(b->thread, b->value) + ": " + b->reason + ": " + std::to_string(v) +
                                      " values are not one vector access (`layout vector_width` gives the widest)");
}

}  // namespace

std::vector<int64_t> tv_offsets(const Layout& tv, const LayoutBase& smem, int64_t& threads, int64_t& values) {
  if (tv.rank() != 2) fail(rule::kSmemTv, "a TV layout has two modes (thread, value); got " + to_string(tv));
  threads = product_int(tv.shape_ref()[0], "the TV layout's threads");
  values = product_int(tv.shape_ref()[1], "the TV layout's values");
  const int64_t tile = product_int(smem.shape(), "the shared-memory layout's size");
  const auto f = offset_fn(smem);
  // Every (thread, value) pair is enumerated: refused before allocating beyond the bound (a TV
  // layout of 2^60 pairs is a limit, not an out-of-memory crash). 2^18 pairs is a 1024-thread CTA
  // with 256 values each, 16 times a 128x128 tile; 2^20 took 10 s a request under ASan (fuzzing).
  const int64_t pairs = checked_mul(threads, values);
  if (pairs > kMaxTvPairs)
    fail(rule::kResourceLimit, "the TV layout has " + std::to_string(pairs) + " (thread, value) pairs, beyond the shared-memory model's bound of " +
                                   std::to_string(kMaxTvPairs) + " (1024 threads x 256 values)");
  std::vector<int64_t> off(static_cast<size_t>(pairs));
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t v = 0; v < values; ++v) {
      const int64_t i = tv(t + threads * v);  // colexicographic: (t, v)
      if (i < 0 || i >= tile)
        fail(rule::kSmemTv, at(t, v) + " reaches tile index " + std::to_string(i) + ", outside the shared-memory layout's " + std::to_string(tile) + " points");
      const int64_t o = f(i);
      if (o < 0) fail(rule::kSmemTv, at(t, v) + " reaches offset " + std::to_string(o) + " < 0 in shared memory");
      off[static_cast<size_t>(t * values + v)] = o;
    }
  return off;
}

int64_t BankReport::degree() const {
  if (!worst || worst->ideal == 0) return 1;
  return (worst->wavefronts + worst->ideal - 1) / worst->ideal;
}

BankReport bank_conflicts(const Layout& tv, const LayoutBase& smem, const SmemAccess& a) {
  validate(a);
  int64_t threads = 0, values = 0;
  const std::vector<int64_t> off = tv_offsets(tv, smem, threads, values);
  return bank_conflicts(off, threads, values, a);
}

BankReport bank_conflicts(const std::vector<int64_t>& off, int64_t threads, int64_t values, const SmemAccess& a) {
  validate(a);
  BankReport r;
  r.threads = threads;
  r.values = values;
  if (threads < 1 || values < 1 || off.size() != static_cast<size_t>(threads * values))
    fail(rule::kSmemTv, "the offset table holds threads * values entries (" + std::to_string(off.size()) + " for " + std::to_string(threads) +
                            " x " + std::to_string(values) + ")");
  if (r.values % a.vector != 0)
    fail(rule::kSmemAccessParams, "--vector " + std::to_string(a.vector) + " does not divide the TV layout's " + std::to_string(r.values) + " values per thread");
  require_vector_accesses(off, r.threads, r.values, a.vector);
  r.accesses = r.values / a.vector;
  r.access_bytes = a.vector * a.elem_bytes;
  // A phase moves at most banks * bank_bytes bytes (128: the whole warp up to 4 bytes a thread,
  // half-warps for 8, quarter-warps for 16).
  r.phase_threads = std::clamp<int64_t>(a.model.banks * a.model.bank_bytes / r.access_bytes, 1, a.model.warp_size);
  const int64_t warps = (r.threads + a.model.warp_size - 1) / a.model.warp_size;
  const int64_t phases_per_warp = a.model.warp_size / r.phase_threads;
  for (int64_t w = 0; w < warps; ++w)
    for (int64_t k = 0; k < r.accesses; ++k)
      for (int64_t ph = 0; ph < phases_per_warp && w * a.model.warp_size + ph * r.phase_threads < r.threads; ++ph) {
        PhaseCost p = cost_phase(off, r, a, w, k, ph);
        if (p.ideal == 0) continue;  // no lane of the phase accesses: the hardware issues nothing
        r.wavefronts += p.wavefronts;
        r.ideal += p.ideal;
        ++r.phases;
        if (p.wavefronts > p.ideal) ++r.conflicting_phases;
        if (!r.worst || p.wavefronts * r.worst->ideal > r.worst->wavefronts * p.ideal) r.worst = std::move(p);
      }
  return r;
}

VectorWidth vector_width(const Layout& tv, const LayoutBase& smem, int64_t elem_bytes) {
  if (!power_of_two(elem_bytes) || elem_bytes > kMaxAccessBytes) fail(rule::kSmemAccessParams, "--elem-bytes is 1, 2, 4, 8 or 16; got " + std::to_string(elem_bytes));
  int64_t threads = 0, values = 0;
  const std::vector<int64_t> off = tv_offsets(tv, smem, threads, values);
  return vector_width(off, threads, values, elem_bytes);
}

VectorWidth vector_width(const std::vector<int64_t>& off, int64_t threads, int64_t values, int64_t elem_bytes) {
  if (!power_of_two(elem_bytes) || elem_bytes > kMaxAccessBytes) fail(rule::kSmemAccessParams, "--elem-bytes is 1, 2, 4, 8 or 16; got " + std::to_string(elem_bytes));
  if (threads < 1 || values < 1 || off.size() != static_cast<size_t>(threads * values))
    fail(rule::kSmemTv, "the offset table holds threads * values entries (" + std::to_string(off.size()) + " for " + std::to_string(threads) +
                            " x " + std::to_string(values) + ")");
  VectorWidth r;
  for (int64_t v = 2; v * elem_bytes <= kMaxAccessBytes; v *= 2) {
    r.next_elems = v;
    if (values % v != 0) {
      r.thread = 0;
      r.value = values;
      r.reason = "does not divide the " + std::to_string(values) + " values per thread";
      break;
    }
    if (auto b = first_break(off, threads, values, v)) {
      r.thread = b->thread;
      r.value = b->value;
      r.reason = b->reason;
      break;
    }
    r.elems = v;
    r.next_elems.reset();
  }
  r.bytes = r.elems * elem_bytes;
  return r;
}

std::optional<SwizzleHint> conflict_free_swizzle(const std::vector<int64_t>& offsets, int64_t threads, int64_t values, const SmemAccess& access,
                                                 int64_t stage_stride, int64_t stages) {
  for (int b = 1; b <= 5; ++b)
    for (int m = 0; m <= 4; ++m)
      for (int s = b; s <= 8; ++s) {
        if (stage_stride % (int64_t{1} << (b + m + s)) != 0) continue;
        const Swizzle sw(b, m, s);
        SwizzleHint h{b, m, s, 0};
        bool free = true;
        for (int64_t st = 0; st < stages && free; ++st) {
          std::vector<int64_t> off(offsets.size());
          for (size_t i = 0; i < off.size(); ++i) off[i] = offsets[i] < 0 ? -1 : checked_add(sw(offsets[i]), checked_mul(st, stage_stride));
          try {
            const BankReport r = bank_conflicts(off, threads, values, access);
            free = r.conflict_free();
            h.wavefronts += r.wavefronts;
          } catch (const SpecError&) {
            free = false;  // the vectors no longer contiguous and aligned: not a fix
          }
        }
        if (free) return h;
      }
  return std::nullopt;
}

}  // namespace tfspec
