// Fuzz target: the ITF reader (checker/cli/corpus.h ActionsFromItf, which reads
// our ITF and Quint's --mbt ITF back into actions).
#include "checker/cli/corpus.h"
#include "fuzz/decoder_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto actions =
      memwal::checker::cli::ActionsFromItf(memwal::fuzz::Bytes(data, size));
  if (actions.ok()) {
    for (const auto& action : *actions) {
      const auto again =
          memwal::model::ActionFromJson(memwal::model::ToJson(action));
      memwal::fuzz::Require(again.ok() && *again == action,
                            "an ITF action does not round-trip");
    }
  }
  return 0;
}
