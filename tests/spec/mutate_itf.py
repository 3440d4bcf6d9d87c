#!/usr/bin/env python3
"""The spec-side mutation for spec.crosscheck.mutant_trace: copies an ITF trace with exactly one
value changed, the first shard's `compacted` of the first version in the last state, raised by
one. A cross-check that still passed on the copy would not be comparing `compacted`.

Usage: mutate_itf.py IN.itf.json OUT.itf.json
"""
import json
import os
import sys


def main(source, target):
    with open(source) as f:
        trace = json.load(f)
    last = trace["states"][-1]
    versions = next(v for k, v in last.items() if k.endswith("::versions"))
    entry = versions[0]["compacted"]["#map"][0]  # [shard, generation]
    entry[1] = {"#bigint": str(int(entry[1]["#bigint"]) + 1)}
    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
    with open(target, "w") as f:
        json.dump(trace, f)
    print(f"mutate_itf: {target}: state {len(trace['states']) - 1}, versions[0].compacted "
          f"shard {entry[0]['#bigint']} set to {entry[1]['#bigint']}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: mutate_itf.py IN.itf.json OUT.itf.json")
    main(sys.argv[1], sys.argv[2])
