/* memwal.pml: a Promela rendition of model/ (spec/protocol.md), so that SPIN's
 * compiled verifier explores the same state graph as memwal-check's model-only
 * search. checker/cli/bench.cc writes the bounds and variant constants as #defines
 * in front of this template (or pass them with spin -D...):
 *   SHARDS GENS FRAGS INDEXES COMMITS INFLIGHT   bounds (spec section 2)
 *   PROTOCOL 0 derived 1 advance 2 unconditional 3 legacy
 *   READ     0 strict  1 min     2 single-index
 *   GC       0 atomic  1 stale-read 2 recheck
 *   BUGS     bit b = model::Bug b (spec section 8, in table order)
 *
 * Shape: one process; after an initializing d_step, a `do` loop with one
 * d_step per (action, parameters) of model/actions.cc. Each d_step computes
 * the action's guard into hidden scratch variables and, when it holds,
 * applies the effect, renumbers uuids (R3) and asserts the nine invariants of
 * spec section 9 in the registry order (only the first broken one fires). A
 * disabled d_step leaves the state unchanged (a self-loop, which SPIN counts
 * as matched, never as stored). Everything that is not model state is
 * `hidden`, so SPIN's state vector is exactly model::State restricted to the
 * bounds (versions and transactions past their counts are zero, as in the
 * C++ State). SPIN's "states stored" is therefore our distinct-state count
 * plus one: the state before the initializing d_step.
 *
 * Encoding differences that keep a bijection with model::State: a version's
 * number is vbase + its position (numbers are consecutive); row (s,g) is bit
 * s*GENS+g-1 (C++: s*4+g-1); fresh uuids are drawn from 200 up and renumbered
 * by Canonicalize exactly as model::Canonicalize does (uuids are compared only
 * for equality). */

#if INDEXES > 0
#define IXA INDEXES
#else
#define IXA 1
#endif
#if INFLIGHT > 0
#define NT INFLIGHT
#else
#define NT 1
#endif
#define NV (COMMITS + 1)
#define HD (vcount - 1)
#define SG(v, i, k) ((v) * IXA * 2 + (i) * 2 + (k))
#define CP(v, s) ((v) * SHARDS + (s))
#define CU(v, i, s) ((v) * IXA * SHARDS + (i) * SHARDS + (s))
#define NS(i, k) ((i) * 2 + (k))
#define NC(i, s) ((i) * SHARDS + (s))
#define ROW(s, g) (1 << ((s) * GENS + (g) - 1))
#define HAS(b) ((BUGS >> (b)) & 1)
#define BITPROTO (PROTOCOL == 0 || PROTOCOL == 1)
#define PRESENT(v, i) (v_uuid[SG(v, i, 0)] != 0)
#define COVV(v, i) (v_cov[SG(v, i, 0)] | v_cov[SG(v, i, 1)])
#define NCOV(i) (n_cov[NS(i, 0)] | n_cov[NS(i, 1)])
#define BOTH(v) (v_rb[v] && v_wb[v])
#define NOBIT(v) (!v_rb[v] && !v_wb[v])
#define REQV(v) (PROTOCOL == 2 || (BITPROTO && BOTH(v)))
#define LIVEF(v, f) ((v_live[v] >> (f)) & 1)
/* OpKind: 0 Init 1 Append 2 DeleteFragment 3 CompactSsTable 4 UpdateColumns
 * 5 RewriteFragments 6 CreateIndex 7 OptimizeIndex 8 DropIndex
 * 9 RecordProgress 10 Activate 11 Restore. LanceOp: 0 Init 1 Append 2 Delete
 * 3 Update 4 Rewrite 5 CreateIndex 6 UpdateMemWalState 7 Restore. */
#define CLASSIFY(k) ((k) <= 2 -> (k) : ((k) <= 4 -> 3 : ((k) == 5 -> 4 : \
  ((k) <= 8 -> 5 : ((k) <= 10 -> 6 : 7)))))
#define ALLOCATES(k) ((k) == 1 || (k) == 3 || (k) == 5)
#define NONE 255

/* ---- model::State (R3) ---- */
byte vcount;
byte vbase;
byte tcount;
byte flushed[SHARDS];
byte retired[SHARDS];
byte pending;
byte committed;
byte nextfrag;
byte rows[FRAGS];
byte deleted;
byte rcover[SHARDS * GENS];
bool activated;
byte v_live[NV];
byte v_uuid[NV * IXA * 2];
byte v_cov[NV * IXA * 2];
byte v_comp[NV * SHARDS];
byte v_cu[NV * IXA * SHARDS];
bool v_rb[NV];
bool v_wb[NV];
bool v_ret[NV];
byte v_okind[NV];
byte v_ofrag[NV];
byte v_ocov[NV];
byte v_oidx[NV];
byte v_opsh[NV];
byte v_opgen[NV];
byte t_kind[NT];
byte t_read[NT];
byte t_shard[NT];
byte t_gen[NT];
bool t_marker[NT];
byte t_frag[NT];
byte t_frag2[NT];
byte t_idx[NT];
byte t_suuid[NT];
byte t_scov[NT];
byte t_ruuid[NT];

/* ---- scratch, not part of the state vector ---- */
hidden byte ok;          /* the guard / build result */
hidden byte a1, a2;      /* action parameters of the current d_step */
hidden byte li, ls, lg, lf, lk, lv, lj, lt, mi, ms, mk;  /* loop variables */
hidden byte tmp, tmp2, gen;
hidden byte lrows, lrows2, held, fr;
hidden byte fresh;       /* next fresh (pre-canonical) uuid */
hidden byte ret_ok;
hidden byte cov_out;
hidden byte seen[64];
hidden byte nseen;
hidden byte wm, capping, uses;
hidden byte proven, unchanged, same;
hidden byte credit, carried;
/* the version being built (R35) */
hidden byte n_live;
hidden byte n_uuid[IXA * 2];
hidden byte n_cov[IXA * 2];
hidden byte n_comp[SHARDS];
hidden byte n_cu[IXA * SHARDS];
hidden byte n_rb, n_wb;
hidden byte n_okind, n_ofrag, n_ocov, n_oidx, n_opsh, n_opgen;
/* the transaction being committed and its proposal (R30-R32) */
hidden byte c_kind, c_read, c_shard, c_gen, c_frag, c_frag2, c_idx, c_suuid,
    c_scov, c_ruuid;
