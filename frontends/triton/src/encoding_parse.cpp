// The attribute syntax of Triton's encodings (spec/TRITON.md §1): `#ttg.KIND<{key = value, ...}>`,
// values integers, booleans, words, lists and nested encodings; `#alias` through the module's
// alias table.
#include <cctype>

#include "tfspec/frontends/triton/encoding.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::triton {
namespace {

class Cursor {
 public:
  Cursor(std::string_view text, const Aliases& aliases) : s_(text), aliases_(aliases) {}

  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) error(std::string("'") + c + "'");
  }
  [[noreturn]] void error(const std::string& what) const {
    fail(rule::kTritonInput, "triton encoding (§1): expected " + what + " at column " + std::to_string(i_ + 1) + " of '" + std::string(s_) + "'");
  }
  std::string word() {
    skip();
    const size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.' || s_[i_] == '-')) ++i_;
    if (start == i_) error("a name");
    return std::string(s_.substr(start, i_ - start));
  }
  bool at_end() {
    skip();
    return i_ == s_.size();
  }

  std::shared_ptr<const Encoding> encoding() {
    skip();
    const size_t start = i_;
    expect('#');
    const std::string name = word();
    if (name.find('.') == std::string::npos) {  // an alias: #blocked, #mma, #shared1
      auto it = aliases_.find(name);
      if (it == aliases_.end()) fail(rule::kTritonInput, "triton encoding (§1): the alias #" + name + " is not defined before its use");
      return it->second;
    }
    auto e = std::make_shared<Encoding>();
    e->kind = name.substr(name.find('.') + 1);
    if (eat('<')) {
      expect('{');
      if (!eat('}')) {
        do {
          const std::string key = word();
          expect('=');
          e->params[key] = value();
        } while (eat(','));
        expect('}');
      }
      expect('>');
    }
    e->text = std::string(s_.substr(start, i_ - start));
    return e;
  }

 private:
  AttrValue value() {
    skip();
    AttrValue v;
    if (i_ >= s_.size()) error("a value");
    if (s_[i_] == '#') {
      v.kind = AttrValue::Kind::Encoding;
      v.enc = encoding();
    } else if (s_[i_] == '[') {
      ++i_;
      v.kind = AttrValue::Kind::List;
      if (!eat(']')) {
        do v.list.push_back(value());
        while (eat(','));
        expect(']');
      }
    } else if (s_[i_] == '-' || std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      const std::string w = word();
      try {
        v.i = std::stoll(w);
      } catch (const std::exception&) {
        error("an integer, not '" + w + "'");
      }
    } else {
      v.word = word();
      if (v.word == "true" || v.word == "false") v.i = v.word == "true";
      else v.kind = AttrValue::Kind::Word;
    }
    if (eat(':')) word();  // a typed integer: `16 : i32`
    return v;
  }

  std::string_view s_;
  const Aliases& aliases_;
  size_t i_ = 0;
};

const AttrValue& param(const Encoding& e, const std::string& key) {
  auto it = e.params.find(key);
  if (it == e.params.end()) fail(rule::kTritonInput, "triton encoding (§1): #ttg." + e.kind + " needs '" + key + "': " + e.text);
  return it->second;
}

}  // namespace

int64_t Encoding::get_int(const std::string& key) const {
  const AttrValue& v = param(*this, key);
  if (v.kind != AttrValue::Kind::Int) fail(rule::kTritonInput, "triton encoding (§1): '" + key + "' is not an integer in " + text);
  return v.i;
}

std::vector<int64_t> Encoding::get_ints(const std::string& key) const {
  const AttrValue& v = param(*this, key);
  std::vector<int64_t> out;
  for (const AttrValue& x : v.list) {
    if (x.kind != AttrValue::Kind::Int) fail(rule::kTritonInput, "triton encoding (§1): '" + key + "' is not a list of integers in " + text);
    out.push_back(x.i);
  }
  if (v.kind != AttrValue::Kind::List) fail(rule::kTritonInput, "triton encoding (§1): '" + key + "' is not a list in " + text);
  return out;
}

const Encoding& Encoding::get_enc(const std::string& key) const {
  const AttrValue& v = param(*this, key);
  if (v.kind != AttrValue::Kind::Encoding) fail(rule::kTritonInput, "triton encoding (§1): '" + key + "' is not an encoding in " + text);
  return *v.enc;
}

std::shared_ptr<const Encoding> parse_encoding(std::string_view text, const Aliases& aliases) {
  Cursor c(text, aliases);
  auto e = c.encoding();
  if (!c.at_end()) c.error("the end of the encoding");
  return e;
}

}  // namespace tfspec::triton
