// Pictures (issue 14): `tfspec draw LAYOUT [--bind M=16]`, `tfspec shard draw SL SHAPE STORAGE [--to DST]` and
// `tfspec layout check L --draw FILE`. The SVG goes to -o FILE, else to stdout. Bad input reports
// the reference's rule id (exit 3); a picture past draw::kMaxCells is draw-too-large (exit 3).
#include <cctype>
#include <charconv>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

#include "commands.hpp"
#include "run_control.hpp"
#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/bind.hpp"
#include "tfspec/reference/canonical.hpp"
#include "tfspec/protocol/ops.hpp"
#include "tfspec/protocol/shard_args.hpp"
#include "tfspec/protocol/wire.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::cli {
namespace {

struct DrawArgs {
  std::string layout, out, tile;
  std::vector<std::string> bind;
  bool tv = false;
};

struct ShardDrawArgs {
  std::string layout, shape, storage, out, to, to_storage, mesh;
};

void emit(const std::string& svg, const std::string& path) {
  if (path.empty() || path == "-") {
    std::cout << svg;
    return;
  }
  write_report_file(path, svg, "the picture");  // open, write, flush and close checked: /dev/full is refused
  std::cout << "wrote " << path << "\n";
}

std::vector<int64_t> shape_ints(const std::string& text) {
  std::vector<int64_t> v;
  for (const auto& x : flat_leaves(parse_inttuple(text))) v.push_back(require_int(x, "logical extent"));
  return v;
}

// NAME=VALUE, NAME an identifier and VALUE a decimal integer (a usage error otherwise).
std::pair<std::string, int64_t> parse_binding(const std::string& text) {
  const auto eq = text.find('=');
  const std::string name = text.substr(0, eq);
  bool ident = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char ch : name) ident &= std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  int64_t value = 0;
  const char* first = eq == std::string::npos ? nullptr : text.data() + eq + 1;
  const char* last = text.data() + text.size();
  const bool number = first && first != last && std::from_chars(first, last, value).ptr == last;
  if (!ident || !number) fail(rule::kUsage, "--bind takes NAME=VALUE with an integer VALUE, e.g. --bind M=16 (got '" + text + "')");
  return {name, value};
}