hidden byte c_marker;
hidden byte p_op, p_frags, p_ncov, p_psh, p_pgen;
hidden byte verdict, conflict, ck, rd;
hidden byte sv_next, sv_deleted;
/* the advance (R34) */
hidden byte adv_index;
hidden byte e_uuid[2];
hidden byte e_cov[2];
hidden byte claim[SHARDS];
hidden byte kept_uuid[2];
hidden byte kept_cov[2];
hidden byte kcount;
/* invariants, in registry order */
hidden byte CatchupWithinCoverage, CatchupWithinCompaction, ReadsMissNoRows,
    FeatureBitsArePaired, ActivationIsPermanent, NoRowIsLost,
    CompactionNeverRegresses, LegacyTablesAreUntouched,
    UnchangedPositionsNeverDrop;

/* ---- helpers ---- */

inline LiveRowsOf(live, out) {
  out = 0;
  for (lf : 0 .. FRAGS - 1) {
    if
    :: ((live) >> lf) & 1 -> out = out | rows[lf]
    :: else
    fi
  }
}

/* held = some fragment of `frags` holds `row` */
inline HeldWithin(frags, row) {
  held = 0;
  for (lf : 0 .. FRAGS - 1) {
    if
    :: (((frags) >> lf) & 1) && (rows[lf] & (row)) -> held = 1
    :: else
    fi
  }
}

/* model::Canonicalize: renumber uuids 1, 2, ... in order of first appearance */
inline Rename(x) {
  if
  :: x != 0 ->
    lj = 0;
    do
    :: lj < nseen && seen[lj] != x -> lj++
    :: else -> break
    od;
    if
    :: lj == nseen -> seen[nseen] = x; nseen++
    :: else
    fi;
    x = lj + 1
  :: else
  fi
}

inline Canonicalize() {
  nseen = 0;
  for (lv : 0 .. NV - 1) {
    if
    :: lv < vcount ->
      for (lk : 0 .. IXA * 2 - 1) { Rename(v_uuid[lv * IXA * 2 + lk]) }
    :: else
    fi
  }
  for (lt : 0 .. NT - 1) {
    if
    :: lt < tcount -> Rename(t_ruuid[lt]); Rename(t_suuid[lt])
    :: else
    fi
  }
}

/* R12 */
inline Retirable(rs, rg) {
  ret_ok = 1;
  for (lv : 0 .. NV - 1) {
    if
    :: lv < vcount && v_ret[lv] && ret_ok ->
      if
      :: (rg) > v_comp[CP(lv, rs)] -> ret_ok = 0
      :: else ->
        for (li : 0 .. IXA - 1) {
          if
          :: li < INDEXES && PRESENT(lv, li) && v_cu[CU(lv, li, rs)] < (rg) ->
            if
            :: !(v_cu[CU(lv, li, rs)] == 0 && !REQV(lv)) -> ret_ok = 0
            :: else
            fi
          :: else
          fi
        }
      fi
    :: else
    fi
  }
}

/* model::CoveringIndexes */
inline CoveringIndexes(cs, cg) {
  cov_out = 0;
  for (li : 0 .. IXA - 1) {
    if
    :: li < INDEXES ->
      if
      :: !PRESENT(HD, li) -> cov_out = cov_out | (1 << li)
      :: else
      fi;
      HeldWithin(COVV(HD, li) & v_live[HD], ROW(cs, cg));
      if
      :: held -> cov_out = cov_out | (1 << li)
      :: else
      fi
    :: else
    fi
  }
}

inline Retire(rs, rg) {
  retired[rs] = retired[rs] | (1 << ((rg) - 1));
  CoveringIndexes(rs, rg);
  rcover[(rs) * GENS + (rg) - 1] = cov_out
}

inline RetireGuard(rs, rg) {
  ok = (rs) < SHARDS && (rg) >= 1 && (rg) <= GENS;
  if
  :: ok -> ok = (rg) <= flushed[rs] && !((retired[rs] >> ((rg) - 1)) & 1)
  :: else
  fi;
  if
  :: ok -> Retirable(rs, rg); ok = ret_ok
  :: else
  fi
}

#define CANBEGIN (tcount < INFLIGHT && committed + tcount < COMMITS)
#define BUDGET (committed + tcount < COMMITS)
#define COMPACTOR (!BITPROTO || activated)

inline CanAllocate() {
  tmp = 0;
  for (lt : 0 .. NT - 1) {
    if
    :: lt < tcount && ALLOCATES(t_kind[lt]) -> tmp++
    :: else
    fi
  }
  ok = ok && nextfrag + tmp < FRAGS
}

/* Begin: the new transaction goes to slot tcount (its fields are zero) */
inline BeginTxn(kind) {
  t_kind[tcount] = kind;
  t_read[tcount] = vbase + vcount - 1;
  tcount++
}

/* next := version v */
inline LoadNext(v) {
  n_live = v_live[v];
  for (lk : 0 .. IXA * 2 - 1) {
    n_uuid[lk] = v_uuid[(v) * IXA * 2 + lk];
    n_cov[lk] = v_cov[(v) * IXA * 2 + lk]
  }
  for (lk : 0 .. SHARDS - 1) { n_comp[lk] = v_comp[CP(v, lk)] }
  for (lk : 0 .. IXA * SHARDS - 1) { n_cu[lk] = v_cu[(v) * IXA * SHARDS + lk] }
  n_rb = v_rb[v];
  n_wb = v_wb[v];
  n_okind = v_okind[v];
  n_ofrag = v_ofrag[v];
  n_ocov = v_ocov[v];
  n_oidx = v_oidx[v];
  n_opsh = v_opsh[v];
  n_opgen = v_opgen[v]
}

