// Reads a picture back as XML (libxml2): a test sees what a renderer sees, not our strings.
#pragma once
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tfspec::draw::testing {

using Attrs = std::map<std::string, std::string>;

// Every element matching `xpath` (the SVG namespace is prefix `s`), as its attributes. Throws
// when the text is not well-formed XML.
inline std::vector<Attrs> select(const std::string& xml, const std::string& xpath) {
  xmlDocPtr doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "picture.svg", nullptr, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc) throw std::runtime_error("not well-formed XML");
  xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
  xmlXPathRegisterNs(ctx, BAD_CAST "s", BAD_CAST "http://www.w3.org/2000/svg");
  xmlXPathRegisterNs(ctx, BAD_CAST "h", BAD_CAST "http://www.w3.org/1999/xhtml");
  xmlXPathObjectPtr res = xmlXPathEvalExpression(BAD_CAST xpath.c_str(), ctx);
  std::vector<Attrs> out;
  if (res && res->nodesetval)
    for (int i = 0; i < res->nodesetval->nodeNr; ++i) {
      Attrs a;
      xmlNodePtr n = res->nodesetval->nodeTab[i];
      for (xmlAttrPtr p = n->properties; p; p = p->next) {
        xmlChar* v = xmlNodeGetContent(reinterpret_cast<xmlNodePtr>(p));
        a[reinterpret_cast<const char*>(p->name)] = v ? reinterpret_cast<const char*>(v) : "";
        xmlFree(v);
      }
      xmlChar* text = xmlNodeGetContent(n);
      a["#text"] = text ? reinterpret_cast<const char*>(text) : "";
      xmlFree(text);
      out.push_back(std::move(a));
    }
  xmlXPathFreeObject(res);
  xmlXPathFreeContext(ctx);
  xmlFreeDoc(doc);
  return out;
}

// data-label of every cell of the grid of kind `kind`, by (row, col).
inline std::map<std::pair<int, int>, std::string> labels(const std::string& svg, const std::string& kind) {
  std::map<std::pair<int, int>, std::string> out;
  for (const auto& c : select(svg, "//s:g[@class='grid'][@data-kind='" + kind + "']/s:g[@class='cell']"))
    out[{std::stoi(c.at("data-row")), std::stoi(c.at("data-col"))}] = c.at("data-label");
  return out;
}

// The cells of a grid that carry a data-mark, as (row, col).
inline std::vector<std::pair<int, int>> marked(const std::string& svg, const std::string& kind) {
  std::vector<std::pair<int, int>> out;
  for (const auto& c : select(svg, "//s:g[@class='grid'][@data-kind='" + kind + "']/s:g[@class='cell'][@data-mark]"))
    out.emplace_back(std::stoi(c.at("data-row")), std::stoi(c.at("data-col")));
  return out;
}

}  // namespace tfspec::draw::testing
