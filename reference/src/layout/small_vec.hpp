// A vector of int64 with inline room for the common case (flat views of layouts rarely exceed
// 16 modes); spills to the heap beyond that. Private to the reference's algebra: keeps the
// straightforward code from paying one allocation per temporary.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tfspec::detail {

class SmallInts {
 public:
  SmallInts() = default;
  SmallInts(std::initializer_list<int64_t> init) {
    for (int64_t v : init) push_back(v);
  }
  SmallInts(size_t n, int64_t v) {
    for (size_t i = 0; i < n; ++i) push_back(v);
  }
  void push_back(int64_t v) {
    if (n_ < kInline) {
      inline_[n_++] = v;
      return;
    }
    if (n_ == kInline) heap_.assign(inline_, inline_ + kInline);
    heap_.push_back(v);
    ++n_;
  }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  int64_t* data() { return n_ > kInline ? heap_.data() : inline_; }
  const int64_t* data() const { return n_ > kInline ? heap_.data() : inline_; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t& back() { return data()[n_ - 1]; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + n_; }

 private:
  static constexpr size_t kInline = 16;
  size_t n_ = 0;
  int64_t inline_[kInline];  // only the first n_ entries are ever read
  std::vector<int64_t> heap_;
};

}  // namespace tfspec::detail