/* version slot v := next, retained */
inline StoreNext(v) {
  v_live[v] = n_live;
  for (lk : 0 .. IXA * 2 - 1) {
    v_uuid[(v) * IXA * 2 + lk] = n_uuid[lk];
    v_cov[(v) * IXA * 2 + lk] = n_cov[lk]
  }
  for (lk : 0 .. SHARDS - 1) { v_comp[CP(v, lk)] = n_comp[lk] }
  for (lk : 0 .. IXA * SHARDS - 1) { v_cu[(v) * IXA * SHARDS + lk] = n_cu[lk] }
  v_rb[v] = n_rb;
  v_wb[v] = n_wb;
  v_ret[v] = 1;
  v_okind[v] = n_okind;
  v_ofrag[v] = n_ofrag;
  v_ocov[v] = n_ocov;
  v_oidx[v] = n_oidx;
  v_opsh[v] = n_opsh;
  v_opgen[v] = n_opgen
}

inline ZeroVersion(v) {
  v_live[v] = 0;
  for (lk : 0 .. IXA * 2 - 1) {
    v_uuid[(v) * IXA * 2 + lk] = 0;
    v_cov[(v) * IXA * 2 + lk] = 0
  }
  for (lk : 0 .. SHARDS - 1) { v_comp[CP(v, lk)] = 0 }
  for (lk : 0 .. IXA * SHARDS - 1) { v_cu[(v) * IXA * SHARDS + lk] = 0 }
  v_rb[v] = 0;
  v_wb[v] = 0;
  v_ret[v] = 0;
  v_okind[v] = 0;
  v_ofrag[v] = 0;
  v_ocov[v] = 0;
  v_oidx[v] = 0;
  v_opsh[v] = 0;
  v_opgen[v] = 0
}

inline CopyTxn(dst, src) {
  t_kind[dst] = t_kind[src];
  t_read[dst] = t_read[src];
  t_shard[dst] = t_shard[src];
  t_gen[dst] = t_gen[src];
  t_marker[dst] = t_marker[src];
  t_frag[dst] = t_frag[src];
  t_frag2[dst] = t_frag2[src];
  t_idx[dst] = t_idx[src];
  t_suuid[dst] = t_suuid[src];
  t_scov[dst] = t_scov[src];
  t_ruuid[dst] = t_ruuid[src]
}

inline ZeroTxn(dst) {
  t_kind[dst] = 0;
  t_read[dst] = 0;
  t_shard[dst] = 0;
  t_gen[dst] = 0;
  t_marker[dst] = 0;
  t_frag[dst] = 0;
  t_frag2[dst] = 0;
  t_idx[dst] = 0;
  t_suuid[dst] = 0;
  t_scov[dst] = 0;
  t_ruuid[dst] = 0
}

/* unchanged := segments of index i equal in head hd and next (R33) */
inline SegmentsUnchanged(hd, i) {
  unchanged = 1;
  for (mk : 0 .. 1) {
    if
    :: v_uuid[SG(hd, i, mk)] != n_uuid[NS(i, mk)] -> unchanged = 0
    :: !HAS(5) && v_cov[SG(hd, i, mk)] != n_cov[NS(i, mk)] -> unchanged = 0
    :: else
    fi
  }
}

/* R33: next's positions from read rv and head hd */
inline Derive(rv, hd) {
  for (mi : 0 .. IXA - 1) {
    if
    :: n_uuid[NS(mi, 0)] == 0 ->
      for (ms : 0 .. SHARDS - 1) { n_cu[NC(mi, ms)] = 0 }
    :: else ->
      proven = (PROTOCOL == 2 || v_rb[rv]) && v_live[rv] != 0 && ((v_live[rv] & ~NCOV(mi)) & 255) == 0;
      SegmentsUnchanged(hd, mi);
      for (ms : 0 .. SHARDS - 1) {
        credit = 0;
        if
        :: proven ->
          credit = (HAS(9) -> v_comp[CP(hd, ms)] : v_comp[CP(rv, ms)]);
          if
          :: n_comp[ms] < credit -> credit = n_comp[ms]
          :: else
          fi
        :: else
        fi;
        carried = v_cu[CU(hd, mi, ms)];
        if
        :: n_comp[ms] < carried -> carried = n_comp[ms]
        :: else
        fi;
        if
        :: unchanged && carried > credit -> n_cu[NC(mi, ms)] = carried
        :: else -> n_cu[NC(mi, ms)] = credit
        fi
      }
    fi
  }
}

/* R26 at publish on next's index i: drop removed uuid r, append (u, c) */
inline PublishOptimize(i, r, u, c) {
  kcount = 0;
  kept_uuid[0] = 0; kept_uuid[1] = 0; kept_cov[0] = 0; kept_cov[1] = 0;
  for (mk : 0 .. 1) {
    if
    :: n_uuid[NS(i, mk)] != 0 && n_uuid[NS(i, mk)] != (r) ->
      kept_uuid[kcount] = n_uuid[NS(i, mk)];
      kept_cov[kcount] = n_cov[NS(i, mk)];
      kcount++
    :: else
    fi
  }
  assert(kcount < 2);
  kept_uuid[kcount] = u;
  kept_cov[kcount] = c;
  for (mk : 0 .. 1) {
    n_uuid[NS(i, mk)] = kept_uuid[mk];
    n_cov[NS(i, mk)] = kept_cov[mk]
  }
}

/* ---- WAL side (R10-R13) ---- */

inline FlushMemTable(s) {
  if
  :: s < SHARDS && flushed[s] < GENS -> ok = 1; flushed[s]++
  :: else -> ok = 0
  fi
}

inline RetireSsTable(s, g) {
  ok = 0;
  if
  :: GC == 0 -> RetireGuard(s, g)
  :: else
  fi;
  if
  :: ok -> Retire(s, g)
  :: else
  fi
}

