// The same C++ body under both binding libraries: L(i) of a flat layout (colexicographic, D1).
#pragma once
#include <cstdint>
#include <vector>

struct FlatLayout {
  std::vector<int64_t> extent, stride;
  int64_t operator()(int64_t i) const {
    int64_t offset = 0;
    for (size_t k = 0; k < extent.size(); ++k) {
      offset += (i % extent[k]) * stride[k];
      i /= extent[k];
    }
    return offset;
  }
};
