// JUnit XML writer (checker/report/junit.h).
#include "checker/report/junit.h"

#include <cstdio>

namespace memwal::checker::report {
namespace {

std::string Seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", seconds < 0 ? 0.0 : seconds);
  return text;
}

int Count(const JunitSuite& suite, JunitCase::Result result) {
  int count = 0;
  for (const JunitCase& c : suite.cases) count += c.result == result;
  return count;
}

void AppendCase(const JunitCase& c, std::string* xml) {
  *xml += "    <testcase classname=\"" + XmlEscape(c.classname) + "\" name=\"" +
          XmlEscape(c.name) + "\" time=\"" + Seconds(c.seconds) + "\"";
  switch (c.result) {
    case JunitCase::Result::kPassed:
      *xml += "/>\n";
      return;
    case JunitCase::Result::kSkipped:
      *xml += ">\n      <skipped message=\"" + XmlEscape(c.message) +
              "\"/>\n    </testcase>\n";
      return;
    case JunitCase::Result::kFailed:
      *xml += ">\n      <failure message=\"" + XmlEscape(c.message) +
              "\" type=\"violation\">" + XmlEscape(c.body) +
              "</failure>\n    </testcase>\n";
      return;
  }
}

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 allows only tab, newline and carriage return below 0x20.
        if (byte < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') break;
        out += ch;
    }
  }
  return out;
}

std::string JunitXml(const std::vector<JunitSuite>& suites) {
  int tests = 0;
  int failures = 0;
  double seconds = 0;
  for (const JunitSuite& suite : suites) {
    tests += static_cast<int>(suite.cases.size());
    failures += Count(suite, JunitCase::Result::kFailed);
    seconds += suite.seconds;
  }
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += "<testsuites name=\"memwal-check\" tests=\"" + std::to_string(tests) +
         "\" failures=\"" + std::to_string(failures) + "\" time=\"" +
         Seconds(seconds) + "\">\n";
  for (const JunitSuite& suite : suites) {
    xml += "  <testsuite name=\"" + XmlEscape(suite.name) + "\" tests=\"" +
           std::to_string(suite.cases.size()) + "\" failures=\"" +
           std::to_string(Count(suite, JunitCase::Result::kFailed)) +
           "\" errors=\"0\" skipped=\"" +
           std::to_string(Count(suite, JunitCase::Result::kSkipped)) +
           "\" time=\"" + Seconds(suite.seconds) + "\">\n";
    for (const JunitCase& c : suite.cases) AppendCase(c, &xml);
    xml += "  </testsuite>\n";
  }
  xml += "</testsuites>\n";
  return xml;
}

}  // namespace memwal::checker::report
