// JUnit XML writer (checker/report/junit.h).
#include "checker/report/junit.h"

#include <cstdio>

#include "base/escape.h"

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
  *xml += "    <testcase classname=\"" + MarkupEscaped(c.classname) +
          "\" name=\"" + MarkupEscaped(c.name) + "\" time=\"" +
          Seconds(c.seconds) + "\"";
  switch (c.result) {
    case JunitCase::Result::kPassed:
      *xml += "/>\n";
      return;
    case JunitCase::Result::kSkipped:
      *xml += ">\n      <skipped message=\"" + MarkupEscaped(c.message) +
              "\"/>\n    </testcase>\n";
      return;
    case JunitCase::Result::kFailed:
      *xml += ">\n      <failure message=\"" + MarkupEscaped(c.message) +
              "\" type=\"violation\">" + MarkupEscaped(c.body) +
              "</failure>\n    </testcase>\n";
      return;
  }
}

}  // namespace

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
    xml += "  <testsuite name=\"" + MarkupEscaped(suite.name) + "\" tests=\"" +
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
