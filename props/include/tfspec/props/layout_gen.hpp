// RapidCheck generators for IntTuples and layouts (reused by every property suite).
#pragma once
#include <rapidcheck.h>

#include "tfspec/reference/layout.hpp"

namespace tfspec::props {

// A concrete shape of at most `max_leaves` leaves, extents in [1, max_extent], depth <= 2.
rc::Gen<IntTuple> gen_shape(int max_leaves = 4, int64_t max_extent = 8);
// A stride tuple congruent with `shape`, entries in [lo, hi].
rc::Gen<IntTuple> gen_stride_for(const IntTuple& shape, int64_t lo = 0, int64_t hi = 64);
// A small concrete layout (size <= 4096): arbitrary strides (often non-injective).
rc::Gen<Layout> gen_layout(int max_leaves = 4, int64_t max_extent = 8);
// A compact (column-major, possibly permuted and padded) injective layout.
rc::Gen<Layout> gen_injective_layout(int max_leaves = 4, int64_t max_extent = 8);
// A layout that is a right-exact "tiler" for `size`: compact strides over a divisor of size.
rc::Gen<Layout> gen_tiler_for(int64_t size);

}  // namespace tfspec::props