inline RetireDecide(s, g) {
  ok = 0;
  if
  :: GC != 0 -> RetireGuard(s, g)
  :: else
  fi;
  if
  :: ok && !(pending & ROW(s, g)) -> pending = pending | ROW(s, g)
  :: else -> ok = 0
  fi
}

inline RetireExecute(s, g) {
  ok = GC != 0 && s < SHARDS && g >= 1 && g <= GENS;
  if
  :: ok && (pending & ROW(s, g)) ->
    pending = pending & ~ROW(s, g);
    if
    :: GC == 2 -> Retirable(s, g)
    :: else -> ret_ok = 1
    fi;
    if
    :: ret_ok -> Retire(s, g)
    :: else
    fi
  :: else -> ok = 0
  fi
}

/* ---- begins (R20-R29) ---- */

inline Append() {
  ok = CANBEGIN;
  CanAllocate();
  if
  :: ok -> BeginTxn(1)
  :: else
  fi
}

inline DeleteFragment(f) {
  ok = CANBEGIN && f < FRAGS && LIVEF(HD, f);
  if
  :: ok -> t_frag[tcount] = f; BeginTxn(2)
  :: else
  fi
}

inline CompactSsTable(s, m) {
  ok = s < SHARDS && CANBEGIN;
  CanAllocate();
  ok = ok && COMPACTOR;
  if
  :: ok ->
    gen = v_comp[CP(HD, s)] + 1;
    ok = gen <= flushed[s] && !((retired[s] >> (gen - 1)) & 1)
  :: else
  fi;
  if
  :: ok ->
    t_shard[tcount] = s; t_gen[tcount] = gen; t_marker[tcount] = m;
    BeginTxn(3)
  :: else
  fi
}

inline UpdateColumns(f, i) {
  ok = i < INDEXES && CANBEGIN && f < FRAGS && LIVEF(HD, f);
  if
  :: ok -> t_frag[tcount] = f; t_idx[tcount] = i; BeginTxn(4)
  :: else
  fi
}

inline RewriteFragments(f1, f2) {
  ok = f1 < f2 && f2 < FRAGS && LIVEF(HD, f1) && LIVEF(HD, f2) && CANBEGIN;
  CanAllocate();
  if
  :: ok -> t_frag[tcount] = f1; t_frag2[tcount] = f2; BeginTxn(5)
  :: else
  fi
}

inline CreateIndex(i) {
  ok = i < INDEXES && CANBEGIN;
  if
  :: ok ->
    t_idx[tcount] = i; t_suuid[tcount] = 200; t_scov[tcount] = v_live[HD];
    BeginTxn(6)
  :: else
  fi
}

/* R26 no-work guard: ok := the no-work repair commits */
inline NoWorkRepairCommits() {
  if
  :: HAS(8) || PROTOCOL == 3 -> ok = 0
  :: PROTOCOL == 1 && !HAS(8) -> ok = 1
  :: (PROTOCOL == 0 || PROTOCOL == 2) && !HAS(8) ->
    ok = 0;
    if
    :: REQV(HD) ->
      LoadNext(HD);
      Derive(HD, HD);
      for (lk : 0 .. IXA * SHARDS - 1) {
        if
        :: n_cu[lk] != v_cu[HD * IXA * SHARDS + lk] -> ok = 1
        :: else
        fi
      }
    :: else
    fi
  fi
}

inline OptimizeIndex(i) {
  ok = i < INDEXES && CANBEGIN;
  if
  :: ok -> ok = PRESENT(HD, i)
  :: else
  fi;
  if
  :: ok ->
    tmp = (v_live[HD] & ~COVV(HD, i)) & 255;
    if
    :: tmp == 0 -> NoWorkRepairCommits()
    :: else
    fi
  :: else
  fi;
  if
  :: ok ->
    t_idx[tcount] = i;
    if
    :: tmp != 0 ->
      t_suuid[tcount] = 200;
      t_scov[tcount] = tmp;
      if
      :: v_uuid[SG(HD, i, 1)] != 0 ->
        t_ruuid[tcount] = v_uuid[SG(HD, i, 1)];
        t_scov[tcount] = tmp | v_cov[SG(HD, i, 1)]
      :: else
      fi
    :: else
    fi;
    BeginTxn(7)
  :: else
  fi
}

inline DropIndex(i) {
  ok = i < INDEXES && CANBEGIN;
  if
  :: ok -> ok = PRESENT(HD, i)
  :: else
  fi;
  if
  :: ok -> t_idx[tcount] = i; BeginTxn(8)
  :: else
  fi
}

inline RecordProgress(s) {
  ok = s < SHARDS && CANBEGIN && COMPACTOR;
  if
  :: ok ->
    gen = v_comp[CP(HD, s)] + 1;
    ok = gen <= GENS;
    if
    :: ok -> LiveRowsOf(v_live[HD], lrows); ok = (lrows & ROW(s, gen)) != 0
    :: else
    fi
  :: else
  fi;
  if
  :: ok -> t_shard[tcount] = s; t_gen[tcount] = gen; BeginTxn(9)
  :: else
  fi
}

inline Activate() {
  ok = BITPROTO && CANBEGIN && NOBIT(HD);
  if
  :: ok -> BeginTxn(10)
  :: else
  fi
}

/* ---- Commit (R30-R35) ---- */

/* R32 against committed version lv */
inline ProgressCheck() {
  if
  :: v_opgen[lv] == 0 || p_pgen == 0 || v_opsh[lv] != p_psh -> conflict = 0
  :: else -> conflict = (v_opgen[lv] >= p_pgen -> 2 : 1)
  fi
}

#define RETRY_IF(c) conflict = ((c) -> 1 : 0)

