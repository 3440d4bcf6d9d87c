// The window of the liveness graph (spec/protocol.md R70): folds the part of a
// state that no future step and no liveness goal can observe, so that commits
// and appends can go on forever in a finite graph.
//
// Fold keeps the head, every retained version and every version at or after
// the oldest read version of an in-flight transaction (R30 rebases over those
// and reads the read version itself); the other versions are the abstract past
// and are dropped. Version numbers are then renumbered 1, 2, ... in order, and
// fragment ids 0, 1, ... in order over the fragments still named (live in a
// kept version, covered by a kept segment, named by a kept op or an in-flight
// transaction); `committed` becomes the length of the kept history, so the
// commits bound limits the history plus the in-flight transactions, not the
// commits ever made, and `fragments` limits the fragments in use.
//
// Every guard and effect of the spec's actions compares version numbers and
// fragment ids only by order and equality and reads only the versions kept,
// so Fold maps a state and its successors to a folded state and the folded
// successors with the same actions (up to renumbered parameters of Restore and
// the fragment actions): a bisimulation that preserves the liveness goal and
// which fair action instances are enabled and taken (R71).
#ifndef MEMWAL_MODEL_WINDOW_H_
#define MEMWAL_MODEL_WINDOW_H_

#include "model/config.h"
#include "model/state.h"

namespace memwal::model {

// Drops the unobservable past of `state` and renumbers what is left (above).
// Idempotent; the result is canonical (R3). Every action keeps its meaning.
void FoldVersions(const Config& config, State* state);

// FoldVersions, and fragments that every version, segment, op and in-flight
// transaction treats alike (no in-flight transaction names one of them
// alone) merge into one, holding the union of their rows: the liveness
// continuation's window (R70). Exact for the continuation's actions, none of
// which names a fragment; not for DeleteFragment, UpdateColumns or
// RewriteFragments.
void Fold(const Config& config, State* state);

}  // namespace memwal::model

#endif  // MEMWAL_MODEL_WINDOW_H_
