// RunInspectCommand: argument parsing and exit codes of `memwal-check inspect`;
// see inspect.h.
#include <charconv>

#include "base/flags.h"
#include "base/memory.h"
#include "base/output_file.h"
#include "inspect/inspect.h"
#include "inspect/render.h"

namespace memwal::inspect {
namespace {

constexpr std::string_view kUsage =
    "usage: memwal-check inspect TABLE_DIR [--version N] [--json] "
    "[--protocol derived|advance|unconditional|legacy]";

struct Args {
  std::string table_dir;
  InspectOptions options;
  bool json = false;
};

Result<impl::Protocol> ParseProtocol(std::string_view text) {
  if (text == "derived") return impl::Protocol::kDerived;
  if (text == "advance") return impl::Protocol::kAdvance;
  if (text == "unconditional") return impl::Protocol::kUnconditional;
  if (text == "legacy") return impl::Protocol::kLegacy;
  return Status::InvalidArgument("unknown protocol \"" + std::string(text) +
                                 "\"");
}

Result<uint64_t> ParseVersion(std::string_view text) {
  uint64_t value = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0) {
    return Status::InvalidArgument(
        "--version needs a positive integer, not \"" + std::string(text) +
        "\"");
  }
  return value;
}

std::vector<Flag> InspectFlags(Args* out) {
  return {Switch("--json", "one JSON object on stdout instead of text",
                 [out] { out->json = true; }),
          Valued("--version", "N", "read version N (default: the newest)",
                 [out](std::string_view value) -> Status {
                   MEMWAL_ASSIGN_OR_RETURN(out->options.version,
                                           ParseVersion(value));
                   return Status::Ok();
                 }),
          Valued("--protocol", "NAME",
                 "derived, advance, unconditional or legacy: overrides the\n"
                 "protocol inferred from the writer version",
                 [out](std::string_view value) -> Status {
                   MEMWAL_ASSIGN_OR_RETURN(out->options.protocol,
                                           ParseProtocol(value));
                   return Status::Ok();
                 })};
}

Result<Args> ParseArgs(const std::vector<std::string>& args) {
  Args out;
  MEMWAL_ASSIGN_OR_RETURN(const ParsedFlags parsed,
                          ParseFlags("inspect", args, InspectFlags(&out), 1));
  if (!parsed.positional.empty()) out.table_dir = parsed.positional[0];
  if (out.table_dir.empty())
    return Status::InvalidArgument("missing TABLE_DIR");
  return out;
}

// One line: the status message without its code name, control characters
// (newlines, escape sequences from a file name) escaped.
std::string OneLine(const Status& status) {
  return Escaped(status.message(), 400);
}

}  // namespace

std::vector<Flag> InspectFlagTable() { return HelpTable(&InspectFlags); }

std::string InspectAbout() {
  return "Reads a Lance table directory (the newest version, or --version N) "
         "and reports its\nversions, fragments, indexes, MemWAL details, "
         "shard manifests and SSTables, the\nexclusion watermark of every "
         "shard, query shape and read mode (spec R40), which\nSSTables the "
         "retirement rule allows to retire (R12), and each invariant one "
         "table\ncan answer, as ok or a finding.\n"
         "Exit 0 when the table was read (findings included), 2 on bad usage "
         "or unreadable\nor corrupt input.\n";
}

int RunInspectCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err) {
  const Result<Args> parsed = ParseArgs(args);
  if (!parsed.ok()) {
    err << "memwal-check inspect: " << OneLine(parsed.status()) << " ("
        << kUsage << ")\n";
    return 2;
  }
  const Result<TableReport> report =
      Inspect(parsed->table_dir, parsed->options);
  if (!report.ok()) {
    err << "memwal-check inspect: " << OneLine(report.status()) << "\n";
    return 2;
  }
  SetPartialCount("versions read", report->versions.size());
  if (parsed->json) {
    RenderJson(*report, out);
  } else {
    RenderText(*report, out);
  }
  return 0;
}

}  // namespace memwal::inspect