/* R31: conflict := committed version lv against the proposal */
inline Judge() {
  ck = CLASSIFY(v_okind[lv]);
  conflict = 0;
  if
  :: p_op == 1 -> conflict = ((ck == 6 || ck == 7) -> 2 : 0)
  :: p_op == 2 ->
    if
    :: ck == 2 || ck == 3 || ck == 4 -> RETRY_IF((v_ofrag[lv] & p_frags) != 0)
    :: ck == 6 || ck == 7 -> conflict = 2
    :: else
    fi
  :: p_op == 3 || p_op == 4 ->
    if
    :: ck == 2 || ck == 3 || ck == 4 -> RETRY_IF((v_ofrag[lv] & p_frags) != 0)
    :: ck == 5 && p_op == 4 -> RETRY_IF((v_ocov[lv] & p_frags) != 0)
    :: ck == 6 && p_op == 3 -> ProgressCheck()
    :: ck == 7 -> conflict = 2
    :: else
    fi
  :: p_op == 5 ->
    if
    :: ck == 4 -> RETRY_IF((p_ncov & v_ofrag[lv]) != 0)
    :: ck == 5 -> RETRY_IF(v_oidx[lv] == p_idx)
    :: ck == 6 || ck == 7 -> conflict = 2
    :: else
    fi
  :: p_op == 6 ->
    if
    :: ck == 3 || ck == 6 -> ProgressCheck()
    :: ck == 4 || ck == 5 -> conflict = 0
    :: else -> conflict = 2
    fi
  :: else -> assert(false)
  fi
}

hidden byte p_idx;

inline Rebase() {
  verdict = 0;
  for (lv : 0 .. NV - 1) {
    if
    :: lv < vcount && vbase + lv > c_read ->
      Judge();
      if
      :: conflict > verdict -> verdict = conflict
      :: else
      fi;
      if
      :: conflict == 0 && p_op == 5 && v_okind[lv] == 4 && v_oidx[lv] == p_idx ->
        p_ncov = p_ncov & ~v_ofrag[lv]
      :: else
      fi
    :: else
    fi
  }
}

inline Allocate(r) {
  fr = nextfrag;
  nextfrag++;
  assert(fr < FRAGS);
  rows[fr] = r;
  n_live = n_live | (1 << fr)
}

inline RecordCompacted() {
  if
  :: c_gen <= v_comp[CP(HD, c_shard)] -> ok = 0
  :: else ->
    n_comp[c_shard] = c_gen;
    n_opsh = c_shard;
    n_opgen = c_gen
  fi
}

inline RemapSegments(pair, fresh_fragment) {
  for (mi : 0 .. IXA - 1) {
    for (mk : 0 .. 1) {
      if
      :: n_uuid[NS(mi, mk)] != 0 && (n_cov[NS(mi, mk)] & (pair)) != 0 ->
        tmp2 = (((n_cov[NS(mi, mk)] & (pair)) == (pair)) -> (1 << (fresh_fragment)) : 0);
        n_uuid[NS(mi, mk)] = fresh;
        fresh++;
        n_cov[NS(mi, mk)] = ((n_cov[NS(mi, mk)] & ~(pair)) & 255) | tmp2
      :: else
      fi
    }
  }
}

inline IndexArm() {
  n_oidx = c_idx;
  if
  :: c_suuid != 0 -> n_ocov = p_ncov
  :: else
  fi;
  if
  :: c_kind == 6 || c_kind == 8 ->
    /* removes the read version's segments of i by uuid; a segment minted
       after the read version (a Rewrite's remap) survives */
    kcount = 0;
    kept_uuid[0] = 0; kept_uuid[1] = 0; kept_cov[0] = 0; kept_cov[1] = 0;
    for (mk : 0 .. 1) {
      tmp2 = n_uuid[NS(c_idx, mk)];
      if
      :: tmp2 != 0 && tmp2 != v_uuid[SG(rd, c_idx, 0)] &&
         tmp2 != v_uuid[SG(rd, c_idx, 1)] ->
        kept_uuid[kcount] = tmp2; kept_cov[kcount] = n_cov[NS(c_idx, mk)]; kcount++
      :: else
      fi
    }
    if
    :: c_kind == 6 ->
      assert(kcount < 2);
      kept_uuid[kcount] = c_suuid; kept_cov[kcount] = p_ncov
    :: else
    fi;
    for (mk : 0 .. 1) {
      n_uuid[NS(c_idx, mk)] = kept_uuid[mk];
      n_cov[NS(c_idx, mk)] = kept_cov[mk]
    }
  :: c_kind == 7 && c_suuid != 0 -> PublishOptimize(c_idx, c_ruuid, c_suuid, p_ncov)
  :: else
  fi
}

/* R35 step 2; ok := 0 on refusal */
inline OperationArm() {
  tmp = 1 << c_frag;
  if
  :: c_kind == 1 -> Allocate(0)
  :: c_kind == 2 ->
    if
    :: !(v_live[HD] & tmp) -> ok = 0
    :: else ->
      n_live = n_live & ~tmp;
      n_ofrag = tmp;
      deleted = deleted | rows[c_frag]
    fi
  :: c_kind == 3 ->
    if
    :: c_marker -> RecordCompacted()
    :: else
    fi;
    if
    :: ok -> Allocate(ROW(c_shard, c_gen))
    :: else
    fi
  :: c_kind == 4 ->
    if
    :: !(v_live[HD] & tmp) -> ok = 0
    :: else ->
      n_cov[NS(c_idx, 0)] = n_cov[NS(c_idx, 0)] & ~tmp;
      n_cov[NS(c_idx, 1)] = n_cov[NS(c_idx, 1)] & ~tmp;
      n_ofrag = tmp;
      n_oidx = c_idx
    fi
  :: c_kind == 5 ->
    if
    :: (v_live[HD] & p_frags) != p_frags -> ok = 0
    :: else ->
      lrows = rows[c_frag] | rows[c_frag2];
      n_live = n_live & ~p_frags;
      Allocate(lrows);
      RemapSegments(p_frags, fr);
      n_ofrag = p_frags
    fi
  :: c_kind == 6 || c_kind == 7 || c_kind == 8 -> IndexArm()
  :: c_kind == 9 ->
    RecordCompacted();
    if
    :: ok && HAS(14) -> n_live = 0
    :: else
    fi
  :: c_kind == 10 ->
    if
    :: HAS(14) -> n_live = 0
    :: else
    fi
  :: else -> assert(false)
  fi
}

