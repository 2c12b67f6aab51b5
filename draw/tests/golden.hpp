// Golden pictures (draw/tests/golden/*.svg) and the real renderer (rsvg-convert, when installed).
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tfspec::draw::testing {

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The golden file's bytes; TFSPEC_UPDATE_GOLDEN=1 rewrites it from `svg` (then review the diff).
inline std::string golden(const std::string& name, const std::string& svg) {
  const std::filesystem::path p = std::filesystem::path(TFSPEC_DRAW_GOLDEN_DIR) / (name + ".svg");
  if (std::getenv("TFSPEC_UPDATE_GOLDEN")) {
    std::ofstream(p, std::ios::binary) << svg;
  }
  return read_file(p);
}

// Renders with rsvg-convert to PNG; "" when it drew, else why not. Skips when it is absent.
inline std::string render_failure(const std::string& name, const std::string& svg) {
  const std::string tool = TFSPEC_RSVG_CONVERT;
  const auto dir = std::filesystem::temp_directory_path() / ("tfspec-draw-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto in = dir / (name + ".svg"), out = dir / (name + ".png");
  std::ofstream(in, std::ios::binary) << svg;
  const std::string cmd = "'" + tool + "' -o '" + out.string() + "' '" + in.string() + "' 2>'" + (dir / "err").string() + "'";
  const int rc = std::system(cmd.c_str());
  std::string why;
  const std::string png = read_file(out);
  if (rc != 0) why = "rsvg-convert exited " + std::to_string(rc) + ": " + read_file(dir / "err");
  else if (png.size() < 8 || png.compare(1, 3, "PNG") != 0) why = "rsvg-convert wrote no PNG";
  std::filesystem::remove_all(dir);
  return why;
}

}  // namespace tfspec::draw::testing

// Renders one picture, or skips the test with the reason when the renderer is not installed.
#define TFSPEC_EXPECT_RENDERS(name, svg)                                                                    \
  do {                                                                                                      \
    if (std::string(TFSPEC_RSVG_CONVERT).empty())                                                           \
      GTEST_SKIP() << "rsvg-convert not found at configure time (Debian package librsvg2-bin; scripts/setup.sh installs it)"; \
    EXPECT_EQ(::tfspec::draw::testing::render_failure(name, svg), "");                                      \
  } while (0)
