// Shared by the reference's GoogleTest files.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "tfspec/reference/error.hpp"

namespace tfspec::testing {

// The rule id a statement fails with, or "(no error)".
inline std::string error_id(const std::function<void()>& f) {
  try {
    f();
  } catch (const SpecError& e) {
    return e.rule();
  }
  return "(no error)";
}

}  // namespace tfspec::testing

// Expects `stmt` to fail closed with SpecError `id`.
#define EXPECT_RULE(stmt, id) EXPECT_EQ(::tfspec::testing::error_id([&] { (void)(stmt); }), id)