/* R34 AdvanceOf: the expected segments of the advance, from read rd */
inline AdvanceOf() {
  adv_index = NONE;
  if
  :: PROTOCOL == 1 && c_kind == 7 ->
    adv_index = c_idx;
    e_uuid[0] = v_uuid[SG(rd, c_idx, 0)]; e_cov[0] = v_cov[SG(rd, c_idx, 0)];
    e_uuid[1] = v_uuid[SG(rd, c_idx, 1)]; e_cov[1] = v_cov[SG(rd, c_idx, 1)];
    if
    :: c_suuid != 0 ->
      kcount = 0;
      kept_uuid[0] = 0; kept_uuid[1] = 0; kept_cov[0] = 0; kept_cov[1] = 0;
      for (mk : 0 .. 1) {
        if
        :: e_uuid[mk] != 0 && e_uuid[mk] != c_ruuid ->
          kept_uuid[kcount] = e_uuid[mk]; kept_cov[kcount] = e_cov[mk]; kcount++
        :: else
        fi
      }
      assert(kcount < 2);
      kept_uuid[kcount] = c_suuid;
      kept_cov[kcount] = c_scov;
      e_uuid[0] = kept_uuid[0]; e_cov[0] = kept_cov[0];
      e_uuid[1] = kept_uuid[1]; e_cov[1] = kept_cov[1]
    :: else
    fi
  :: else
  fi
}

/* same := uuid sets of next's index adv_index and the expected ones are equal */
inline SameUuids() {
  same = 1;
  for (mk : 0 .. 1) {
    tmp2 = n_uuid[NS(adv_index, mk)];
    if
    :: tmp2 != 0 && tmp2 != e_uuid[0] && tmp2 != e_uuid[1] -> same = 0
    :: else
    fi;
    tmp2 = e_uuid[mk];
    if
    :: tmp2 != 0 && tmp2 != n_uuid[NS(adv_index, 0)] &&
       tmp2 != n_uuid[NS(adv_index, 1)] -> same = 0
    :: else
    fi
  }
}

/* R34 validity; ok := 0 when invalid */
inline AdvanceIsValid() {
  if
  :: !REQV(HD) -> ok = 0
  :: else ->
    SameUuids();
    tmp2 = NCOV(adv_index);
    if
    :: !same -> ok = 0
    :: tmp2 != (e_cov[0] | e_cov[1]) -> ok = 0
    :: (((HAS(13) -> v_live[HD] : v_live[rd]) & ~tmp2) & 255) != 0 -> ok = 0
    :: else ->
      for (ms : 0 .. SHARDS - 1) {
        if
        :: claim[ms] != 0 && (n_comp[ms] == 0 || claim[ms] > n_comp[ms]) -> ok = 0
        :: else
        fi
      }
    fi
  fi
}

inline ApplyAdvance() {
  for (ms : 0 .. SHARDS - 1) {
    claim[ms] = (HAS(7) -> v_comp[CP(HD, ms)] : v_comp[CP(rd, ms)])
  }
  if
  :: adv_index != NONE -> AdvanceIsValid()
  :: else
  fi;
  if
  :: ok && REQV(HD) ->
    for (mi : 0 .. IXA - 1) {
      SegmentsUnchanged(HD, mi);
      if
      :: n_uuid[NS(mi, 0)] == 0 ->
        for (ms : 0 .. SHARDS - 1) { n_cu[NC(mi, ms)] = 0 }
      :: n_uuid[NS(mi, 0)] != 0 && mi == adv_index ->
        for (ms : 0 .. SHARDS - 1) {
          if
          :: unchanged && v_cu[CU(HD, mi, ms)] > claim[ms] ->
            n_cu[NC(mi, ms)] = v_cu[CU(HD, mi, ms)]
          :: else -> n_cu[NC(mi, ms)] = claim[ms]
          fi
        }
      :: n_uuid[NS(mi, 0)] != 0 && mi != adv_index && !unchanged ->
        for (ms : 0 .. SHARDS - 1) { n_cu[NC(mi, ms)] = 0 }
      :: else
      fi
    }
  :: else
  fi
}

/* R35 step 3 */
inline CatchupStep() {
  if
  :: (PROTOCOL == 0 || PROTOCOL == 2) && REQV(HD) -> Derive(rd, HD)
  :: PROTOCOL == 1 -> AdvanceOf(); ApplyAdvance()
  :: else
  fi
}

/* R35 steps 4-6 */
inline FeatureBits() {
  tmp = BOTH(HD) && !HAS(0);
  if
  :: c_kind == 10 ->
    if
    :: NOBIT(HD) ->
      for (ms : 0 .. SHARDS - 1) {
        if
        :: v_comp[CP(HD, ms)] != 0 -> ok = 0
        :: else
        fi
      }
      for (mk : 0 .. IXA * SHARDS - 1) { n_cu[mk] = 0 }
    :: else
    fi;
    tmp = 1
  :: else
  fi;
  if
  :: HAS(1) -> tmp = 0
  :: else
  fi;
  n_rb = tmp;
  n_wb = tmp
}

inline Build() {
  rd = c_read - vbase;
  ok = v_rb[HD] == v_wb[HD];
  if
  :: ok ->
    LoadNext(HD);
    n_okind = c_kind; n_ofrag = 0; n_ocov = 0; n_oidx = 0; n_opsh = 0; n_opgen = 0;
    OperationArm()
  :: else
  fi;
  if
  :: ok -> CatchupStep()
  :: else
  fi;
  if
  :: ok -> FeatureBits()
  :: else
  fi
}

