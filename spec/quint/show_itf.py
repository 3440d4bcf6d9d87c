#!/usr/bin/env python3
"""Prints an ITF trace of memwal_catchup.qnt compactly: one line per step (action, nondet
picks, outcome) and the head version after it. Usage: show_itf.py TRACE.itf.json"""
import json
import sys


def val(x):
    """Decodes ITF values into plain Python values."""
    if isinstance(x, dict):
        if "#bigint" in x:
            return int(x["#bigint"])
        if "#set" in x:
            return sorted((val(e) for e in x["#set"]), key=repr)
        if "#tup" in x:
            return tuple(val(e) for e in x["#tup"])
        if "#map" in x:
            return {val(k) if not isinstance(val(k), list) else tuple(val(k)): val(v)
                    for k, v in x["#map"]}
        return {k: val(v) for k, v in x.items()}
    if isinstance(x, list):
        return [val(e) for e in x]
    return x


def short(name):
    return name.split("::")[-1]


def main():
    trace = json.load(open(sys.argv[1]))
    for state in trace["states"]:
        s = {short(k): val(v) for k, v in state.items() if k != "#meta"}
        picks = {k: v["value"] for k, v in s.get("nondetPicks", {}).items()
                 if v.get("tag") == "Some"}
        h = s["versions"][-1]
        segs = {i: [(g["uuid"], g["covers"]) for g in l] for i, l in h["segments"].items()}
        print(f'{s.get("actionTaken", "?"):16} {str(picks):28} {s["lastOutcome"]["result"]:8}'
              f' v{h["number"]}/{len(s["versions"])} live={h["live"]} segs={segs}'
              f' comp={h["compacted"]} cu={h["catchup"]} bits={int(h["readerBit"])}{int(h["writerBit"])}'
              f' fl={s["flushed"]} ret={s["retired"]} rows={s["rows"]} infl={len(s["inflight"])}'
              f' {h["op"]["name"]}')


if __name__ == "__main__":
    main()
