// `tfspec serve --smt2-dir DIR` (issue 19): where a client's `prove.*` request may write SMT-LIB
// files. The client names a file prefix; the server creates PREFIX-GOAL-STRATEGY.smt2 inside DIR
// and nowhere else. The name is one file name (no NUL or control character, no '/', not '.' or
// '..'); each file is created anew through the directory's descriptor, never following a symlink
// and never replacing an existing file (O_CREAT | O_EXCL | O_NOFOLLOW), so neither a symlinked
// directory nor a pre-created symlink or file inside DIR can redirect or clobber a write.
#pragma once
#include <string>

namespace tfspec::protocol {

// Refuses a name that is not one plain file name (protocol-smt2-name).
void check_smt2_name(const std::string& name);

// Creates `file` (one file name, checked as above) inside the directory `dir` and writes `text`
// into it. Returns the path to report (`dir/file`). Fails with protocol-smt2-exists when any
// entry (a file, a directory, a symlink) already has that name, with prove-smt2-write when the
// directory cannot be opened or the write fails (a partly written file is removed).
std::string create_smt2_file(const std::string& dir, const std::string& file, const std::string& text);

}  // namespace tfspec::protocol
