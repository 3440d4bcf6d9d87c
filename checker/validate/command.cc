// RunValidateCommand: arguments and exit codes of `memwal-check validate`; see
// validate.h.
#include "base/flags.h"
#include "base/output_file.h"
#include "checker/validate/validate.h"

namespace memwal::checker::validate {
namespace {

constexpr std::string_view kUsage =
    "usage: memwal-check validate TABLE_DIR [--protocol "
    "derived|advance|unconditional|legacy] [--env none|foreign] [--json]";

struct Args {
  std::string table_dir;
  ValidateOptions options;
  bool json = false;
  bool help = false;
};

Result<Args> ParseArgs(const std::vector<std::string>& args) {
  Args out;
  const std::vector<Flag> flags = {
      Switch("--json", [&out] { out.json = true; }),
      Valued("--protocol",
             [&out](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(out.options.protocol,
                                       model::ParseProtocol(value));
               return Status::Ok();
             }),
      Valued("--env", [&out](std::string_view value) -> Status {
        MEMWAL_ASSIGN_OR_RETURN(out.options.env, model::ParseEnv(value));
        return Status::Ok();
      })};
  MEMWAL_ASSIGN_OR_RETURN(const ParsedFlags parsed,
                          ParseFlags("validate", args, flags, 1));
  out.help = parsed.help;
  if (!parsed.positional.empty()) out.table_dir = parsed.positional[0];
  if (out.table_dir.empty() && !out.help)
    return Status::InvalidArgument("missing TABLE_DIR");
  return out;
}

constexpr std::string_view kHelp =
    "Trace validation: explains every pair of consecutive retained versions of "
    "a Lance\n"
    "table directory as a step of the model (silent flushes, then one table "
    "action: a\n"
    "begin on the transaction's read version and its Commit, or a Restore), "
    "whose outcome,\n"
    "abstracted as lockstep abstracts the implementation, equals the next "
    "version; checks\n"
    "every invariant on every version and the WAL's final state. Prints each "
    "step with the\n"
    "actions that explain it, every step it cannot judge with the reason, and "
    "what it does\n"
    "not compare. Exit 0 valid, 1 invalid (the first unexplained step: both "
    "versions, the\n"
    "operation, the candidates tried, the closest one's difference), 3 "
    "incomplete (versions\n"
    "cleaned up or outside the model), 2 bad usage or unreadable input. "
    "docs/validate.md.\n";

}  // namespace

int RunValidateCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err) {
  const Result<Args> parsed = ParseArgs(args);
  if (!parsed.ok()) {
    err << "memwal-check validate: " << Escaped(parsed.status().message(), 400)
        << " (" << kUsage << ")\n";
    return 2;
  }
  if (parsed->help) {
    out << kUsage << "\n" << kHelp;
    return 0;
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
