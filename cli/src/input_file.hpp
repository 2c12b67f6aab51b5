// A subcommand's JSON input from a file or stdin ('-'), for `propagate` and `kernel check`. A
// path that is not a readable regular file is a usage error naming what the path is (a directory
// would otherwise read as empty text); `what` names the input in the message ("program").
#pragma once
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "tfspec/reference/error.hpp"
#include "tfspec/reference/rules.hpp"

namespace tfspec::cli {

inline std::string read_input_file(const std::string& file, const std::string& what) {
  std::stringstream text;
  if (file == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (!fs::exists(st)) fail(rule::kUsage, "cannot read the " + what + " file '" + file + "': no such file");
  if (fs::is_directory(st)) fail(rule::kUsage, "the " + what + " path '" + file + "' is a directory, not a JSON file");
  std::ifstream in(file);
  if (!in) fail(rule::kUsage, "cannot read the " + what + " file '" + file + "': " + std::strerror(errno));
  text << in.rdbuf();
  if (in.bad()) fail(rule::kUsage, "cannot read the " + what + " file '" + file + "': " + std::strerror(errno));
  return text.str();
}

}  // namespace tfspec::cli
