// Cat: concatenation for the report's text and HTML (report.cc,
// report_html.cc).
#ifndef MEMWAL_CHECKER_REPORT_CAT_H_
#define MEMWAL_CHECKER_REPORT_CAT_H_

#include <string>

namespace memwal::checker::report {

// Concatenates by appending: GCC 12's -Wrestrict misfires on chains of
// operator+ that start from a literal.
template <typename... Parts>
std::string Cat(const Parts&... parts) {
  std::string out;
  ((out += parts), ...);
  return out;
}

}  // namespace memwal::checker::report

#endif  // MEMWAL_CHECKER_REPORT_CAT_H_
