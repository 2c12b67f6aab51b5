// Fuzz cases: text form, the reference's answer, the backend's answer, the verdict.
#include <sstream>

#include "tfspec/props/fuzz.hpp"
#include "tfspec/reference/catalogue.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/reshard.hpp"

namespace tfspec::props {
namespace {

constexpr const char* kSep = " # ";

std::string join(const std::vector<int64_t>& v, const char* sep = ",") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t k; (k = s.find(sep, at)) != std::string::npos; at = k + sep.size()) out.push_back(s.substr(at, k - at));
  out.push_back(s.substr(at));
  return out;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<int64_t> ints(const std::string& s) {
  std::vector<int64_t> out;
  if (trim(s).empty()) return out;
  for (const auto& x : split(s, ",")) {
    try {
      size_t used = 0;
      out.push_back(std::stoll(trim(x), &used));
      if (used != trim(x).size()) throw std::invalid_argument(x);
    } catch (const std::exception&) {
      fail(rule::kUsage, "fuzz case: '" + x.substr(0, 40) + "' is not an integer");
    }
  }
  return out;
}

// Deterministic contributions for partition() (splitmix64), small so sums stay exact.
struct Noise {
  uint64_t state;
  int64_t operator()() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return static_cast<int64_t>((z ^ (z >> 31)) % 41) - 20;
  }
};

int64_t domain_size(const LayoutBase& l) { return product_int(l.shape()); }

// A flat coordinate laid out like the shape (the reference's apply takes a congruent tuple).
IntTuple unflatten(const IntTuple& shape, const std::vector<int64_t>& flat, size_t& at) {
  if (shape.is_leaf()) return IntTuple(at < flat.size() ? flat[at++] : 0);
  std::vector<IntTuple> c;
  for (const auto& s : shape.children()) c.push_back(unflatten(s, flat, at));
  return IntTuple::tuple(std::move(c));
}

int64_t gather_source(int64_t j) { return j * 3 + 1; }
int64_t scatter_value(int64_t i) { return i * 5 - 7; }

Engines source_engines(const FuzzCase& c, const ShardLayout& src) {
  try {
    Noise noise{c.noise};
    Engines e = partition(Tensor{c.shape, c.data}, src, c.src_storage, [&] { return noise(); });
    if (c.noise % 8 == 7 && !e.buffers.empty()) {  // a corrupted source: one value changed
      auto& buf = e.buffers.rbegin()->second;
      if (!buf.empty()) buf[c.noise % buf.size()] += 1;
    }
    return e;
  } catch (const SpecError&) {
    return Engines{c.src_storage, {}};  // an invalid source: both sides must refuse it
  }
}

template <class F>
FuzzAnswer answer(F body) {
  FuzzAnswer a;
  try {
    body(a);
  } catch (const SpecError& e) {
    a.rule = e.rule();
    a.message = e.diagnostic().message;
    a.values.clear();
    a.engines.reset();
  }
  return a;
}

}  // namespace

Engines fuzz_source_engines(const FuzzCase& c) { return source_engines(c, parse_shard_layout(c.src)); }

const std::vector<std::string>& fuzz_ops() {
  static const std::vector<std::string> ops = {"offsets", "crd2idx", "gather", "scatter", "reshard"};
  return ops;
}

std::string fuzz_case_text(const FuzzCase& c) {
  if (c.op == "offsets") return c.op + kSep + c.layout;
  if (c.op == "crd2idx") {
    std::string s;
    for (size_t i = 0; i < c.coords.size(); ++i) s += (i ? ";" : "") + join(c.coords[i]);
    return c.op + kSep + c.layout + kSep + s;
  }
  if (c.op == "gather" || c.op == "scatter") return c.op + kSep + c.layout + kSep + std::to_string(c.buffer);
  return c.op + kSep + "(" + join(c.shape) + ")" + kSep + c.src + kSep + to_string(c.src_storage) + kSep + c.dst + kSep +
         to_string(c.dst_storage) + kSep + std::to_string(c.noise) + kSep + join(c.data);
}

FuzzCase parse_fuzz_case(const std::string& text) {
  auto f = split(text, "#");
  for (auto& x : f) x = trim(x);
  FuzzCase c;
  c.op = f[0];
  auto need = [&](size_t n) {
    if (f.size() != n) fail(rule::kUsage, "fuzz case '" + c.op + "' has " + std::to_string(f.size()) + " fields, expected " + std::to_string(n));
  };
  if (c.op == "offsets") {
    need(2);
    c.layout = f[1];
  } else if (c.op == "crd2idx") {
    need(3);
    c.layout = f[1];
    if (!f[2].empty())
      for (const auto& crd : split(f[2], ";")) c.coords.push_back(ints(crd));
  } else if (c.op == "gather" || c.op == "scatter") {
    need(3);
    c.layout = f[1];
    c.buffer = ints(f[2]).at(0);
  } else if (c.op == "reshard") {
    need(8);
    std::string shape = f[1];
    if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') fail(rule::kUsage, "fuzz case: the shape is written (a,b,...)");
    c.shape = ints(shape.substr(1, shape.size() - 2));
    c.src = f[2];
    c.src_storage = parse_storage(f[3]);
    c.dst = f[4];
    c.dst_storage = parse_storage(f[5]);
    c.noise = static_cast<uint64_t>(ints(f[6]).at(0));
    c.data = ints(f[7]);
  } else {
    fail(rule::kUsage, "fuzz case: unknown op '" + c.op.substr(0, 40) + "' (offsets, crd2idx, gather, scatter, reshard)");
  }
  return c;
}

