// JUnit XML for CI: one test case per invariant, per reachability goal, for
// the liveness property and for the implementation's agreement with the model.
//
// The document is the common JUnit schema that CI systems read:
//   <testsuites><testsuite name=.. tests=.. failures=.. skipped=.. time=..>
//     <testcase classname="memwal-check.invariant" name="ReadsMissNoRows"
//     time=..>
//       <failure message=.. type="violation">trace and reproduce
//       command</failure>
//     </testcase> ...
// A case passes when the run is complete and the property holds; fails when
// the run broke it (invariant, liveness, implementation) or missed it (goal);
// is skipped when the run stopped before it could decide (an earlier
// violation, a budget, or a goal not applicable to the variant).
#ifndef MEMWAL_CHECKER_REPORT_JUNIT_H_
#define MEMWAL_CHECKER_REPORT_JUNIT_H_

#include <string>
#include <string_view>
#include <vector>

namespace memwal::checker::report {

struct JunitCase {
  std::string classname{};
  std::string name{};
  enum class Result { kPassed, kFailed, kSkipped } result = Result::kPassed;
  std::string message{};  // one line: why failed or skipped
  std::string body{};     // failure text: the trace and the reproduce command
  double seconds = 0;
};

struct JunitSuite {
  std::string name{};
  double seconds = 0;
  std::vector<JunitCase> cases{};
};

// The whole document, starting with the XML declaration.
std::string JunitXml(const std::vector<JunitSuite>& suites);

}  // namespace memwal::checker::report

#endif  // MEMWAL_CHECKER_REPORT_JUNIT_H_
