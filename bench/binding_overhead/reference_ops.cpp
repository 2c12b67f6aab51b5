// The reference's own time for the algebra calls that bench/python_vs_pycute.py times from
// Python (issue 31, bench/RESULTS.md): what a binding could at best reach. Not part of the build:
//   c++ -O2 -DNDEBUG -std=c++20 -Ireference/include bench/binding_overhead/reference_ops.cpp
//       build/reference/libtfspec_reference.a -o /tmp/reference_ops && /tmp/reference_ops
// (one command line). Best of 5 x 200,000 calls, each result made into a shared_ptr as the module does.
#include <chrono>
#include <cstdio>
#include "tfspec/reference/algebra.hpp"
#include "tfspec/reference/layout.hpp"
#include "tfspec/reference/notation.hpp"
using namespace tfspec;
template <class F> double ns(F f) {
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 200000; ++i) f();
    best = std::min(best, std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / 200000);
  }
  return best;
}
int main() {
  auto a = std::make_shared<Layout>(IntTuple::tuple({IntTuple(4), IntTuple(8), IntTuple(16)}), IntTuple::tuple({IntTuple(8), IntTuple(1), IntTuple(32)}));
  Layout b(IntTuple::tuple({IntTuple(2), IntTuple(4)}), IntTuple::tuple({IntTuple(1), IntTuple(4)}));
  size_t sink = 0;
  std::printf("coalesce %.0f ns\n", ns([&] { auto p = std::make_shared<Layout>(coalesce(*a)); sink += p->size() > 0; }));
  std::printf("complement(a, 8192) %.0f ns\n", ns([&] { auto p = std::make_shared<Layout>(complement(*a, 8192)); sink += p->size() > 0; }));
  std::printf("composition %.0f ns\n", ns([&] { auto p = std::make_shared<Layout>(composition(*a, Tiler(b), DomainPolicy::Strict)); sink += p->size() > 0; }));
  std::printf("logical_divide %.0f ns\n", ns([&] { auto p = std::make_shared<Layout>(logical_divide(*a, Tiler(b), DomainPolicy::Strict)); sink += p->size() > 0; }));
  std::printf("(%zu)\n", sink);  // keeps the results alive
}
