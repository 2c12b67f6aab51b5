// How the judge compares symbolic answers (spec/corpus/README.md "Symbolic answers"): symbolic
// integers and predicates by their normal form (spec/ALGEBRA.md S1), conditions and cases as
// multisets. Private to corpus.cpp.
#pragma once
#include <optional>
#include <string>

#include "tfspec/protocol/corpus.hpp"

namespace tfspec::protocol {

// The normal form of a symbolic integer written as text ("64*M", "M*64"); nullopt when it is none.
std::optional<std::string> normal_dim(const std::string& text);
// The normal form of a predicate `lhs REL rhs`: `p REL 0` with p = lhs - rhs normalized, strict
// relations made non-strict over the integers (`a < b` is `b - a - 1 >= 0`), `<=`/`>` turned
// around to `>=`, and the sign of an (in)equality's p fixed; nullopt when the text is none.
std::optional<std::string> normal_pred(const std::string& text);

// An expected object with "cases" or "conditions" (a symbolic answer, spec/PROTOCOL.md).
bool is_symbolic_answer(const Json& expected);
bool same_symbolic_answer(const Json& e, const Json& a, Compare mode, std::string& why);
// Every `proved` condition of a reply to a symbolic case holds at the judge's instances of the
// assumptions and its case's guard (corpus_proved.cpp); true for any other case.
bool proved_conditions_hold(const CorpusCase& c, const Json& reply, std::string& why);

}  // namespace tfspec::protocol
