// The one command-line parser of memwal-check: every subcommand (check,
// replay, variants, compare, corpus, minimize, bench, report, inspect) lists
// its options as a table of Flags and hands argv to ParseFlags, so that
// values, unknown options, --help and positional arguments are treated the
// same way everywhere.
//
//   std::vector<Flag> flags = {
//       Switch("--json", [&] { json = true; }),
//       Valued("--out", [&](std::string_view dir) { ... return Status::Ok();
//       }),
//   };
//   MEMWAL_ASSIGN_OR_RETURN(ParsedFlags parsed,
//                           ParseFlags("minimize", args, flags, 1));
//
// A flag's value is the next argument, whatever it looks like ("--out -x"
// takes "-x"). "--help" and "-h" end parsing with ParsedFlags::help. Any other
// argument that starts with '-' and is not in the table is refused, as is a
// positional argument beyond `max_positional`. A later flag overrides an
// earlier one where the table's action assigns; the action decides.
#ifndef MEMWAL_BASE_FLAGS_H_
#define MEMWAL_BASE_FLAGS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace memwal {

struct Flag {
  std::string name;  // "--shards"
  bool takes_value = false;
  // Called with the flag's value ("" for a switch); an error ends parsing
  // with that error.
  std::function<Status(std::string_view value)> apply;
  // For --help (FlagsHelp): the value's placeholder ("N"; "" for a switch)
  // and what the flag does ('\n' starts a continuation line).
  std::string value_name{};
  std::string help{};
};

// A flag without a value.
Flag Switch(std::string name, std::function<void()> apply);
Flag Switch(std::string name, std::string help, std::function<void()> apply);
// A flag with a value.
Flag Valued(std::string name,
            std::function<Status(std::string_view value)> apply);
Flag Valued(std::string name, std::string value_name, std::string help,
            std::function<Status(std::string_view value)> apply);
// `flag` with its help text.
Flag Described(Flag flag, std::string value_name, std::string help);

struct ParsedFlags {
  bool help = false;                    // --help or -h was given
  std::vector<std::string> positional;  // in order
};

// Parses `args` (the subcommand's arguments, its name excluded) against
// `flags`. Errors are InvalidArgument with one line; the caller prefixes
// "memwal-check COMMAND: " (checker/cli/commands.h), so the message does not
// name `command` again except in its "(see COMMAND --help)" hint.
Result<ParsedFlags> ParseFlags(std::string_view command,
                               const std::vector<std::string>& args,
                               const std::vector<Flag>& flags,
                               std::size_t max_positional = 0);

// The options section of a command's --help: one entry per flag of `flags`,
// in the table's order, "  --name VALUE  help" with the help aligned.
std::string FlagsHelp(const std::vector<Flag>& flags);

// Whether `args` asks for --help (or -h) where ParseFlags would see it: not
// as the value of a flag that takes one. Applies no flag.
bool AsksForHelp(const std::vector<std::string>& args,
                 const std::vector<Flag>& flags);

// `make`'s table bound to a fresh T that the flags' actions keep alive: the
// table a command lists in --help without parsing anything.
template <typename T>
std::vector<Flag> HelpTable(std::vector<Flag> (*make)(T* options)) {
  const std::shared_ptr<T> options = std::make_shared<T>();
  std::vector<Flag> flags = make(options.get());
  for (Flag& flag : flags) {
    flag.apply = [options, apply = std::move(flag.apply)](
                     std::string_view value) { return apply(value); };
  }
  return flags;
}

// A non-negative decimal integer of at most 18 digits, for `flag`'s value.
Result<uint64_t> ParseUnsigned(std::string_view flag, std::string_view text);

}  // namespace memwal

#endif  // MEMWAL_BASE_FLAGS_H_
