// serve_line: one JSON-lines request answered through the op registry (spec/PROTOCOL.md).
#include "tfspec/protocol/serve.hpp"

#include <filesystem>
#include <istream>
#include <new>
#include <ostream>

#include "tfspec/protocol/smt2_dir.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/json_text.hpp"

namespace tfspec::protocol {
namespace {


Json reply_error(const Json& seq, RuleRef r, const std::string& msg) { return Json{{"seq", seq}, {"error", error_json(Diagnostic(r, msg))}}; }

Json handshake(const OpRegistry& reg) {
  Json ops = Json::array();
  for (const auto& op : reg.ops()) ops.push_back(op.protocol_name());
  return Json{{"cmd", "start"}, {"protocol", kProtocolVersion},
              {"implementation", {{"name", "tfspec-reference"}, {"version", "0.1.0"}}}, {"ops", ops}};
}

// The `smt2` argument of prove ops names a file prefix on the server's machine: confined to the
// directory the server was started with, refused otherwise (issue 8). Issue 19: the name is one
// plain file name (check_smt2_name), and the op creates its files through create_smt2_file
// (no symlink followed, nothing replaced): the argument becomes {"dir", "name"}, a form only
// the server can give, since a client's non-string smt2 is refused here.
void confine_smt2(Json& args, const ServeOptions& opts) {
  if (!args.contains("smt2")) return;
  if (!opts.smt2_dir) fail(rule::kProtocolSmt2Refused, "this server writes no SMT-LIB files: start it with `tfspec serve --smt2-dir DIR`");
  if (!args["smt2"].is_string()) fail(rule::kProveUsage, "\"smt2\" is a file name prefix");
  const std::string name = args["smt2"].get<std::string>();
  if (!name.empty() && (name[0] == '/' || name == ".." || name.rfind("../", 0) == 0 || name.find("/../") != std::string::npos ||
                        (name.size() >= 3 && name.compare(name.size() - 3, 3, "/..") == 0)))
    fail(rule::kProtocolSmt2Refused, "\"smt2\" must be a name inside the server's --smt2-dir (no '..', not absolute)");
  check_smt2_name(name);
  args["smt2"] = Json{{"dir", *opts.smt2_dir}, {"name", name}};
}

Json answer(const OpRegistry& reg, const Json& req, const Json& seq, const ServeOptions& opts) {
  if (!req.contains("op") || !req["op"].is_string()) return reply_error(seq, rule::kProtocolMalformed, "a request needs a string 'op'");
  const Op* op = reg.find_protocol(req["op"].get<std::string>());
  if (!op) return Json{{"seq", seq}, {"skipped", {{"reason", "unsupported op " + req["op"].dump(-1, ' ', false, Json::error_handler_t::replace)}}}};
  Json args = req.contains("args") ? req["args"] : Json::object();
  if (!args.is_object()) return reply_error(seq, rule::kProtocolBadArgs, "\"args\" is a JSON object of the op's parameters, not " + std::string(args.type_name()));
  try {
    confine_smt2(args, opts);
    OpResult r = op->run(args);
    Json reply{{"seq", seq}};
    reply["result"] = std::move(r.json);  // not copied: a plan's JSON may be hundreds of MB
    return reply;
  } catch (const SpecError& e) {
    return Json{{"seq", seq}, {"error", error_json(e.diagnostic())}};
  } catch (const Json::exception& e) {
    return reply_error(seq, rule::kProtocolBadArgs, e.what());
  } catch (const std::bad_alloc&) {
    return reply_error(seq, rule::kResourceLimit, "out of memory");
  } catch (const std::exception& e) {
    return reply_error(seq, rule::kInternal, e.what());
  }
}

Json answer_line(const OpRegistry& reg, const std::string& line, bool& stop, const ServeOptions& opts) {
  // Nesting beyond any legal request is dropped while parsing (copying or printing a 10^5-deep
  // document would recurse that deep): the request is then answered with nesting-too-deep.
  bool too_deep = false;
  Json req;
  try {
    req = parse_json_text_cut(line, too_deep);
  } catch (const Json::exception& e) {
    return reply_error(nullptr, rule::kProtocolMalformed, std::string("not JSON: ") + e.what());
  }
  if (!req.is_object()) return reply_error(nullptr, rule::kProtocolMalformed, "a request is a JSON object");
  if (req.contains("cmd")) {
    const Json& cmd = req["cmd"];
    if (cmd == "start") return handshake(reg);
    if (cmd == "stop") {
      stop = true;
      return Json{{"cmd", "stop"}};
    }
    return reply_error(nullptr, rule::kProtocolUnknownCmd, "unknown cmd " + cmd.dump(-1, ' ', false, Json::error_handler_t::replace));
  }
  Json seq = req.contains("seq") && !req["seq"].is_structured() ? req["seq"] : Json(nullptr);
  if (too_deep) return reply_error(seq, rule::kNestingTooDeep, too_deep_message("the request"));
  return answer(reg, req, seq, opts);
}

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

// The reply as one line; a reply too large to print is replaced by a resource-limit error.
std::string reply_text(const OpRegistry& reg, const std::string& line, bool& stop, const ServeOptions& opts) {
  Json seq = nullptr;
  try {
    Json reply = serve_line(reg, line, stop, opts);
    if (reply.contains("seq")) seq = reply["seq"];
    return dump_line(reply);
  } catch (const std::bad_alloc&) {
    return dump_line(reply_error(seq, rule::kResourceLimit, "out of memory while printing the reply"));
  }
}

}  // namespace

Json serve_line(const OpRegistry& reg, const std::string& line, bool& stop, const ServeOptions& opts) {
  try {
    return answer_line(reg, line, stop, opts);
  } catch (const std::bad_alloc&) {  // while parsing the request (an op's own run is guarded in answer)
    return reply_error(nullptr, rule::kResourceLimit, "out of memory while reading the request");
  }
}

bool read_line(std::istream& in, std::string& line, size_t max_bytes, size_t& length) {
  line.clear();
  length = 0;
  std::streambuf* sb = in.rdbuf();
  for (int c = sb->sbumpc();; c = sb->sbumpc()) {
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return length > 0;
    }
    if (c == '\n') return true;
    if (length++ < max_bytes) line.push_back(static_cast<char>(c));  // past the cap: counted, dropped
  }
}

Json line_too_long_reply(size_t length, size_t max_bytes) {
  return reply_error(nullptr, rule::kProtocolLineTooLong,
                     "the request line holds " + std::to_string(length) + " bytes, more than the server's limit of " + std::to_string(max_bytes) +
                         " (tfspec serve --max-line-bytes)");
}

ServeEnd serve(std::istream& in, std::ostream& out, std::ostream& err, const OpRegistry& reg, const ServeOptions& opts) {
  std::string line;
  size_t length = 0;
  bool stop = false;
  while (!stop && read_line(in, line, opts.max_line_bytes, length)) {
    if (length <= opts.max_line_bytes && blank(line)) continue;
    const std::string reply = length > opts.max_line_bytes ? dump_line(line_too_long_reply(length, opts.max_line_bytes)) : reply_text(reg, line, stop, opts);
    out << reply << '\n';
    out.flush();
    if (!out) {  // e.g. stdout is /dev/full or a closed file: the answers are lost, so stop
      err << "error: cannot write the reply to standard output (" << (length > opts.max_line_bytes ? "a too-long line" : "a request") << "); stopping\n";
      return ServeEnd::WriteFailed;
    }
  }
  return ServeEnd::Done;
}

}  // namespace tfspec::protocol
