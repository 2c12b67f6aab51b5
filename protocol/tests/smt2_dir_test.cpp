// Issue 19, items 12 and 13: `serve --smt2-dir DIR` writes inside DIR only, never through a
// symlink and never over a file it did not create (spec/PROTOCOL.md, "prove ops"). Each attack
// from the issue is one test; "outside" is a sibling directory that must stay empty.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tfspec/protocol/serve.hpp"
#include "tfspec/protocol/smt2_dir.hpp"
#include "tfspec/reference/error.hpp"
#include "tfspec/reference/json.hpp"
#ifdef TFSPEC_HAVE_PROVE
#include "tfspec/protocol/prove_ops.hpp"
#endif

namespace fs = std::filesystem;
using namespace tfspec;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

class Smt2Dir : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("tfspec-smt2-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root / "dir");
    fs::create_directories(root / "outside");
    dir = fs::canonical(root / "dir");
    outside = fs::canonical(root / "outside");
  }
  void TearDown() override { fs::remove_all(root); }
  bool outside_empty() const { return fs::is_empty(outside); }
  std::string rule_of(const std::string& file, const std::string& text) {
    try {
      protocol::create_smt2_file(dir.string(), file, text);
    } catch (const SpecError& e) {
      return e.rule();
    }
    return "written";
  }
  fs::path root, dir, outside;
};

TEST_F(Smt2Dir, NamesThatAreNotOneFileNameAreRefused) {
  for (const std::string& bad : {std::string("important.txt\0", 14), std::string("a\nb"), std::string("sub/x"), std::string(""),
                                std::string("."), std::string(".."), std::string("x\x7f")}) {
    EXPECT_EQ(rule_of(bad, "t"), "protocol-smt2-name") << bad;
  }
  EXPECT_EQ(rule_of("run1-divides-z3-unbounded.smt2", "(check-sat)\n"), "written");
  EXPECT_EQ(read(dir / "run1-divides-z3-unbounded.smt2"), "(check-sat)\n");
}

// A pre-created symlink named like the file: the write does not follow it (before: it wrote
// through the link into `outside`).
TEST_F(Smt2Dir, APreCreatedSymlinkIsNotFollowed) {
  fs::create_symlink(outside / "target", dir / "p.smt2");
  EXPECT_EQ(rule_of("p.smt2", "pwned"), "protocol-smt2-exists");
  EXPECT_TRUE(outside_empty());
  EXPECT_TRUE(fs::is_symlink(dir / "p.smt2"));
}

TEST_F(Smt2Dir, AnExistingFileIsNeverReplaced) {
  write(dir / "q.smt2", "keep");
  EXPECT_EQ(rule_of("q.smt2", "new"), "protocol-smt2-exists");
  EXPECT_EQ(read(dir / "q.smt2"), "keep");
  EXPECT_EQ(rule_of("fresh.smt2", "one"), "written");
  EXPECT_EQ(rule_of("fresh.smt2", "two"), "protocol-smt2-exists");  // a repeat in one run as well
  EXPECT_EQ(read(dir / "fresh.smt2"), "one");
}

// The directory itself swapped for a symlink after the server resolved it: refused, not followed.
TEST_F(Smt2Dir, TheDirectoryIsNotFollowedWhenSwappedForASymlink) {
  fs::remove(dir);
  fs::create_directory_symlink(outside, dir);
  EXPECT_EQ(rule_of("x.smt2", "t"), "prove-smt2-write");
  EXPECT_TRUE(outside_empty());
}

#ifdef TFSPEC_HAVE_PROVE
// Through serve_line and the prove op, as a client reaches it.
class ServeSmt2 : public Smt2Dir {
 protected:
  Json ask(const std::string& smt2_json) {
    static protocol::OpRegistry reg = [] {
      protocol::OpRegistry r;
      protocol::register_prove_ops(r);
      return r;
    }();
    protocol::ServeOptions o;
    o.smt2_dir = dir.string();
    bool stop = false;
    const std::string line = R"({"seq":1,"op":"prove.divides","args":{"extent":"6","divisor":"3","smt2":)" + smt2_json + "}}";
    return protocol::serve_line(reg, line, stop, o);
  }
  static std::string error_rule(const Json& r) { return r.contains("error") ? r["error"]["rule"].get<std::string>() : r.dump(); }
};

// Item 12: the NUL cut the name short and the SMT-LIB text replaced important.txt.
TEST_F(ServeSmt2, AnEmbeddedNulIsRefusedAndNothingIsOverwritten) {
  write(dir / "important.txt", "keep");
  Json r = ask(R"("important.txt\u0000")");
  EXPECT_EQ(error_rule(r), "protocol-smt2-name");
  EXPECT_EQ(read(dir / "important.txt"), "keep");
}

// Item 13: a symlinked directory inside DIR sent the file outside while the reply named DIR.
TEST_F(ServeSmt2, ASymlinkedSubdirectoryIsNotEntered) {
  fs::create_directory_symlink(outside, dir / "sub");
  Json r = ask(R"("sub/x")");
  EXPECT_EQ(error_rule(r), "protocol-smt2-name");
  EXPECT_TRUE(outside_empty());
}

// Item 13: a pre-created NAME-divides-z3-unbounded.smt2 symlink.
TEST_F(ServeSmt2, APreCreatedSymlinkFileIsNotFollowed) {
  fs::create_symlink(outside / "target", dir / "p-divides-z3-unbounded.smt2");
  Json r = ask(R"("p")");
  EXPECT_EQ(error_rule(r), "protocol-smt2-exists");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("p-divides-z3-unbounded.smt2"), std::string::npos) << r.dump();
  EXPECT_TRUE(outside_empty());
}

TEST_F(ServeSmt2, APreExistingFileIsNotReplaced) {
  write(dir / "q-divides-z3-unbounded.smt2", "keep");
  Json r = ask(R"("q")");
  EXPECT_EQ(error_rule(r), "protocol-smt2-exists");
  EXPECT_EQ(read(dir / "q-divides-z3-unbounded.smt2"), "keep");
}

// The file the reply names is a regular file inside DIR that this request created; the same
// name again in the same run is refused rather than replaced.
TEST_F(ServeSmt2, TheReplyNamesTheRegularFileItCreated) {
  Json r = ask(R"("ok")");
  ASSERT_TRUE(r.contains("result")) << r.dump();
  ASSERT_EQ(r["result"]["smt2_files"].size(), 1u) << r.dump();
  const fs::path p = r["result"]["smt2_files"][0].get<std::string>();
  EXPECT_EQ(p, dir / "ok-divides-z3-unbounded.smt2");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(p)));
  EXPECT_NE(read(p).find("(check-sat)"), std::string::npos);
  EXPECT_EQ(error_rule(ask(R"("ok")")), "protocol-smt2-exists");
}
#endif

}  // namespace
