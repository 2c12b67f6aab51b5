// Pictures of layouts and shard layouts as deterministic SVG text (issue 14). What is drawn comes
// from the reference: offsets from LayoutBase::apply (§2-§4), owners from the shard model
// (holders, physical_element, distribute: §6, §7.1.2, D3), marks from check_layout (§2).
// Every picture is a function of its input: integer geometry, stable order, no timestamps.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tfspec/reference/layout.hpp"
#include "tfspec/reference/reshard.hpp"
#include "tfspec/reference/shard_layout.hpp"
#include "tfspec/reference/smem.hpp"

namespace tfspec::draw {

// Text escaped for XML content and attribute values (SVG here, the JUnit and HTML reports of
// conformance/): & < > " as entities, other control characters but newline and tab as spaces.
std::string xml_escape(const std::string& s);

// The most cells (or owner stripes) one picture holds; more is SpecError("draw-too-large").
// 16384 holds a 128 x 128 tile; past kLabelledCells (64 x 64) a grid drops its per-cell labels
// and keeps colours, group labels and a legend (picture.hpp), which bounds the file size.
inline constexpr int64_t kMaxCells = 16384;
inline constexpr int64_t kLabelledCells = 4096;

// A layout as CuTe draws it: a rank-2 view, mode 0 down the rows and the remaining modes across
// the columns (a rank-1 layout is one column), cell (r, c) holding L(r + rows * c) (D1) and
// coloured by that offset. A ComposedLayout draws both stages (§4): offset + outer(c), then
// inner(offset + outer(c)); a ShardLayout draws its intra-engine offsets (§7.1.2).
std::string layout_svg(const LayoutBase& l);

// The TV view of a layout whose two modes are (thread, value): the tile (rows, cols) of offsets
// (default: the most nearly square tile of exactly max offset + 1 cells, rows >= cols, as CuTe's
// TV pictures draw an (M, N) tile), each offset o at (o % rows, o / rows), labelled T{t}V{v} and
// coloured by thread. Offsets two (t, v) share are marked.
std::string tv_svg(const LayoutBase& l, const std::optional<IntTuple>& tile = std::nullopt);

// The logical tensor (row-major, rows = shape[0]) with each element's owners (§6, §7.2, D3):
// one stripe per mesh instance holding it (Broadcast replicas stacked), labelled #device@offset
// and coloured by device; Partial axes marked; a legend mesh coordinate -> device -> engine.
// Un-materialized strides are materialized as a Reshard at `storage` would (§7.1.2, D4).
std::string shard_svg(const ShardLayout& sl, const std::vector<int64_t>& shape, Storage storage);

// A reshard (§7.4): the owners before, the owners after, and per destination owner where its
// element comes from (kept, another device, or a reduction of Partial contributions).
std::string reshard_svg(const ShardLayout& src, const ShardLayout& dst, const std::vector<int64_t>& shape, Storage src_storage,
                        Storage dst_storage);

// The layout picture with what check_layout (§2) reports marked: every cell whose offset another
// cell shares (layout-injective; the tooltip names the others), positions whose value falls
// outside the inner layout's domain (§4); every diagnostic listed.
std::string check_svg(const LayoutBase& l);

// The shard check picture (§2, D3): the owners of every element as shard_svg draws them, with
// what check_shard_layout(sl, opts) finds marked: every element that shares an (engine, offset)
// with a different element (shard-injective) or whose Partial contributions share one
// (partial-aliased), all pairs, not only the first; the report's diagnostics listed. The logical
// shape is opts.tensor_shape, else the layout's flat shape; the storage opts.storage, else rmem
// (per-instance engines, as the check assumes). An input error the check cannot get past is
// shown as a note, with the owners drawn when they can be.
std::string shard_check_svg(const ShardLayout& sl, const ShardCheckOptions& opts);

// Engines read back (§6, §7): every element's owners with the value each holds, labelled
// #device=value; elements whose Broadcast replicas disagree (replica-mismatch) marked, and owners
// whose engine or offset is missing from `engines`; the reference's assemble verdict as a note.
// Errors other than those of the engines' contents (an invalid layout, a wrong shape) are thrown.
std::string assemble_svg(const Engines& engines, const ShardLayout& sl, const std::vector<int64_t>& shape);

// The fill of every labelled picture: a pastel #rrggbb, a fixed function of an integer (an
// offset, a thread, a device). The hue steps by 137 degrees (near the golden angle, coprime with
// 360): consecutive values differ by 137 degrees of hue, and 360 consecutive values get distinct
// hues.
std::string palette(int64_t n);

// The terminal views of a layout (`tfspec layout print`), in the rank-2 view the pictures use
// (mode 0 down the rows, the rest across; rank 1 is one column), of the final offsets (a
// ComposedLayout's inner(offset + outer(c)), a ShardLayout's intra-engine offsets).
// print_layout: CuTe's print_layout table: the layout, the column indices, then per row a
// +---+ rule and `r  | o | o |`, each cell as wide as the widest of cosize's digits, any
// offset and any column index. print_latex: CuTe's print_latex, a standalone TikZ picture (x
// down, y across), each cell a node filled with the picture's colour of its offset, the grid,
// and the row and column indices.
std::string print_layout(const LayoutBase& l);
std::string print_latex(const LayoutBase& l);

// `layout banks --draw` (spec/SMEM.md): shared memory as rows of `banks` words coloured by bank,
// the worst phase's words labelled with their threads and its colliding words marked.
std::string banks_svg(const Layout& tv, const LayoutBase& smem, const SmemAccess& access);

// A tile shared out among threads (`kernel check --draw`, spec/KERNEL.md): index[t * values + v]
// is the cell (row + rows * col, -1: none) that thread t's value v names, drawn as a stripe
// T{t}V{v} coloured by thread. With `exclusive` (a copy, the C partition) a cell named twice is
// marked collision and a cell never named missing; cells in `offending` are marked offending.
struct TilePartition {
  std::string title;
  std::string row_dim = "m", col_dim = "k";
  int64_t threads = 0, values = 0, rows = 0, cols = 0;
  std::vector<int64_t> index;
  bool exclusive = true;
  std::vector<int64_t> offending;
  std::vector<std::string> notes;
};
std::string partition_svg(const TilePartition& p);

// The same pictures without the XML declaration, to embed in HTML.
std::string inline_svg(const std::string& svg);

}  // namespace tfspec::draw
