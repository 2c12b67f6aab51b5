// The check tables of each construct file, for the closed dispatch in any_layout.cpp.
#pragma once
#include <vector>

#include "tfspec/reference/rules.hpp"

namespace tfspec {

struct NoOptions {};

CheckReport check_plain_layout(const LayoutBase& l, const std::string& path);     // layout_rules.cpp
CheckReport check_composed_layout(const LayoutBase& l, const std::string& path);  // layout_rules.cpp
std::vector<const RuleId*> plain_layout_checked_rules();
std::vector<const RuleId*> composed_layout_checked_rules();
std::vector<const RuleId*> shard_checked_rules();  // shard_rules.cpp

}  // namespace tfspec