inline Commit(slot) {
  ok = slot < tcount;
  if
  :: ok ->
    c_kind = t_kind[slot]; c_read = t_read[slot]; c_shard = t_shard[slot];
    c_gen = t_gen[slot]; c_marker = t_marker[slot]; c_frag = t_frag[slot];
    c_frag2 = t_frag2[slot]; c_idx = t_idx[slot]; c_suuid = t_suuid[slot];
    c_scov = t_scov[slot]; c_ruuid = t_ruuid[slot];
    for (lt : 0 .. NT - 2) {
      if
      :: lt >= slot && lt + 1 < tcount -> CopyTxn(lt, lt + 1)
      :: else
      fi
    }
    tcount--;
    ZeroTxn(tcount);
    /* the proposal */
    p_op = CLASSIFY(c_kind);
    p_idx = c_idx;
    p_frags = 0; p_psh = 0; p_pgen = 0;
    if
    :: c_kind == 2 || c_kind == 4 -> p_frags = 1 << c_frag
    :: c_kind == 5 -> p_frags = (1 << c_frag) | (1 << c_frag2)
    :: c_kind == 9 || (c_kind == 3 && c_marker) -> p_psh = c_shard; p_pgen = c_gen
    :: else
    fi;
    p_ncov = (c_suuid != 0 -> c_scov : 0);
    Rebase();
    if
    :: verdict == 0 ->
      sv_next = nextfrag;
      sv_deleted = deleted;
      Build();
      if
      :: ok ->
        StoreNext(vcount);
        vcount++;
        committed++;
        activated = activated || c_kind == 10 || n_rb || n_wb
      :: else ->
        if
        :: nextfrag != sv_next -> rows[sv_next] = 0; nextfrag = sv_next
        :: else
        fi;
        deleted = sv_deleted;
        ok = 1
      fi
    :: else
    fi
  :: else
  fi
}

/* ---- atomic table actions (R36-R38) ---- */

inline Restore(v) {
  ok = BUDGET && v + 1 < vcount;
  if
  :: ok -> ok = v_ret[v]
  :: else
  fi;
  if
  :: ok && !(!HAS(3) && (v_rb[v] != v_wb[v] || ((v_rb[HD] || v_wb[HD]) && NOBIT(v)))) ->
    LoadNext(v);
    n_okind = 11; n_ofrag = 0; n_ocov = 0; n_oidx = 0; n_opsh = 0; n_opgen = 0;
    tmp = BOTH(HD) && !HAS(3);
    n_rb = v_rb[v] || tmp;
    n_wb = v_wb[v] || tmp;
    StoreNext(vcount);
    vcount++;
    committed++;
    activated = activated || n_rb || n_wb
  :: else
  fi
}

inline ShallowClone() {
  ok = BUDGET;
  if
  :: ok ->
    LoadNext(HD);
    if
    :: HAS(2) -> n_rb = 0; n_wb = 0
    :: else
    fi;
    vbase = vbase + vcount - 1;
    for (lv : 0 .. NV - 1) { ZeroVersion(lv) }
    StoreNext(0);
    vcount = 1;
    for (lt : 0 .. NT - 1) { ZeroTxn(lt) }
    tcount = 0;
    committed++
  :: else
  fi
}

inline CleanupVersions() {
  ok = 0;
  for (lv : 0 .. NV - 1) {
    if
    :: lv + 1 < vcount && v_ret[lv] -> ok = 1; v_ret[lv] = 0
    :: else
    fi
  }
}

/* ---- invariants (spec section 9), checked after every step ---- */

inline CheckCoverage() {
  CatchupWithinCoverage = 1;
  LiveRowsOf(v_live[HD], lrows);
  for (li : 0 .. IXA - 1) {
    for (ls : 0 .. SHARDS - 1) {
      for (lg : 1 .. GENS) {
        if
        :: li < INDEXES && lg <= v_cu[CU(HD, li, ls)] && (lrows & ROW(ls, lg)) ->
          HeldWithin(COVV(HD, li) & v_live[HD], ROW(ls, lg));
          if
          :: !held -> CatchupWithinCoverage = 0
          :: else
          fi
        :: else
        fi
      }
    }
  }
}

inline CheckCompaction() {
  CatchupWithinCompaction = 1;
  for (li : 0 .. IXA - 1) {
    for (ls : 0 .. SHARDS - 1) {
      if
      :: li < INDEXES && v_cu[CU(HD, li, ls)] > v_comp[CP(HD, ls)] ->
        CatchupWithinCompaction = 0
      :: else
      fi
    }
  }
}

/* wm := R40 watermark of `uses` on shard ls */
inline Watermark() {
  wm = v_comp[CP(HD, ls)];
  if
  :: wm != 0 ->
    capping = ((READ == 2 || HAS(17)) && uses != 0 -> (uses & (0 - uses)) : uses);
    for (mi : 0 .. IXA - 1) {
      if
      :: mi < INDEXES && ((capping >> mi) & 1) ->
        if
        :: v_cu[CU(HD, mi, ls)] > 0 && v_cu[CU(HD, mi, ls)] < wm ->
          wm = v_cu[CU(HD, mi, ls)]
        :: v_cu[CU(HD, mi, ls)] == 0 && READ == 0 && !(HAS(18) && BITPROTO) &&
           REQV(HD) -> wm = 0
        :: else
        fi
      :: else
      fi
    }
  :: else
  fi
}

/* ReadsMissNoRows for the query shape `uses` */
inline CheckShape() {
  fr = v_live[HD];
  for (mi : 0 .. IXA - 1) {
    if
    :: mi < INDEXES && ((uses >> mi) & 1) -> fr = fr & COVV(HD, mi)
    :: else
    fi
  }
  for (ls : 0 .. SHARDS - 1) {
    for (lg : 1 .. GENS) {
      if
      :: lg <= flushed[ls] && !(deleted & ROW(ls, lg)) ->
        Watermark();
        if
        :: !((retired[ls] >> (lg - 1)) & 1) && lg > wm -> skip
        :: else ->
          HeldWithin(fr, ROW(ls, lg));
          if
          :: !held ->
            if
            :: ((retired[ls] >> (lg - 1)) & 1) &&
               ((uses & ~rcover[ls * GENS + lg - 1]) & 255) == 0 ->
              HeldWithin(v_live[HD], ROW(ls, lg))
            :: else
            fi;
            if
            :: !held -> ReadsMissNoRows = 0
            :: else
            fi
          :: else
          fi
        fi
      :: else
      fi
    }
  }
}

