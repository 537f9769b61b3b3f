#!/usr/bin/env python3
"""Score the engine's published precise call graph (crates/db/examples/symbol_ids --cha)
against go/ssa + callgraph/cha (oracle -cha), at the level validation reads it:
(caller, callee) pairs and the per-function `calls_resolved` flag.

Usage: engine_cha.py ORACLE ENGINE [--std-only]

--std-only (an oracle run over std only, an engine run over GOROOT/src): callers and callees
under cmd/ are left out on both sides (the engine's CHA also sees cmd's implementations).

  wrong pass:  an engine resolved_static or cha_possible_target pair the oracle lacks;
  wrong fail:  an oracle pair (synthetic or not) from a caller the engine marks complete
               that the engine lacks: `call_edge_exists` would answer fail;
  coverage:    callers marked complete / callers with calls in the oracle.
Exit status 0 iff there is no wrong pass and no wrong fail.
"""
import collections
import sys


def rows(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            yield line.rstrip("\n").split("\t")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    std_only = "--std-only" in sys.argv
    keep = (lambda caller: not caller.startswith("cmd/")) if std_only else (lambda caller: True)
    oracle = collections.defaultdict(set)  # caller -> callees
    for r in rows(args[0]):
        if len(r) >= 5 and keep(r[1]) and keep(r[2]):
            oracle[r[1]].add(r[2])
    edges, complete = {}, set()
    for r in rows(args[1]):
        if len(r) != 3 or not keep(r[0]) or (r[1] != "-" and not keep(r[1])):
            continue
        if r[1] == "-":
            complete.add(r[0])
        else:
            edges[(r[0], r[1])] = r[2]
    wrong_pass = sorted(
        (c, t, k) for (c, t), k in edges.items() if k != "synthetic" and t not in oracle.get(c, ())
    )
    wrong_fail = sorted((c, t) for c in complete for t in oracle.get(c, ()) if (c, t) not in edges)
    by_class = collections.Counter(edges.values())
    callers = [c for c in oracle]
    print(f"engine edges: {len(edges)} {dict(sorted(by_class.items()))}")
    print(f"oracle callers: {len(callers)}; marked complete: {sum(c in complete for c in callers)}"
          f" ({100.0 * sum(c in complete for c in callers) / max(1, len(callers)):.2f}%)")
    print(f"wrong pass (engine pair not in oracle): {len(wrong_pass)}")
    for w in wrong_pass[:20]:
        print("  +", *w)
    print(f"wrong fail (oracle pair missing from a complete caller): {len(wrong_fail)}")
    for w in wrong_fail[:20]:
        print("  -", *w)
    sys.exit(0 if not wrong_pass and not wrong_fail else 1)


if __name__ == "__main__":
    main()