std::string joined(const std::set<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

LayoutPtr read_bound_layout(const std::string& text, const std::vector<std::string>& binds) {
  LayoutPtr l = parse_any_layout(text);
  Bindings b;
  for (const auto& t : binds) {
    auto [name, value] = parse_binding(t);
    if (!b.emplace(name, value).second) fail(rule::kUsage, "--bind " + name + " given twice");
  }
  const std::set<std::string> symbols = layout_symbols(*l);
  for (const auto& [name, value] : b)
    if (!symbols.count(name))  // a typo would otherwise leave the intended symbol unbound
      fail(rule::kUsage, "--bind " + name + ": the layout has no symbol " + name + (symbols.empty() ? "" : " (its symbols: " + joined(symbols) + ")"));
  if (symbols.empty()) return l;
  try {
    return bind_symbols(*l, b);
  } catch (const SpecError& e) {
    if (e.rule() != rule::kUnboundDim.id) throw;
    fail(rule::kUnboundDim, e.diagnostic().message + "; give every symbol a value with --bind NAME=VALUE (symbols: " + joined(symbols) + ")");
  }
}

namespace {

int draw_layout(const DrawArgs& a) {
  LayoutPtr l = read_bound_layout(a.layout, a.bind);
  if (!a.tv && !a.tile.empty()) fail(rule::kUsage, "--tile goes with --tv");
  std::optional<IntTuple> tile;
  if (!a.tile.empty()) tile = parse_inttuple(a.tile);
  emit(a.tv ? draw::tv_svg(*l, tile) : draw::layout_svg(*l), a.out);
  return kOk;
}

int draw_shard(const ShardDrawArgs& a) {
  std::optional<Mesh> mesh;
  if (!a.mesh.empty()) mesh = parse_mesh(a.mesh);
  const ShardLayout sl = read_shard_layout(Json(a.layout), mesh);
  const auto shape = shape_ints(a.shape);
  const Storage storage = parse_storage(a.storage);
  if (a.to.empty()) {
    if (!a.to_storage.empty()) fail(rule::kUsage, "--to-storage goes with --to");
    try {
      emit(draw::shard_svg(sl, shape, storage), a.out);
    } catch (const SpecError& e) {  // owners that collide: point at the picture that marks them all
      if (e.rule() != rule::kShardInjective.id && e.rule() != rule::kPartialAliased.id) throw;
      fail(e.rule() == rule::kShardInjective.id ? rule::kShardInjective : rule::kPartialAliased,
           e.diagnostic().message + "; `tfspec shard check LAYOUT - " + to_string(storage) + " SHAPE --draw FILE` marks every such element");
    }
  } else {
    const ShardLayout dst = read_shard_layout(Json(a.to), mesh);
    emit(draw::reshard_svg(sl, dst, shape, storage, a.to_storage.empty() ? storage : parse_storage(a.to_storage)), a.out);
  }
  return kOk;
}

}  // namespace

void add_draw_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<DrawArgs>();
  auto* sub = app.add_subcommand("draw", "Draw a layout as SVG: offsets in a rank-2 view, both stages of a composed layout, or a TV view");
  sub->add_option("layout", a->layout, "a layout in CuTe notation, INNER o OFFSET o OUTER, or shard(...)")->required();
  sub->add_option("-o,--output", a->out, "write the SVG to this file (default: stdout)");
  sub->add_flag("--tv", a->tv, "TV view: modes (thread, value), cells labelled T{t}V{v} and coloured by thread");
  sub->add_option("--tile", a->tile, "--tv: the tile of offsets, e.g. (4,8) (default: the most nearly square tile of max offset + 1 cells)");
  sub->add_option("--bind", a->bind, "NAME=VALUE: the value of a symbol of the layout, e.g. M=16 (repeat for more)");
  sub->callback([a, &exit_code] { exit_code = reported([&] { return draw_layout(*a); }); });

  // `tfspec shard draw`: a subcommand of the shard group (cmd_group.cpp leaves the group's own op
  // dispatch alone when a nested subcommand ran).
  CLI::App* shard = app.get_subcommand("shard");
  auto s = std::make_shared<ShardDrawArgs>();
  auto* sd = shard->add_subcommand("draw", "Draw who owns each element of the logical tensor (or, with --to, what a reshard moves)");
  sd->add_option("layout", s->layout, "shard layout: sugar (N @ m.a, ...) [on MESH], shard(LAYOUT; ATTRS; MESH) or JSON")->required();
  sd->add_option("shape", s->shape, "the logical TensorType.shape, e.g. (2,6)")->required();
  sd->add_option("storage", s->storage, "rmem | smem | gmem")->required();
  sd->add_option("-o,--output", s->out, "write the SVG to this file (default: stdout)");
  sd->add_option("--to", s->to, "draw a reshard to this shard layout");
  sd->add_option("--to-storage", s->to_storage, "--to: the destination storage (default: the source's)");
  sd->add_option("--mesh", s->mesh, "the mesh for sugar without `on`");
  sd->callback([s, &exit_code] { exit_code = reported([&] { return draw_shard(*s); }); });
}

int write_shard_picture(const std::string& op, const Json& args, const std::string& path) {
  return reported([&] {
    // The arguments as the registry's shard ops read them (one reader, protocol/shard_args.hpp).
    std::string svg;
    if (op == "check") {
      const protocol::ShardCheckArgs c = protocol::read_shard_check_args(args);
      svg = draw::shard_check_svg(c.layout, c.options);
    } else {
      const protocol::AssembleArgs in = protocol::read_assemble_args(args);
      svg = draw::assemble_svg(in.engines, in.layout, in.shape);
    }
    write_report_file(path, svg, "the picture");
    return kOk;
  });
}

int write_banks_picture(const Json& args, const std::string& path) {
  return reported([&] {
    SmemAccess a;
    a.elem_bytes = args.contains("elem_bytes") ? require_int(inttuple_from_json(args["elem_bytes"]), "elem_bytes") : 0;
    a.vector = args.contains("vector") ? require_int(inttuple_from_json(args["vector"]), "vector") : 1;
    if (args.contains("banks")) a.model.banks = require_int(inttuple_from_json(args["banks"]), "banks");
    if (args.contains("bank_bytes")) a.model.bank_bytes = require_int(inttuple_from_json(args["bank_bytes"]), "bank_bytes");
    std::string said;  // the direction of a linear smem layout (X2): the picture draws what banks reads
    const std::string svg = draw::banks_svg(protocol::plain_layout_arg(args, "tv", "banks --draw"), *smem_tile_to_offset(any_layout_from_json(args.at("smem")), said), a);
    write_report_file(path, svg, "the picture");
    return kOk;
  });
}

int write_check_picture(const std::string& layout, const std::string& path) {
  return reported([&] {
    const std::string svg = draw::check_svg(*parse_any_layout(layout));
    write_report_file(path, svg, "the picture");
    return kOk;
  });
}

}  // namespace tfspec::cli
