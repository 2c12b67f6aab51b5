// Seeded edits of a text artifact (a compiler's dump), as a hostile user or a damaged file makes
// them: a line deleted, duplicated or swapped, a number replaced by an extreme one, a span cut, the
// text truncated, a delimiter inserted, one word replaced by another of the text. The frontends'
// tests feed fixtures edited this way to their readers and checks: every outcome is a report or a
// SpecError with an input rule, never a crash, another exception or an internal error.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <regex>
#include <string>
#include <vector>

#include "release_only.hpp"
#include "tfspec/reference/catalogue.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::testing {

inline std::string mutate_text(std::string s, std::mt19937_64& rng) {
  if (s.empty()) return s;
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % (n == 0 ? 1 : n)); };
  std::vector<std::string> lines;
  for (size_t a = 0;;) {
    const size_t b = s.find('\n', a);
    lines.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  auto joined = [&] {
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
    return out;
  };
  switch (pick(8)) {
    case 0:
      if (lines.size() > 1) lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(pick(lines.size())));
      return joined();
    case 1: {
      const std::string l = lines[pick(lines.size())];
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(pick(lines.size())), l);
      return joined();
    }
    case 2: {
      static const char* kNumbers[] = {"0", "-1", "1", "3", "7", "65536", "2147483648", "9223372036854775807", "99999999999999999999", "-9223372036854775808"};
      std::vector<std::pair<size_t, size_t>> at;
      static const std::regex kNumber("-?[0-9]+");
      for (auto it = std::sregex_iterator(s.begin(), s.end(), kNumber); it != std::sregex_iterator(); ++it)
        at.push_back({static_cast<size_t>(it->position()), static_cast<size_t>(it->length())});
      if (at.empty()) return s;
      const auto [p, n] = at[pick(at.size())];
      return s.substr(0, p) + kNumbers[pick(10)] + s.substr(p + n);
    }
    case 3: {
      const size_t p = pick(s.size());
      return s.substr(0, p) + s.substr(std::min(s.size(), p + 1 + pick(40)));
    }
    case 4:
      return s.substr(0, pick(s.size()));
    case 5: {
      static const char kDelims[] = "<>()[]{},:\"%#?xo ;!";
      const size_t p = pick(s.size());
      return s.substr(0, p) + kDelims[pick(sizeof(kDelims) - 1)] + s.substr(p);
    }
    case 6: {
      std::vector<std::string> words;
      static const std::regex kWord("[A-Za-z_]+");
      for (auto it = std::sregex_iterator(s.begin(), s.end(), kWord); it != std::sregex_iterator() && words.size() < 4096; ++it) words.push_back(it->str());
      if (words.empty()) return s;
      const std::string& a = words[pick(words.size())];
      const std::string& b = words[pick(words.size())];
      const size_t p = s.find(a);
      return s.substr(0, p) + b + s.substr(p + a.size());
    }
    default:
      std::swap(lines[pick(lines.size())], lines[pick(lines.size())]);
      return joined();
  }
}

// Every file of `dir` ending in `ext`, edited 1 to 3 times, `per_file` times each (seeded), given to
// `check` (reads and checks the text; its result is dropped): a report, or a SpecError whose rule
// is not internal. Anything else fails the test, naming the file and the edit.
#if defined(TFSPEC_ASAN)
inline constexpr int kEditsPerFile = 4;  // ASan: a few each, for the memory errors only it sees
#else
inline constexpr int kEditsPerFile = 24;
#endif
template <class Check>
void expect_edits_are_reports_or_input_errors(const std::string& dir, const std::string& ext, Check check, int per_file = kEditsPerFile) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ext) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  ASSERT_GE(names.size(), 4u) << dir;
  std::mt19937_64 rng(20261206);
  int reports = 0, refusals = 0;
  for (const auto& name : names) {
    std::stringstream whole;
    whole << std::ifstream(dir + "/" + name).rdbuf();
    for (int k = 0; k < per_file; ++k) {
      std::string text = whole.str();
      for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) text = mutate_text(text, rng);
      try {
        check(text);
        ++reports;
      } catch (const SpecError& e) {
        EXPECT_NE(e.kind(), RuleKind::Internal) << name << " edit " << k << ": " << e.what();
        ++refusals;
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << " edit " << k << ": " << e.what();
        if (const char* keep = std::getenv("TFSPEC_KEEP_MUTANT")) std::ofstream(keep) << text;  // to reproduce it
      }
    }
  }
  EXPECT_GT(reports, 0);
  EXPECT_GT(refusals, 0);
}

}  // namespace tfspec::testing