inline CheckReads() {
  ReadsMissNoRows = 1;
  uses = 0;
  CheckShape();
  tmp = 0;
  for (li : 0 .. IXA - 1) {
    if
    :: li < INDEXES && PRESENT(HD, li) ->
      tmp = tmp | (1 << li);
      uses = 1 << li;
      CheckShape()
    :: else
    fi
  }
  uses = tmp;
  CheckShape()
}

inline CheckHistory() {
  FeatureBitsArePaired = 1;
  for (lv : 0 .. NV - 1) {
    if
    :: lv < vcount && v_rb[lv] != v_wb[lv] -> FeatureBitsArePaired = 0
    :: else
    fi
  }
  ActivationIsPermanent = !activated || BOTH(HD);
  NoRowIsLost = 1;
  CompactionNeverRegresses = 1;
  LegacyTablesAreUntouched = 1;
  UnchangedPositionsNeverDrop = 1;
  if
  :: vcount >= 2 ->
    tmp = v_okind[HD];
    if
    :: tmp != 2 && tmp != 11 ->
      LiveRowsOf(v_live[HD - 1], lrows);
      LiveRowsOf(v_live[HD], lrows2);
      if
      :: (lrows & ~lrows2) & 255 -> NoRowIsLost = 0
      :: (CLASSIFY(tmp) == 6 || CLASSIFY(tmp) == 5) && v_live[HD - 1] != v_live[HD] ->
        NoRowIsLost = 0
      :: else
      fi
    :: else
    fi;
    if
    :: tmp != 11 ->
      for (ls : 0 .. SHARDS - 1) {
        if
        :: v_comp[CP(HD, ls)] < v_comp[CP(HD - 1, ls)] -> CompactionNeverRegresses = 0
        :: else
        fi
      }
    :: else
    fi;
    if
    :: BITPROTO && NOBIT(HD - 1) && tmp != 10 ->
      for (lk : 0 .. IXA * SHARDS - 1) {
        if
        :: v_cu[HD * IXA * SHARDS + lk] != v_cu[(HD - 1) * IXA * SHARDS + lk] ->
          LegacyTablesAreUntouched = 0
        :: else
        fi
      }
    :: else
    fi;
    if
    :: tmp != 11 && tmp != 10 ->
      for (li : 0 .. IXA - 1) {
        if
        :: li < INDEXES &&
           v_uuid[SG(HD, li, 0)] == v_uuid[SG(HD - 1, li, 0)] &&
           v_cov[SG(HD, li, 0)] == v_cov[SG(HD - 1, li, 0)] &&
           v_uuid[SG(HD, li, 1)] == v_uuid[SG(HD - 1, li, 1)] &&
           v_cov[SG(HD, li, 1)] == v_cov[SG(HD - 1, li, 1)] ->
          for (ls : 0 .. SHARDS - 1) {
            if
            :: v_cu[CU(HD, li, ls)] < v_cu[CU(HD - 1, li, ls)] ->
              UnchangedPositionsNeverDrop = 0
            :: else
            fi
          }
        :: else
        fi
      }
    :: else
    fi
  :: else
  fi
}

/* Asserts the invariants; only the first broken one (registry order) fires. */
inline CheckInvariants() {
  CheckCoverage();
  CheckCompaction();
  CheckReads();
  CheckHistory();
  tmp = 1;
  tmp = tmp && CatchupWithinCoverage;
  CatchupWithinCompaction = CatchupWithinCompaction || !tmp;
  tmp = tmp && CatchupWithinCompaction;
  ReadsMissNoRows = ReadsMissNoRows || !tmp;
  tmp = tmp && ReadsMissNoRows;
  FeatureBitsArePaired = FeatureBitsArePaired || !tmp;
  tmp = tmp && FeatureBitsArePaired;
  ActivationIsPermanent = ActivationIsPermanent || !tmp;
  tmp = tmp && ActivationIsPermanent;
  NoRowIsLost = NoRowIsLost || !tmp;
  tmp = tmp && NoRowIsLost;
  CompactionNeverRegresses = CompactionNeverRegresses || !tmp;
  tmp = tmp && CompactionNeverRegresses;
  LegacyTablesAreUntouched = LegacyTablesAreUntouched || !tmp;
  tmp = tmp && LegacyTablesAreUntouched;
  UnchangedPositionsNeverDrop = UnchangedPositionsNeverDrop || !tmp;
  assert(CatchupWithinCoverage);
  assert(CatchupWithinCompaction);
  assert(ReadsMissNoRows);
  assert(FeatureBitsArePaired);
  assert(ActivationIsPermanent);
  assert(NoRowIsLost);
  assert(CompactionNeverRegresses);
  assert(LegacyTablesAreUntouched);
  assert(UnchangedPositionsNeverDrop)
}

/* Canonical uuids and the invariants, after an enabled step. */
#define STEP(call) d_step { fresh = 200; call; if :: ok -> Canonicalize(); \
  CheckInvariants() :: else fi }

/* R4 */
inline Init() {
  vcount = 1;
  vbase = 1;
  v_live[0] = 1;
  v_ret[0] = 1;
  for (li : 0 .. IXA - 1) {
    if
    :: li < INDEXES -> v_uuid[SG(0, li, 0)] = li + 1; v_cov[SG(0, li, 0)] = 1
    :: else
    fi
  }
  nextfrag = 1;
  Canonicalize()
}

active proctype memwal() {
  d_step { Init(); CheckInvariants() }
end:
  do
/* ACTIONS */
  od
}
