// `tfspec layout print`: a layout in the terminal as CuTe's print_layout prints it (a table of
// offsets with +---+ rules), or as CuTe's print_latex writes it (a TikZ picture). The same
// rank-2 view as the pictures (view.hpp); the offsets are the reference's L(i) (§2-§4, D1).
#include <algorithm>
#include <sstream>

#include "tfspec/draw/draw.hpp"
#include "tfspec/reference/notation.hpp"
#include "view.hpp"

namespace tfspec::draw {
namespace {

struct Table {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> offset;  // row-major: offset[r * cols + c] = L(r + rows * c)
  int64_t at(int64_t r, int64_t c) const { return offset[static_cast<size_t>(r * cols + c)]; }
};

Table offsets(const LayoutBase& l) {
  const View v = rank2_view(l);
  Table t{v.rows, v.cols, std::vector<int64_t>(static_cast<size_t>(v.size))};
  for (int64_t r = 0; r < v.rows; ++r)
    for (int64_t c = 0; c < v.cols; ++c) t.offset[static_cast<size_t>(r * v.cols + c)] = l.apply(domain_point(v, r + v.rows * c));
  return t;
}

std::string right(const std::string& s, size_t width) { return std::string(width > s.size() ? width - s.size() : 0, ' ') + s; }

// CuTe sizes every cell by the digits of cosize (max offset + 1 here, for any layout kind);
// the widest offset (a negative one) or column index widens it so the table stays aligned.
size_t cell_width(const Table& t) {
  int64_t top = 0;
  for (int64_t o : t.offset) top = std::max(top, o);
  size_t w = std::to_string(top + 1).size();
  for (int64_t o : t.offset) w = std::max(w, std::to_string(o).size());
  return std::max(w, std::to_string(t.cols - 1).size());
}

}  // namespace

std::string print_layout(const LayoutBase& l) {
  const Table t = offsets(l);
  const size_t w = cell_width(t), rw = std::max<size_t>(2, std::to_string(t.rows - 1).size());
  const std::string indent(rw + 2, ' ');
  std::string rule = indent;
  for (int64_t c = 0; c < t.cols; ++c) rule += "+" + std::string(w + 2, '-');
  rule += "+\n";
  std::ostringstream o;
  o << to_string(l) << "\n";
  std::string header = indent;
  for (int64_t c = 0; c < t.cols; ++c) header += "  " + right(std::to_string(c), w) + " ";
  header.erase(header.find_last_not_of(' ') + 1);  // CuTe leaves a trailing blank; a terminal does not need it
  o << header << "\n";
  for (int64_t r = 0; r < t.rows; ++r) {
    o << rule << right(std::to_string(r), rw) << "  ";
    for (int64_t c = 0; c < t.cols; ++c) o << "| " << right(std::to_string(t.at(r, c)), w) << " ";
    o << "|\n";
  }
  o << rule;
  return o.str();
}

std::string print_latex(const LayoutBase& l) {
  const Table t = offsets(l);
  std::ostringstream o;
  o << "% Layout: " << to_string(l) << "\n"
    << "\\documentclass[convert]{standalone}\n\\usepackage{tikz}\n\n\\begin{document}\n"
    << "\\begin{tikzpicture}[x={(0cm,-1cm)},y={(1cm,0cm)},every node/.style={minimum size=1cm, outer sep=0pt}]\n\n";
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t c = 0; c < t.cols; ++c) {
      const std::string fill = palette(t.at(r, c));  // the pictures' colour of the offset, #rrggbb
      o << "\\node[fill={rgb,255:red," << std::stoi(fill.substr(1, 2), nullptr, 16) << ";green," << std::stoi(fill.substr(3, 2), nullptr, 16)
        << ";blue," << std::stoi(fill.substr(5, 2), nullptr, 16) << "}] at (" << r << "," << c << ") {" << t.at(r, c) << "};\n";
    }
  o << "\\draw[color=black,thick,shift={(-0.5,-0.5)}] (0,0) grid (" << t.rows << "," << t.cols << ");\n\n";
  for (int64_t r = 0; r < t.rows; ++r) o << "\\node at (" << r << ",-1) {\\Large{\\texttt{" << r << "}}};\n";
  for (int64_t c = 0; c < t.cols; ++c) o << "\\node at (-1," << c << ") {\\Large{\\texttt{" << c << "}}};\n";
  o << "\\end{tikzpicture}\n\\end{document}\n";
  return o.str();
}

}  // namespace tfspec::draw
