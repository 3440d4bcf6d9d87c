// The command-line parser (base/flags.h).
#include "base/flags.h"

#include <algorithm>
#include <utility>

#include "base/output_file.h"

namespace memwal {

Flag Switch(std::string name, std::function<void()> apply) {
  return Flag{.name = std::move(name),
              .takes_value = false,
              .apply = [apply = std::move(apply)](std::string_view) {
                apply();
                return Status::Ok();
              }};
}

Flag Valued(std::string name,
            std::function<Status(std::string_view value)> apply) {
  return Flag{
      .name = std::move(name), .takes_value = true, .apply = std::move(apply)};
}

Flag Switch(std::string name, std::string help, std::function<void()> apply) {
  return Described(Switch(std::move(name), std::move(apply)), "",
                   std::move(help));
}

Flag Valued(std::string name, std::string value_name, std::string help,
            std::function<Status(std::string_view value)> apply) {
  return Described(Valued(std::move(name), std::move(apply)),
                   std::move(value_name), std::move(help));
}

Flag Described(Flag flag, std::string value_name, std::string help) {
  flag.value_name = std::move(value_name);
  flag.help = std::move(help);
  return flag;
}

std::string FlagsHelp(const std::vector<Flag>& flags) {
  constexpr std::size_t kColumn = 24;
  std::string text;
  for (const Flag& flag : flags) {
    std::string head = "  " + flag.name;
    if (!flag.value_name.empty()) head += " " + flag.value_name;
    text += head;
    std::size_t start = 0;
    bool first = true;
    while (start <= flag.help.size() && !flag.help.empty()) {
      const std::size_t end =
          std::min(flag.help.find('\n', start), flag.help.size());
      if (first && head.size() + 2 <= kColumn) {
        text += std::string(kColumn - head.size(), ' ');
      } else {
        text += "\n" + std::string(kColumn, ' ');
      }
      text += flag.help.substr(start, end - start);
      first = false;
      start = end + 1;
    }
    text += "\n";
  }
  return text;
}

bool AsksForHelp(const std::vector<std::string>& args,
                 const std::vector<Flag>& flags) {
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (args[k] == "--help" || args[k] == "-h") return true;
    for (const Flag& flag : flags) {
      if (flag.name == args[k] && flag.takes_value) ++k;
    }
  }
  return false;
}

Result<ParsedFlags> ParseFlags(std::string_view command,
                               const std::vector<std::string>& args,
                               const std::vector<Flag>& flags,
                               std::size_t max_positional) {
  ParsedFlags parsed;
  const std::string name(command);
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& arg = args[k];
    if (arg == "--help" || arg == "-h") {
      parsed.help = true;
      return parsed;
    }
    if (arg.empty() || arg[0] != '-') {
      if (parsed.positional.size() >= max_positional) {
        return Status::InvalidArgument(
            std::string(max_positional == 0
                            ? "unexpected argument '"
                            : "more than one argument: unexpected '") +
            Escaped(arg, 40) + "' (see " + name + " --help)");
      }
      parsed.positional.push_back(arg);
      continue;
    }
    const Flag* flag = nullptr;
    for (const Flag& candidate : flags) {
      if (candidate.name == arg) {
        flag = &candidate;
        break;
      }
    }
    if (flag == nullptr) {
      return Status::InvalidArgument("unknown option '" + Escaped(arg, 40) +
                                     "' (see " + name + " --help)");
    }
    std::string_view value;
    if (flag->takes_value) {
      if (k + 1 >= args.size())
        return Status::InvalidArgument(arg + " needs a value");
      value = args[++k];
    }
    // A flag's action may quote its value in the error; a value from argv
    // with an escape sequence or a newline is made one safe line here (text
    // already escaped has neither, so it is not escaped twice).
    const Status applied = flag->apply(value);
    if (!applied.ok() && NeedsTerminalEscape(applied.message()))
      return Status::InvalidArgument(
          Escaped(applied.message(), EscapeFor::kTerminal, 400));
    MEMWAL_RETURN_IF_ERROR(applied);
  }
  return parsed;
}

Result<uint64_t> ParseUnsigned(std::string_view flag, std::string_view text) {
  const bool digits =
      !text.empty() && text.find_first_not_of("0123456789") == text.npos;
  if (!digits) {
    return Status::InvalidArgument(std::string(flag) +
                                   " needs a non-negative integer, not '" +
                                   Escaped(text, 40) + "'");
  }
  // 18 digits always fit; longer numbers are refused as out of range, not as
  // "not an integer".
  if (text.size() > 18) {
    return Status::InvalidArgument(
        std::string(flag) + " is out of range (at most 18 digits, not '" +
        Escaped(text, 40) + "')");
  }
  uint64_t value = 0;
  for (char c : text) value = value * 10 + static_cast<uint64_t>(c - '0');
  return value;
}

}  // namespace memwal
