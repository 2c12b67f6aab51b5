// The conform JUnit report against the structure Jenkins' and GitLab's JUnit readers expect
// (the element and attribute layout of Jenkins' junit-10.xsd, written out below): testsuites >
// testsuite (name, tests, failures, errors, skipped, time; optional properties) > testcase (name,
// classname, time; at most one of skipped / error / failure, each with a message). Validated with
// libxml2's XML Schema validator for a report that has every status and a stopped run.
#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/xmlschemas.h>

#include <cstdarg>
#include <cstdio>
#include <string>

#include "tfspec/conformance/runner.hpp"

using namespace tfspec;
using namespace tfspec::conformance;

namespace {

const char* kJunitSchema = R"XSD(<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <xs:complexType name="problem">
    <xs:simpleContent>
      <xs:extension base="xs:string">
        <xs:attribute name="message" type="xs:string" use="required"/>
        <xs:attribute name="type" type="xs:string"/>
      </xs:extension>
    </xs:simpleContent>
  </xs:complexType>
  <xs:element name="testcase">
    <xs:complexType>
      <xs:sequence>
        <xs:choice minOccurs="0" maxOccurs="1">
          <xs:element name="skipped" type="problem"/>
          <xs:element name="error" type="problem"/>
          <xs:element name="failure" type="problem"/>
        </xs:choice>
        <xs:element name="system-out" type="xs:string" minOccurs="0"/>
        <xs:element name="system-err" type="xs:string" minOccurs="0"/>
      </xs:sequence>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="classname" type="xs:string" use="required"/>
      <xs:attribute name="time" type="xs:decimal" use="required"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="testsuite">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="properties" minOccurs="0">
          <xs:complexType>
            <xs:sequence>
              <xs:element name="property" maxOccurs="unbounded">
                <xs:complexType>
                  <xs:attribute name="name" type="xs:string" use="required"/>
                  <xs:attribute name="value" type="xs:string" use="required"/>
                </xs:complexType>
              </xs:element>
            </xs:sequence>
          </xs:complexType>
        </xs:element>
        <xs:element ref="testcase" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element name="system-out" type="xs:string" minOccurs="0"/>
        <xs:element name="system-err" type="xs:string" minOccurs="0"/>
      </xs:sequence>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="tests" type="xs:nonNegativeInteger" use="required"/>
      <xs:attribute name="failures" type="xs:nonNegativeInteger" use="required"/>
      <xs:attribute name="errors" type="xs:nonNegativeInteger" use="required"/>
      <xs:attribute name="skipped" type="xs:nonNegativeInteger" use="required"/>
      <xs:attribute name="time" type="xs:decimal" use="required"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="testsuites">
    <xs:complexType>
      <xs:sequence>
        <xs:element ref="testsuite" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence>
      <xs:attribute name="name" type="xs:string"/>
      <xs:attribute name="tests" type="xs:nonNegativeInteger"/>
      <xs:attribute name="failures" type="xs:nonNegativeInteger"/>
      <xs:attribute name="errors" type="xs:nonNegativeInteger"/>
      <xs:attribute name="skipped" type="xs:nonNegativeInteger"/>
      <xs:attribute name="time" type="xs:decimal"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
)XSD";

// libxml2's error callback: appends to the std::string given as its context.
void collect(void* ctx, const char* msg, ...) {
  va_list args;
  va_start(args, msg);
  char buf[512];
  vsnprintf(buf, sizeof buf, msg, args);
  va_end(args);
  *static_cast<std::string*>(ctx) += buf;
}

// libxml2's verdict: "" when `xml` is valid against the schema, else the errors.
std::string schema_problems(const std::string& xml) {
  std::string errors;
  xmlSchemaParserCtxtPtr pctx = xmlSchemaNewMemParserCtxt(kJunitSchema, static_cast<int>(std::string(kJunitSchema).size()));
  xmlSchemaSetParserErrors(pctx, collect, collect, &errors);
  xmlSchemaPtr schema = xmlSchemaParse(pctx);
  if (!schema) return "the schema does not parse: " + errors;
  xmlDocPtr doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "junit.xml", nullptr, XML_PARSE_NONET);
  if (!doc) errors += "not well-formed XML";
  xmlSchemaValidCtxtPtr vctx = xmlSchemaNewValidCtxt(schema);
  xmlSchemaSetValidErrors(vctx, collect, collect, &errors);
  if (doc && xmlSchemaValidateDoc(vctx, doc) != 0 && errors.empty()) errors = "invalid";
  xmlSchemaFreeValidCtxt(vctx);
  if (doc) xmlFreeDoc(doc);
  xmlSchemaFree(schema);
  xmlSchemaFreeParserCtxt(pctx);
  return errors;
}

TEST(JunitSchema, AReportWithEveryStatusIsValid) {
  std::vector<CorpusCase> cases(7);
  const char* ids[] = {"s3-pass", "s3-fail", "s3-errored", "s5-unsupported", "s5-xfail", "s5-xpass", "s7-not-run"};
  for (size_t i = 0; i < cases.size(); ++i) {
    cases[i].id = ids[i];
    cases[i].clause = i < 3 ? "§3" : i < 6 ? "§5" : "§7.1";
    cases[i].op = "cosize";
    cases[i].expect = Json(8);
  }
  Report r;
  r.implementation = Json{{"name", "every <status> & \"co\""}};
  r.stopped = "stopped after 5 consecutive timeouts";
  auto add = [&](size_t i, Status s, bool xfail, const std::string& detail, Json actual = Json()) {
    CaseOutcome o;
    o.c = &cases[i];
    o.status = s;
    o.expected_failure = xfail;
    o.detail = detail;
    o.actual = std::move(actual);
    o.seconds = 0.001 * static_cast<double>(i);
    r.cases.push_back(o);
  };
  add(0, Status::Pass, false, "", Json(8));
  add(1, Status::Fail, false, "result differs: <7> & \"8\"", Json(7));
  add(2, Status::Errored, false, "killed by signal 6 (Aborted)");
  r.cases.back().stderr_tail = "line one\nline <two>\n";
  add(3, Status::Unsupported, false, "op not listed in the handshake");
  add(4, Status::Fail, true, "result differs", Json(7));
  add(5, Status::Pass, true, "", Json(8));
  add(6, Status::Errored, false, "not run: " + r.stopped);
  r.cases.back().not_run = true;
  const std::string xml = junit_report(r);
  EXPECT_EQ(schema_problems(xml), "") << xml;
  // The schema itself refuses what it must: a testcase without time, two results in one case.
  EXPECT_NE(schema_problems(R"(<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0" time="0"><testcase name="x" classname="y"/></testsuite></testsuites>)"), "");
  EXPECT_NE(schema_problems(R"(<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0" time="0"><testcase name="x" classname="y" time="0"><failure message="m"/><error message="m"/></testcase></testsuite></testsuites>)"), "");
}

}  // namespace
