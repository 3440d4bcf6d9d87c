// RunValidateCommand: arguments and exit codes of `memwal-check validate`; see
// validate.h.
#include "base/flags.h"
#include "base/output_file.h"
#include "checker/validate/validate.h"

namespace memwal::checker::validate {
namespace {

constexpr std::string_view kUsage =
    "usage: memwal-check validate TABLE_DIR [--protocol "
    "derived|advance|unconditional|legacy] [--env none|foreign] [--source "
    "DIR] [--json]";

struct Args {
  std::string table_dir;
  ValidateOptions options;
  bool json = false;
};

std::vector<Flag> ValidateFlags(Args* out) {
  return {Switch("--json", "one JSON object on stdout instead of text",
                 [out] { out->json = true; }),
          Valued("--protocol", "NAME",
                 "derived, advance, unconditional or legacy: overrides the\n"
                 "protocol inferred from the writer version",
                 [out](std::string_view value) -> Status {
                   MEMWAL_ASSIGN_OR_RETURN(out->options.protocol,
                                           model::ParseProtocol(value));
                   return Status::Ok();
                 }),
          Valued("--env", "NAME",
                 "none (default) or foreign: foreign writers' commits\n"
                 "(spec section 10) are candidates too",
                 [out](std::string_view value) -> Status {
                   MEMWAL_ASSIGN_OR_RETURN(out->options.env,
                                           model::ParseEnv(value));
                   return Status::Ok();
                 }),
          Valued("--source", "DIR",
                 "the source table of a shallow clone: the clone's first\n"
                 "version must keep the MemWAL feature bits of the source's\n"
                 "version it copies (R37)",
                 [out](std::string_view value) -> Status {
                   out->options.source = std::string(value);
                   return Status::Ok();
                 })};
}

Result<Args> ParseArgs(const std::vector<std::string>& args) {
  Args out;
  MEMWAL_ASSIGN_OR_RETURN(const ParsedFlags parsed,
                          ParseFlags("validate", args, ValidateFlags(&out), 1));
  if (!parsed.positional.empty()) out.table_dir = parsed.positional[0];
  if (out.table_dir.empty())
    return Status::InvalidArgument("missing TABLE_DIR");
  return out;
}

}  // namespace

std::vector<Flag> ValidateFlagTable() { return HelpTable(&ValidateFlags); }

std::string ValidateAbout() {
  return "Trace validation: explains every pair of consecutive retained "
         "versions of a Lance\ntable directory as a step of the model (silent "
         "flushes, then one table action: a\nbegin on the transaction's read "
         "version and its Commit, or a Restore), whose\noutcome, abstracted as "
         "lockstep abstracts the implementation, equals the next\nversion; "
         "checks every invariant on every version and the WAL's final state.\n"
         "Prints each step with the actions that explain it, every step it "
         "cannot judge with\nthe reason, and what it does not compare "
         "(docs/validate.md).\n"
         "Exit 0 valid, 1 invalid (the first unexplained step: both versions, "
         "the operation,\nthe candidates tried, the closest one's "
         "difference), 3 incomplete (versions cleaned\nup or outside the "
         "model), 2 bad usage or unreadable input.\n";
}

int RunValidateCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err) {
  const Result<Args> parsed = ParseArgs(args);
  if (!parsed.ok()) {
    err << "memwal-check validate: " << Escaped(parsed.status().message(), 400)
        << " (" << kUsage << ")\n";
    return 2;
  }
  const Result<Validation> validation =
      Validate(parsed->table_dir, parsed->options);
  if (!validation.ok()) {
    err << "memwal-check validate: "
        << Escaped(validation.status().message(), 400) << "\n";
    return 2;
  }
  if (parsed->json) {
    RenderJson(*validation, out);
  } else {
    RenderText(*validation, out);
  }
  switch (validation->verdict) {
    case Verdict::kValid:
      return 0;
    case Verdict::kInvalid:
      return 1;
    case Verdict::kIncomplete:
      return 3;
  }
  return 2;
}

}  // namespace memwal::checker::validate
