// The catch-up rules (spec/protocol.md R33 derivation, R34 advance), used by
// the commit build (commit.cc) and by OptimizeIndex's no-work guard (begin.cc).
#ifndef MEMWAL_MODEL_CATCHUP_H_
#define MEMWAL_MODEL_CATCHUP_H_

#include "model/config.h"
#include "model/state.h"

namespace memwal::model {

// The segments of index i are "unchanged" between `before` and `after`: equal
// as whole metadata (uuid and covers, in order), or by uuid only under
// unchanged-by-uuid-only.
bool SegmentsUnchanged(const Config& config, const Segments& before,
                       const Segments& after);

// R33 (derived, unconditional): rewrites next->catchup from the head `head`
// (before the operation), the transaction's read version `read` and `next`
// (after the operation arm). REQUIRES: the head requires catch-up.
void Derive(const Config& config, const Version& read, const Version& head,
            Version* next);

// R34 (advance): what the transaction claims for its index.
struct Advance {
  int index = -1;       // -1: the transaction carries no advance
  Segments expected{};  // i's segments after the publish, as built at begin
};

// R34: withdraws changed indexes and merges a valid advance into next->catchup.
// Returns false (refuse the commit) when the transaction carries an invalid
// advance.
bool ApplyAdvance(const Config& config, const Advance& advance,
                  const Version& read, const Version& head, Version* next);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_CATCHUP_H_
