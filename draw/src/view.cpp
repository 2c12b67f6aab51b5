#include "view.hpp"

#include "picture.hpp"
#include "tfspec/reference/notation.hpp"

namespace tfspec::draw {

View rank2_view(const LayoutBase& l) {
  View v;
  v.shape = l.shape();
  v.size = product_int(v.shape, "draw");
  require_drawable(v.size, "the layout " + to_string(l));
  v.rows = v.shape.is_tuple() && v.shape.len() >= 2 ? product_int(v.shape[0], "draw") : v.size;
  v.cols = v.rows == 0 ? 0 : v.size / v.rows;
  return v;
}

IntTuple domain_point(const View& v, int64_t i) { return v.shape.is_tuple() && v.shape.len() == 0 ? IntTuple() : IntTuple(i); }

std::string coord_words(const View& v, int64_t i) {
  if (v.shape.is_tuple() && v.shape.len() == 0) return "()";
  return coord_to_string(idx2crd(i, v.shape));
}

}  // namespace tfspec::draw
