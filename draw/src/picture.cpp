// The SVG writer: integer geometry, elements in a fixed order, nothing that varies between runs.
#include "picture.hpp"
#include "tfspec/reference/rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/error.hpp"

namespace tfspec::draw {
namespace {

constexpr int kMargin = 10;
constexpr int kCharWidth = 7;   // a generous monospace advance at font-size 11
constexpr int kLine = 16;       // one line of text
constexpr int kStripe = 18;     // one stripe of a cell
constexpr int kRowHeader = 32;  // the column of row indices

int text_width(const std::string& s) {
  int chars = 0;
  for (unsigned char ch : s) chars += (ch & 0xC0) != 0x80;  // UTF-8: count characters
  return chars * kCharWidth;
}

int cell_width(const Grid& g) {
  int w = 36;
  for (const auto& c : g.cells)
    for (const auto& s : c.stripes) w = std::max(w, text_width(s.label) + 12);
  return w;
}

int cell_height(const Grid& g) {
  size_t n = 1;
  for (const auto& c : g.cells) n = std::max(n, c.stripes.size());
  return static_cast<int>(n) * kStripe;
}

const char* mark_name(Mark m) {
  switch (m) {
    case Mark::Collision: return "collision";
    case Mark::OutOfDomain: return "out-of-domain";
    case Mark::Mismatch: return rule::kReplicaMismatch.id.data();  // the rule the mark shows
    case Mark::Missing: return "missing";
    case Mark::Offending: return "offending";
    case Mark::None: break;
  }
  return "";
}

const char* mark_colour(Mark m) {
  switch (m) {
    case Mark::Collision: return "#d00000";
    case Mark::OutOfDomain: return "#7a00d0";
    case Mark::Mismatch: return "#e06000";
    case Mark::Offending: return "#d000a0";
    default: return "#606060";
  }
}

std::string joined_labels(const Cell& c) {
  std::string s;
  for (const auto& st : c.stripes) s += (s.empty() ? "" : " ") + st.label;
  return s;
}

void text(std::ostringstream& o, const char* cls, int x, int y, const std::string& s, const char* anchor = "start") {
  o << "<text class=\"" << cls << "\" x=\"" << x << "\" y=\"" << y << "\"";
  if (std::string(anchor) != "start") o << " text-anchor=\"" << anchor << "\"";
  o << ">" << xml_escape(s) << "</text>\n";
}

// Draws one grid with its top-left corner at (x0, y0); returns its height.
int draw_grid(std::ostringstream& o, const Grid& g, int x0, int y0) {
  const int w = cell_width(g), h = cell_height(g);
  o << "<g class=\"grid\" data-kind=\"" << g.kind << "\" data-rows=\"" << g.rows << "\" data-cols=\"" << g.cols << "\">\n";
  int y = y0 + kLine - 4;
  text(o, "caption", x0, y, g.caption);
  y += kLine;
  for (int64_t c = 0; c < g.cols; ++c) text(o, "col-index", x0 + kRowHeader + static_cast<int>(c) * w + w / 2, y, std::to_string(c), "middle");
  y += 4;
  for (int64_t r = 0; r < g.rows; ++r) {
    const int cy = y + static_cast<int>(r) * h;
    text(o, "row-index", x0 + kRowHeader - 6, cy + h / 2 + 4, std::to_string(r), "end");
    for (int64_t c = 0; c < g.cols; ++c) {
      const Cell& cell = g.cells[static_cast<size_t>(r * g.cols + c)];
      const int cx = x0 + kRowHeader + static_cast<int>(c) * w;
      o << "<g class=\"cell\" data-row=\"" << r << "\" data-col=\"" << c << "\" data-label=\"" << xml_escape(joined_labels(cell)) << "\"";
      if (cell.mark != Mark::None) o << " data-mark=\"" << mark_name(cell.mark) << "\"";
      if (!cell.partial.empty()) o << " data-partial=\"" << xml_escape(cell.partial) << "\"";
      o << ">";
      if (!cell.title.empty()) o << "<title>" << xml_escape(cell.title) << "</title>";
      o << "\n";
      const int sh = cell.stripes.empty() ? h : h / static_cast<int>(cell.stripes.size());
      if (cell.stripes.empty())
        o << "<rect x=\"" << cx << "\" y=\"" << cy << "\" width=\"" << w << "\" height=\"" << h << "\" fill=\"#eeeeee\" stroke=\"#555555\" stroke-width=\"0.5\"/>\n";
      for (size_t i = 0; i < cell.stripes.size(); ++i) {
        const int sy = cy + static_cast<int>(i) * sh;
        o << "<rect class=\"stripe\" x=\"" << cx << "\" y=\"" << sy << "\" width=\"" << w << "\" height=\"" << sh << "\" fill=\""
          << cell.stripes[i].fill << "\" stroke=\"#555555\" stroke-width=\"0.5\"/>\n";
        text(o, "label", cx + w / 2, sy + sh / 2 + 4, cell.stripes[i].label, "middle");
      }
      if (!cell.partial.empty())
        o << "<rect class=\"partial\" x=\"" << cx + 2 << "\" y=\"" << cy + 2 << "\" width=\"" << w - 4 << "\" height=\"" << h - 4
          << "\" fill=\"none\" stroke=\"#222222\" stroke-width=\"1\" stroke-dasharray=\"3,2\"/>\n";
      if (cell.mark != Mark::None)
        o << "<rect class=\"mark\" x=\"" << cx + 1 << "\" y=\"" << cy + 1 << "\" width=\"" << w - 2 << "\" height=\"" << h - 2
          << "\" fill=\"none\" stroke=\"" << mark_colour(cell.mark) << "\" stroke-width=\"3\"/>\n";
      o << "</g>\n";
    }
  }
  o << "</g>\n";
  return (y - y0) + static_cast<int>(g.rows) * h + kLine;
}

// An unlabelled grid (picture.hpp): squares of kSquare px (a cell of n stripes is n * kSquare / 2
// high when n > 1), every kGroup-th row and column numbered, white lines between groups, no
// text or tooltip per cell. Each square keeps data-label (and data-mark) for tools and tests,
// and the squares come in row-major order inside <g class="cells">.
constexpr int kSquare = 8;

int square_height(const Grid& g) {
  size_t n = 1;
  for (const auto& c : g.cells) n = std::max(n, c.stripes.size());
  return n == 1 ? kSquare : static_cast<int>(n) * kSquare / 2;
}

int index_header(const Grid& g) { return std::max(kRowHeader, text_width(std::to_string(g.rows)) + 8); }

int draw_unlabelled_grid(std::ostringstream& o, const Grid& g, int x0, int y0) {
  const int h = square_height(g), left = x0 + index_header(g);
  o << "<g class=\"grid\" data-kind=\"" << g.kind << "\" data-rows=\"" << g.rows << "\" data-cols=\"" << g.cols << "\" data-labels=\"dropped\">\n";
  int y = y0 + kLine - 4;
  text(o, "caption", x0, y, g.caption);
  y += kLine;
  for (int64_t c = 0; c < g.cols; c += kGroup) text(o, "col-index", left + static_cast<int>(c) * kSquare, y, std::to_string(c));
  y += 4;
  for (int64_t r = 0; r < g.rows; r += kGroup) text(o, "row-index", left - 6, y + static_cast<int>(r) * h + 8, std::to_string(r), "end");
  o << "<g class=\"cells\">\n";
  for (int64_t r = 0; r < g.rows; ++r)
    for (int64_t c = 0; c < g.cols; ++c) {
      const Cell& cell = g.cells[static_cast<size_t>(r * g.cols + c)];
      const int n = std::max<int>(1, static_cast<int>(cell.stripes.size())), sh = h / n;
      for (int i = 0; i < n; ++i) {
        const bool empty = cell.stripes.empty();
        o << "<rect x=\"" << left + static_cast<int>(c) * kSquare << "\" y=\"" << y + static_cast<int>(r) * h + i * sh << "\" width=\"" << kSquare
          << "\" height=\"" << sh << "\" fill=\"" << (empty ? "#eeeeee" : cell.stripes[i].fill) << "\" data-label=\""
          << (empty ? "" : xml_escape(cell.stripes[i].label)) << "\"";
        if (cell.mark != Mark::None) o << " data-mark=\"" << mark_name(cell.mark) << "\" stroke=\"" << mark_colour(cell.mark) << "\"";
        o << "/>\n";
      }
    }
  o << "</g>\n<path class=\"groups\" stroke=\"#ffffff\" stroke-width=\"1\" d=\"";
  const int w = static_cast<int>(g.cols) * kSquare, ht = static_cast<int>(g.rows) * h;
  for (int64_t c = kGroup; c < g.cols; c += kGroup) o << "M" << left + static_cast<int>(c) * kSquare << " " << y << "v" << ht;
  for (int64_t r = kGroup; r < g.rows; r += kGroup) o << "M" << left << " " << y + static_cast<int>(r) * h << "h" << w;
  o << "\"/>\n</g>\n";
  return (y - y0) + ht + kLine;
}

int grid_width(const Grid& g) {
  if (!labelled(g)) return index_header(g) + static_cast<int>(g.cols) * kSquare;
  return kRowHeader + static_cast<int>(g.cols) * cell_width(g);
}

}  // namespace

std::string palette(int64_t n) {
  // Hue steps of 137 degrees (near the golden angle 137.5, coprime with 360: 360 consecutive
  // values get distinct hues, and neighbours are 137 degrees apart). Saturation and lightness
  // keep black text readable while neighbours stay apart (CIE76 distance >= 40; draw_test).
  const int64_t hue = ((n % 360) * 137 % 360 + 360) % 360;
  const double s = 0.65, l = 0.78;
  const double c = (1 - std::fabs(2 * l - 1)) * s;
  const double hp = static_cast<double>(hue) / 60.0;
  const double x = c * (1 - std::fabs(std::fmod(hp, 2.0) - 1));
  double r = 0, g = 0, b = 0;
  switch (hue / 60) {
    case 0: r = c, g = x; break;
    case 1: r = x, g = c; break;
    case 2: g = c, b = x; break;
    case 3: g = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x; break;
  }
  const double m = l - c / 2;
  char buf[8];
  auto byte = [&](double v) { return static_cast<int>(std::lround((v + m) * 255)); };
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(r), byte(g), byte(b));
  return buf;
}

