// Symmetry of the model's state space (spec/protocol.md section 2, "Symmetry").
//
// Shards are interchangeable: their ids are random uuids, every rule treats
// them alike, and a permutation of shard numbers maps every run to a run. So
// are indexes, unless the configuration singles one out: the single-index
// reader (and the bug that makes a reader behave like it) caps the watermark
// by the lowest-numbered index only. The environment actions of section 10
// name advance offers that are not permutation-closed, so env foreign is
// searched without symmetry.
//
// A search that stores one representative per orbit (the smallest encoding
// over every permutation the configuration allows) explores a quotient of the
// state graph with the same invariant verdicts, since every invariant and goal
// is itself symmetric. Traces stay concrete: the search keeps the state it
// met, and only its fingerprint is canonical.
#ifndef MEMWAL_MODEL_SYMMETRY_H_
#define MEMWAL_MODEL_SYMMETRY_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/actions.h"
#include "model/config.h"
#include "model/state.h"

namespace memwal::model {

struct Symmetry {
  bool shards = false;   // permute shard numbers
  bool indexes = false;  // permute index numbers
  friend bool operator==(const Symmetry&, const Symmetry&) = default;
};

// The permutations `config` allows (none for a single shard / index).
Symmetry SymmetryOf(const Config& config);

// Why `config` is not symmetric in shards or indexes, or "" when it is (for
// the run's summary).
std::string SymmetryNote(const Config& config);

// A permutation: shard s becomes shards[s], index i becomes indexes[i].
struct Permutation {
  std::array<uint8_t, kShardsMax> shards{};
  std::array<uint8_t, kIndexesMax> indexes{};
};

// `state` with shards and indexes renamed by `permutation`, uuids
// canonicalized again (R3).
State Permute(const State& state, const Permutation& permutation);

// The number of permutations `symmetry` allows at `bounds`.
int PermutationCount(const Bounds& bounds, Symmetry symmetry);

// The permutations `symmetry` allows at `bounds`, the identity first (the
// order CanonicalEncoding tries them in).
std::vector<Permutation> Permutations(const Bounds& bounds, Symmetry symmetry);

// `second` after `first`: Permute(Permute(x, first), second) is
// Permute(x, Compose(second, first)).
Permutation Compose(const Permutation& second, const Permutation& first);
Permutation Inverse(const Permutation& permutation);

// `action` with its shard and index parameters renamed by `permutation`, so
// that Apply(Permute(x, p), Permute(a, p)) is Permute(Apply(x, a), p).
Action Permute(const Action& action, const Permutation& permutation);

// The first kEncodedHeaderBytes bytes of EncodeTo(Permute(state, p)) into
// out, computed without the permuted state.
void PermutedHeader(const State& state, const Permutation& p, uint8_t* out);

// EncodeTo(Permute(state, p), out), written without the permuted state: its
// bytes in place, the uuids renamed in R3's order as they are met. Returns
// the size.
std::size_t EncodePermutedTo(const State& state, const Permutation& p,
                             uint8_t* out);

// The position in `permutations` (a Permutations list) of the first
// permutation whose image of `state` has the smallest encoding: the
// canonical representative is Permute(state, permutations[position]).
std::size_t CanonicalPosition(const std::vector<Permutation>& permutations,
                              const State& state, std::string* encoding);

// The canonical representative's encoding (model::Encode of the smallest
// permuted state) and its fingerprint. With no symmetry: Encode(state) and
// Fingerprint(state).
void CanonicalEncoding(const Bounds& bounds, Symmetry symmetry,
                       const State& state, std::string* out);
uint64_t CanonicalFingerprint(const Bounds& bounds, Symmetry symmetry,
                              const State& state);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_SYMMETRY_H_
