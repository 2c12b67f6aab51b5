// Shard-model invariants (§5-§7): registered by the shard-model work (issue 3).
#include "tfspec/reference/rules.hpp"

namespace tfspec {
void register_shard_rules(RuleRegistry&) {}
}  // namespace tfspec