void showValue(const FuzzCase& c, std::ostream& os) { os << fuzz_case_text(c); }

int64_t fuzz_case_size(const FuzzCase& c) {
  if (c.op == "reshard") return static_cast<int64_t>(c.data.size());
  if (c.op == "crd2idx") return static_cast<int64_t>(c.coords.size());
  try {
    return domain_size(*parse_any_layout(c.layout));
  } catch (const SpecError&) {
    return 0;
  }
}

std::string describe(const FuzzAnswer& a) {
  if (a.rule) return "refused [" + *a.rule + "] " + a.message;
  std::ostringstream os;
  auto list = [&](const std::vector<int64_t>& v) {
    os << "(";
    for (size_t i = 0; i < v.size() && i < 32; ++i) os << (i ? "," : "") << v[i];
    if (v.size() > 32) os << ",... " << v.size() << " values";
    os << ")";
  };
  if (a.engines) {
    os << to_string(a.engines->storage) << " {";
    bool first = true;
    for (const auto& [e, buf] : a.engines->buffers) {
      os << (first ? "" : ", ") << e << ": ";
      list(buf);
      first = false;
    }
    os << "}";
  } else {
    list(a.values);
  }
  return os.str();
}

FuzzAnswer reference_answer(const FuzzCase& c) {
  return answer([&](FuzzAnswer& a) {
    if (c.op == "reshard") {
      ShardLayout src = parse_shard_layout(c.src), dst = parse_shard_layout(c.dst);
      a.engines = reshard(source_engines(c, src), src, dst, c.dst_storage, c.shape);
      return;
    }
    LayoutPtr l = parse_any_layout(c.layout);
    if (c.op == "crd2idx") {
      const IntTuple shape = l->shape();
      for (const auto& crd : c.coords) {
        size_t at = 0;
        a.values.push_back(l->apply(unflatten(shape, crd, at)));
      }
      return;
    }
    const int64_t n = domain_size(*l);
    std::vector<int64_t> dst(static_cast<size_t>(std::max<int64_t>(c.buffer, 0)), 0);
    std::vector<bool> written(dst.size(), false);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t off = l->apply(IntTuple(i));
      if (c.op == "offsets") {
        a.values.push_back(off);
        continue;
      }
      if (off < 0) fail(rule::kEngineOffsetNegative, "offset " + std::to_string(off) + " of element " + std::to_string(i));
      if (off >= c.buffer) fail(rule::kEngineBufferSize, "offset " + std::to_string(off) + " past a buffer of " + std::to_string(c.buffer));
      if (c.op == "gather") {
        a.values.push_back(gather_source(off));
      } else {
        if (written[off]) fail(rule::kLayoutInjective, "element " + std::to_string(i) + " writes offset " + std::to_string(off) + " again");
        written[off] = true;
        dst[off] = scatter_value(i);
      }
    }
    if (c.op == "scatter") a.values = dst;
  });
}

FuzzAnswer backend_answer(const FuzzCase& c, gpu::Backend& backend, const gpu::PlanPolicy& policy) {
  return answer([&](FuzzAnswer& a) {
    if (c.op == "reshard") {
      ShardLayout src = parse_shard_layout(c.src), dst = parse_shard_layout(c.dst);
      Engines in = source_engines(c, src);
      a.engines = backend.reshard(gpu::compile_reshard(src, c.src_storage, dst, c.dst_storage, c.shape, policy), in);
      return;
    }
    LayoutPtr l = parse_any_layout(c.layout);
    gpu::FnPlan plan = gpu::compile_layout(*l, policy);
    if (c.op == "offsets") {
      a.values = backend.offsets(plan);
    } else if (c.op == "crd2idx") {
      std::vector<int64_t> flat;
      for (const auto& crd : c.coords) flat.insert(flat.end(), crd.begin(), crd.end());
      a.values = backend.crd2idx(plan, flat);
    } else if (c.op == "gather") {
      std::vector<int64_t> src(static_cast<size_t>(std::max<int64_t>(c.buffer, 0)));
      for (size_t j = 0; j < src.size(); ++j) src[j] = gather_source(static_cast<int64_t>(j));
      a.values = backend.gather(plan, src);
    } else {
      std::vector<int64_t> values(static_cast<size_t>(plan.domain_size));
      for (size_t i = 0; i < values.size(); ++i) values[i] = scatter_value(static_cast<int64_t>(i));
      a.values = backend.scatter(plan, values, c.buffer);
    }
  });
}

FuzzCheck check_fuzz_case(const FuzzCase& c, gpu::Backend& backend, const gpu::PlanPolicy& policy) {
  FuzzCheck r{Verdict::Agree, reference_answer(c), backend_answer(c, backend, policy)};
  auto undecided = [](const std::optional<std::string>& rule) {
    return rule && *rule != rule::kInt64Overflow.id && rule_kind(*rule) == RuleKind::Limit;
  };
  if (undecided(r.reference.rule) || (undecided(r.backend.rule) && !r.reference.rule)) {
    r.verdict = Verdict::Skip;
  } else if (r.reference.rule || r.backend.rule) {
    r.verdict = r.reference.rule == r.backend.rule ? Verdict::Agree : Verdict::Disagree;
  } else {
    r.verdict = r.reference.values == r.backend.values && r.reference.engines == r.backend.engines ? Verdict::Agree : Verdict::Disagree;
  }
  return r;
}

}  // namespace tfspec::props
