// Fuzz target: the shard-model text (mesh text, shard(...) text, sugar, ShardAttr text).
// Findings: crashes, non-SpecError exceptions, print -> parse not the identity, and for small
// valid layouts a distribute -> assemble round trip that loses data; small layouts are drawn
// (the check picture, issue 14: an SVG document or a SpecError, nothing else).
#include <numeric>

#include "fuzz_support.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/reference/json.hpp"
#include "tfspec/reference/notation.hpp"
#include "tfspec/reference/reshard.hpp"

using namespace tfspec;

static bool json_encodable(const std::string& s) {
  try {
    (void)Json(s).dump();
    return true;
  } catch (const Json::type_error&) {  // invalid UTF-8 (a Partial name): the JSON form cannot carry it
    return false;
  }
}

// distribute -> assemble is the identity on every storage the layout is valid for.
static void execute(const ShardLayout& sl) {
  std::vector<int64_t> g;
  for (const auto& x : flat_leaves(sl.shape())) g.push_back(x.value());
  int64_t n = 1;
  for (int64_t e : g) n *= e;
  for (Storage st : {Storage::Rmem, Storage::Smem, Storage::Gmem}) {
    try {
      validate_shard_layout(sl, ShardCheckOptions{true, st, std::nullopt});
    } catch (const SpecError&) {
      continue;
    }
    Tensor t{g, std::vector<int64_t>(static_cast<size_t>(n))};
    std::iota(t.data.begin(), t.data.end(), -3);
    Tensor back = assemble(distribute(t, sl, st), sl, g);
    FUZZ_CHECK(back == t, to_string(sl) + " under " + to_string(st));
  }
}

static void shard(const std::string& text) {
  ShardLayout sl = read_shard_layout(Json(text), std::nullopt);  // shard(...) text or sugar `(...) on MESH`
  const std::string printed = to_string(sl);
  ShardLayout again = parse_shard_layout(printed);
  FUZZ_CHECK(again == sl && to_string(again) == printed, printed);
  if (json_encodable(printed)) FUZZ_CHECK(shard_from_json(Json::parse(shard_to_json(sl).dump())) == sl, printed);
  if (!is_concrete(sl.shape()) || product_int(sl.shape()) > 4096) return;
  (void)check_shard_layout(sl);
  if (sl.mesh().size() <= 64) {
    execute(sl);
    const std::string svg = draw::shard_check_svg(sl, ShardCheckOptions{});  // draw-too-large: a SpecError
    FUZZ_CHECK(svg.starts_with("<?xml") && svg.ends_with("</svg>\n"), printed);
  }
}

static void mesh(const std::string& text) {
  Mesh m = parse_mesh(text);
  const std::string printed = to_string(m);
  FUZZ_CHECK(parse_mesh(printed) == m, printed);
  FUZZ_CHECK(mesh_from_json(Json::parse(mesh_to_json(m).dump())) == m, printed);
}

static void attr(const std::string& text) {
  ShardAttr a = parse_shard_attr(text);
  FUZZ_CHECK(parse_shard_attr(to_string(a)) == a, to_string(a));
}

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  const std::string text = fuzz::text_of(data, size);
  for (auto* f : {shard, mesh, attr}) {
    try {
      f(text);
    } catch (const SpecError&) {
    }
  }
  return 0;
}