std::string colour_scale(int64_t v, int64_t lo, int64_t hi) {
  // Five stops of matplotlib's viridis; linear in between. Integer geometry elsewhere, but a
  // fraction here: IEEE double arithmetic is deterministic for these operations.
  static constexpr int kStops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  const double t = hi == lo ? 0.0 : static_cast<double>(static_cast<__int128>(v) - lo) / static_cast<double>(static_cast<__int128>(hi) - lo);
  const double at = std::clamp(t, 0.0, 1.0) * 4;
  const int k = std::min(3, static_cast<int>(at));
  const double f = at - k;
  char buf[8];
  auto mix = [&](int ch) { return static_cast<int>(std::lround(kStops[k][ch] + (kStops[k + 1][ch] - kStops[k][ch]) * f)); };
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", mix(0), mix(1), mix(2));
  return buf;
}

void require_drawable(int64_t cells, const std::string& what) {
  if (cells > kMaxCells)
    fail(rule::kDrawTooLarge, what + " needs " + std::to_string(cells) + " cells; a picture holds at most " + std::to_string(kMaxCells) +
                                  " (draw a slice or a mode of it: `tfspec layout slice`, `tfspec layout mode`)");
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') ? ' ' : ch;
    }
  }
  return out;
}

std::string to_svg(const Picture& p) {
  int width = std::max(240, text_width(p.title) * 9 / 7 + 2 * kMargin);  // the title is 13 px bold, the rest 11 px
  for (const auto& g : p.grids) width = std::max({width, grid_width(g) + 2 * kMargin, text_width(g.caption) + 2 * kMargin});
  for (const auto& n : p.notes) width = std::max(width, text_width(n) + 2 * kMargin);
  int entry = 0;
  for (const auto& e : p.legend) entry = std::max(entry, text_width(e.text) + 28);
  width = std::max(width, entry + 2 * kMargin);

  std::ostringstream body;
  int y = kMargin;
  body << "<text class=\"title\" x=\"" << kMargin << "\" y=\"" << y + 12 << "\" font-size=\"13\" font-weight=\"bold\">" << xml_escape(p.title) << "</text>\n";
  y += kLine + 8;
  for (const auto& g : p.grids) y += labelled(g) ? draw_grid(body, g, kMargin, y) : draw_unlabelled_grid(body, g, kMargin, y);
  if (!p.legend.empty()) {
    body << "<g class=\"legend\">\n";
    text(body, "caption", kMargin, y + kLine - 4, "legend");
    y += kLine;
    const int per_row = std::max(1, (width - 2 * kMargin) / entry);
    for (size_t i = 0; i < p.legend.size(); ++i) {
      const int ex = kMargin + static_cast<int>(i % per_row) * entry, ey = y + static_cast<int>(i / per_row) * kLine;
      body << "<g class=\"legend-entry\" data-text=\"" << xml_escape(p.legend[i].text) << "\"><rect x=\"" << ex << "\" y=\"" << ey + 2
           << "\" width=\"12\" height=\"12\" fill=\"" << p.legend[i].fill << "\" stroke=\"#555555\" stroke-width=\"0.5\"/>";
      body << "<text x=\"" << ex + 18 << "\" y=\"" << ey + 12 << "\">" << xml_escape(p.legend[i].text) << "</text></g>\n";
    }
    y += static_cast<int>((p.legend.size() + per_row - 1) / per_row) * kLine + 4;
    body << "</g>\n";
  }
  for (const auto& n : p.notes) {
    text(body, "note", kMargin, y + kLine - 4, n);
    y += kLine;
  }
  const int height = y + kMargin;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " "
      << height << "\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"11\">\n"
      << "<title>" << xml_escape(p.title) << "</title>\n"
      << "<rect width=\"" << width << "\" height=\"" << height << "\" fill=\"#ffffff\"/>\n"
      << body.str() << "</svg>\n";
  return out.str();
}

std::string inline_svg(const std::string& svg) {
  const auto at = svg.find("<svg");
  return at == std::string::npos ? svg : svg.substr(at);
}

}  // namespace tfspec::draw
