// RunInspectCommand: argument parsing and exit codes of `memwal-check inspect`;
// see inspect.h.
#include <charconv>

#include "base/flags.h"
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
  bool help = false;
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

Result<Args> ParseArgs(const std::vector<std::string>& args) {
  Args out;
  const std::vector<Flag> flags = {
      Switch("--json", [&out] { out.json = true; }),
      Valued("--version",
             [&out](std::string_view value) -> Status {
               MEMWAL_ASSIGN_OR_RETURN(out.options.version,
                                       ParseVersion(value));
               return Status::Ok();
             }),
      Valued("--protocol", [&out](std::string_view value) -> Status {
        MEMWAL_ASSIGN_OR_RETURN(out.options.protocol, ParseProtocol(value));
        return Status::Ok();
      })};
  MEMWAL_ASSIGN_OR_RETURN(const ParsedFlags parsed,
                          ParseFlags("inspect", args, flags, 1));
  out.help = parsed.help;
  if (!parsed.positional.empty()) out.table_dir = parsed.positional[0];
  if (out.table_dir.empty() && !out.help)
    return Status::InvalidArgument("missing TABLE_DIR");
  return out;
}

// One line: the status message without its code name, control characters
// (newlines, escape sequences from a file name) escaped.
std::string OneLine(const Status& status) {
  return Escaped(status.message(), 400);
}

}  // namespace

int RunInspectCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err) {
  const Result<Args> parsed = ParseArgs(args);
  if (!parsed.ok()) {
    err << "memwal-check inspect: " << OneLine(parsed.status()) << " ("
        << kUsage << ")\n";
    return 2;
  }
  if (parsed->help) {
    out << kUsage << "\n"
        << "Reads a Lance table directory (the newest version, or --version N) "
           "and reports its\n"
        << "versions, fragments, indexes, MemWAL details, shard manifests and "
           "SSTables, the\n"
        << "exclusion watermark of every shard, query shape and read mode "
           "(spec R40), which\n"
        << "SSTables the retirement rule allows to retire (R12), and each "
           "invariant one table\n"
        << "can answer, as ok or a finding. --protocol overrides the protocol "
           "inferred from the\n"
        << "writer version. Exit 0 when the table was read (findings "
           "included), 2 on bad\n"
        << "usage or unreadable or corrupt input.\n";
    return 0;
  }
  const Result<TableReport> report =
      Inspect(parsed->table_dir, parsed->options);
  if (!report.ok()) {
    err << "memwal-check inspect: " << OneLine(report.status()) << "\n";
    return 2;
  }
  if (parsed->json) {
    RenderJson(*report, out);
  } else {
    RenderText(*report, out);
  }
  return 0;
}

}  // namespace memwal::inspect
