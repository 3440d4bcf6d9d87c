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

// R34 (advance): what the transaction claims for one index. Every advance
// inspected the read version's live fragments.
struct Advance {
  int index = -1;       // -1: no advance
  Segments expected{};  // the index's segments after the publish, as built at
                        // begin
  // R61: how the caller cut the claim down from the read version's progress
  // (-1: not cut; else an AdvanceOffer value: kOldest or kFirstShard).
  int cut = -1;
};

// The advances one transaction carries: R26's own, and under R61's
// other-index offer a second one for an index it does no work on.
struct Advances {
  Advance own;
  Advance other;
};

// R34: withdraws changed indexes and merges valid advances into
// next->catchup. Returns false (refuse the commit) when the transaction
// carries an invalid advance.
bool ApplyAdvance(const Config& config, const Advances& advances,
                  const Version& read, const Version& head, Version* next);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_CATCHUP_H_
