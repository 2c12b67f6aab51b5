// Text helpers of the TTGIR reader (private to frontends/triton/src).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tfspec/frontends/triton/ttgir.hpp"

namespace tfspec::triton::detail {

std::string_view trim(std::string_view s);
// The pieces of s between top-level occurrences of sep (outside <>, (), [], {} and quotes; the '>'
// of "->" is no bracket).
std::vector<std::string_view> split_top(std::string_view s, std::string_view sep);
// The first top-level occurrence of sep at or after `from`, or npos.
size_t find_top(std::string_view s, std::string_view sep, size_t from = 0);
// A type as printed after ':' in an op (tensor<...>, !ttg.memdesc<...>, <...>, !tt.ptr<...>, i32).
TypeInfo parse_type(std::string_view text, const Aliases& aliases, int line);

}  // namespace tfspec::triton::detail
