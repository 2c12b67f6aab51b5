// A whole file as text, for tests that read their fixtures (empty where it cannot be read: the
// test's own expectations then fail, naming what they looked for).
#pragma once
#include <fstream>
#include <sstream>
#include <string>

namespace tfspec::testing {

inline std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tfspec::testing
