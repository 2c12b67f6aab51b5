// Fuzz target: the `serve --smt2-dir` confinement (issue 19, items 12-13). The input is the
// client's `smt2` name. It goes through serve_line to prove.divides (a concrete goal: the
// reference decides, the obligation is still exported) and straight to create_smt2_file. A
// scratch directory, made once, holds traps: symlinks into a sentinel directory (a directory
// link, links named like the files the prover writes, a link to ".."), and a file to keep.
// Findings: anything appears in the sentinel directory or beside the scratch directory, a trap
// or the kept file changes, a reply claims a path that is not a new regular file directly inside
// DIR, an error reply with a rule other than the smt2 ones, or serve_line throwing.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <set>
#include <sstream>

#include "fuzz_support.hpp"
#include "tfspec/protocol/prove_ops.hpp"
#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/smt2_dir.hpp"
#include "tfspec/reference/error.hpp"

namespace fs = std::filesystem;
using namespace tfspec;

namespace {

struct Scratch {
  fs::path root, dir, sentinel;
  std::set<std::string> traps;  // the entries of DIR made here
};

const std::string kKept = "kept, never overwritten\n";

void trap(Scratch& s, const fs::path& target, const std::string& name, bool directory) {
  if (directory) fs::create_directory_symlink(target, s.dir / name);
  else fs::create_symlink(target, s.dir / name);
  s.traps.insert(name);
}

const Scratch& scratch() {
  static Scratch* s = [] {
    auto* x = new Scratch();
    char tmpl[] = "/tmp/tfspec-fuzz-smt2-XXXXXX";
    x->root = fs::canonical(::mkdtemp(tmpl));
    x->dir = x->root / "dir";
    x->sentinel = x->root / "sentinel";
    fs::create_directory(x->dir);
    fs::create_directory(x->sentinel);
    trap(*x, x->sentinel, "sub", true);
    trap(*x, "..", "up", true);
    for (const char* n : {"a-divides-z3-unbounded.smt2", "link.smt2", "x", "important.txt-divides-z3-unbounded.smt2"})
      trap(*x, x->sentinel / n, n, false);
    std::ofstream(x->dir / "important.txt") << kKept;
    x->traps.insert("important.txt");
    std::atexit([] {
      std::error_code ignored;
      fs::remove_all(scratch().root, ignored);
    });
    return x;
  }();
  return *s;
}

const protocol::OpRegistry& registry() {
  static protocol::OpRegistry* reg = [] {
    auto* r = new protocol::OpRegistry();
    protocol::register_prove_ops(*r);
    return r;
  }();
  return *reg;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The claimed file is a regular file (not a link) whose parent is DIR itself, and new.
void check_claim(const Scratch& s, const std::string& path) {
  const fs::path p(path);
  FUZZ_CHECK(p.parent_path() == s.dir, path);
  FUZZ_CHECK(!s.traps.count(p.filename().string()), path);
  struct stat st {};
  FUZZ_CHECK(::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode), path);
}

// Nothing outside DIR changed; then DIR is emptied of what this input created.
void check_and_reset(const Scratch& s, const std::string& what) {
  FUZZ_CHECK(fs::is_empty(s.sentinel), what);
  FUZZ_CHECK(std::distance(fs::directory_iterator(s.root), fs::directory_iterator{}) == 2, what);  // dir and sentinel only
  FUZZ_CHECK(read(s.dir / "important.txt") == kKept, what);
  for (const auto& e : fs::directory_iterator(s.dir)) {
    const std::string name = e.path().filename().string();
    if (s.traps.count(name)) {
      FUZZ_CHECK(name == "important.txt" || fs::is_symlink(e.symlink_status()), what);
      continue;
    }
    FUZZ_CHECK(fs::is_regular_file(e.symlink_status()), what + " made " + name);
    fs::remove(e.path());
  }
}

bool smt2_rule(const std::string& r) {
  for (const RuleId* id : {&rule::kProtocolSmt2Name, &rule::kProtocolSmt2Refused, &rule::kProtocolSmt2Exists, &rule::kProveSmt2Write})
    if (r == id->id) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  const Scratch& s = scratch();
  const std::string name = fuzz::text_of(data, size < 512 ? size : 512);
  protocol::ServeOptions o;
  o.smt2_dir = s.dir.string();
  const Json smt2(name);
  const std::string line = R"({"seq":1,"op":"prove.divides","args":{"extent":"6","divisor":"3","smt2":)" +
                           smt2.dump(-1, ' ', false, Json::error_handler_t::replace) + "}}";
  bool stop = false;
  const Json reply = protocol::serve_line(registry(), line, stop, o);
  if (reply.contains("result")) {
    FUZZ_CHECK(reply["result"].contains("smt2_files") && !reply["result"]["smt2_files"].empty(), reply.dump());
    for (const auto& f : reply["result"]["smt2_files"]) check_claim(s, f.get<std::string>());
  } else {
    FUZZ_CHECK(reply.contains("error") && smt2_rule(reply["error"]["rule"].get<std::string>()), reply.dump());
  }
  check_and_reset(s, reply.dump());
  try {  // the writer alone, with the raw bytes as the file name
    check_claim(s, protocol::create_smt2_file(s.dir.string(), name, "(check-sat)\n"));
  } catch (const SpecError& e) {
    FUZZ_CHECK(smt2_rule(e.rule()), std::string(e.what()));
  }
  check_and_reset(s, "create_smt2_file");
  return 0;
}
