#include "base/status.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace memwal {
namespace {

using Factory = Status (*)(std::string_view);

struct CodeCase {
  Factory make;
  StatusCode code;
  std::string_view name;
};

// Every non-OK code, with its factory and printed name.
// clang-format off
constexpr CodeCase kCodeCases[] = {
    {&Status::InvalidArgument,    StatusCode::kInvalidArgument,    "InvalidArgument"},
    {&Status::NotFound,           StatusCode::kNotFound,           "NotFound"},
    {&Status::Corruption,         StatusCode::kCorruption,         "Corruption"},
    {&Status::IoError,            StatusCode::kIoError,            "IoError"},
    {&Status::Conflict,           StatusCode::kConflict,           "Conflict"},
    {&Status::FailedPrecondition, StatusCode::kFailedPrecondition, "FailedPrecondition"},
    {&Status::AlreadyExists,      StatusCode::kAlreadyExists,      "AlreadyExists"},
};
// clang-format on

TEST(Status, IsOkByDefault) {
  const Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kOk);
  EXPECT_EQ(status.message(), "");
  EXPECT_EQ(status.ToString(), "Ok");
  EXPECT_EQ(status, Status::Ok());
}

TEST(Status, CarriesItsCodeAndMessage) {
  for (const CodeCase& c : kCodeCases) {
    const Status status = c.make("version 7");
    EXPECT_FALSE(status.ok()) << c.name;
    EXPECT_EQ(status.code(), c.code) << c.name;
    EXPECT_EQ(status.message(), "version 7") << c.name;
    EXPECT_EQ(StatusCodeName(status.code()), c.name);
  }
}

TEST(Status, PrintsTheCodeNameThenTheMessage) {
  EXPECT_EQ(Status::NotFound("version 7").ToString(), "NotFound: version 7");
  EXPECT_EQ(Status::Corruption("").ToString(), "Corruption");
}

TEST(Status, EqualsOnlyTheSameCodeAndMessage) {
  EXPECT_EQ(Status::Conflict("a"), Status::Conflict("a"));
  EXPECT_NE(Status::Conflict("a"), Status::Conflict("b"));
  EXPECT_NE(Status::Conflict("a"), Status::AlreadyExists("a"));
}

RC_GTEST_PROP(Status, ToStringIsTheCodeNameThenAnyNonEmptyMessage,
              (const std::string& message)) {
  const auto index = *rc::gen::inRange<std::size_t>(0, std::size(kCodeCases));
  const CodeCase& c = kCodeCases[index];
  const Status status = c.make(message);
  RC_ASSERT(status.code() == c.code);
  RC_ASSERT(status.message() == message);
  const std::string want = message.empty()
                               ? std::string(c.name)
                               : std::string(c.name) + ": " + message;
  RC_ASSERT(status.ToString() == want);
}

TEST(Result, HoldsAValue) {
  const Result<int> result = 42;
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result.status().ok());
  EXPECT_EQ(result.value(), 42);
  EXPECT_EQ(*result, 42);
}

TEST(Result, HoldsAnError) {
  const Result<std::string> result = Status::NotFound("no such version");
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status(), Status::NotFound("no such version"));
}

TEST(Result, ConvertsFromValuesOfOtherTypes) {
  const Result<std::string> result = "text";
  EXPECT_EQ(result->size(), 4u);
}

TEST(Result, HoldsMoveOnlyValues) {
  Result<std::unique_ptr<int>> result = std::make_unique<int>(7);
  const std::unique_ptr<int> taken = std::move(result).value();
  EXPECT_EQ(*taken, 7);
}

TEST(ResultDeathTest, AbortsWhenTheValueOfAnErrorIsRead) {
  const Result<int> result = Status::IoError("disk");
  EXPECT_DEATH(static_cast<void>(result.value()),
               "MEMWAL_ASSERT\\(ok\\(\\)\\) failed");
}

TEST(ResultDeathTest, RefusesAnOkStatusInPlaceOfAValue) {
  EXPECT_DEATH(static_cast<void>(Result<int>{Status::Ok()}),
               "MEMWAL_ASSERT.*failed");
}

// Helpers for the propagation macros: a step fails on a negative input.
Result<int> Halve(int x) {
  if (x < 0) return Status::InvalidArgument("negative: " + std::to_string(x));
  return x / 2;
}

Status Check(int x) { return Halve(x).status(); }

Result<int> SumOfHalves(const std::vector<int>& xs) {
  int sum = 0;
  for (const int x : xs) {
    MEMWAL_ASSIGN_OR_RETURN(const int half, Halve(x));
    sum += half;
  }
  return sum;
}

Status CheckAll(const std::vector<int>& xs) {
  for (const int x : xs) MEMWAL_RETURN_IF_ERROR(Check(x));
  return Status::Ok();
}

TEST(StatusMacros, ReturnTheFirstErrorAndStopThere) {
  EXPECT_EQ(SumOfHalves({4, -1, -2}).status(),
            Status::InvalidArgument("negative: -1"));
  EXPECT_EQ(CheckAll({4, -3, -2}), Status::InvalidArgument("negative: -3"));
}

TEST(StatusMacros, PassValuesThroughWhenEveryStepSucceeds) {
  EXPECT_EQ(SumOfHalves({4, 6}).value(), 5);
  EXPECT_TRUE(CheckAll({4, 6}).ok());
}

RC_GTEST_PROP(StatusMacros, AssignOrReturnYieldsTheSumOrTheFirstError, ()) {
  // Small values keep the sum far from overflow; about one input in ten is an
  // error.
  const auto xs =
      *rc::gen::container<std::vector<int>>(rc::gen::inRange(-100, 1000));
  const Result<int> got = SumOfHalves(xs);
  int want = 0;
  for (const int x : xs) {
    if (x < 0) {
      RC_ASSERT(got.status() ==
                Status::InvalidArgument("negative: " + std::to_string(x)));
      return;
    }
    want += x / 2;
  }
  RC_ASSERT(got.ok());
  RC_ASSERT(got.value() == want);
}

}  // namespace
}  // namespace memwal
