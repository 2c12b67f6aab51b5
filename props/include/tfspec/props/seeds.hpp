// Seeds for batched RapidCheck runs: `tfspec fuzz` and `tfspec conform --fuzz` split a run into
// batches and give batch b of a run with seed S its own seed, so that a run is reproducible from
// S alone and batches do not repeat each other's cases.
#pragma once
#include <cstdint>

namespace tfspec::props {

// SplitMix64's output function (Steele, Lea, Flood 2014): a bijection on 64 bits that spreads
// nearby inputs (S*prime + b for consecutive b) over the whole range.
constexpr uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The seed of batch `batch` of a run started with `seed` (FNV's 64-bit prime as the multiplier).
constexpr uint64_t batch_seed(uint64_t seed, uint64_t batch) { return splitmix64(seed * 0x100000001b3ull + batch); }

}  // namespace tfspec::props
