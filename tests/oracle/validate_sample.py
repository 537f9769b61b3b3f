#!/usr/bin/env python3
"""Validation against the oracles on a real tree: bindings sampled from go/types' implements
pairs and go/ssa + CHA's call graph, evaluated by the real `gograph validate` binary against
a `gograph build --precise` snapshot. A `pass` the oracle contradicts or a `fail` the oracle
contradicts is an error; `cannot_evaluate` is counted (a coverage gap, never an error).

Usage: validate_sample.py GOGRAPH REPO IMPLEMENTS_ORACLE CHA_ORACLE [N]

REPO must already hold .gograph/graph.json (gograph build --precise). Negative samples are
pairs of the same kinds the oracle does not relate. Deterministic (seeded).
"""
import collections
import json
import random
import subprocess
import sys


def binding(predicate, subject, obj):
    return json.dumps({
        "schema_version": "gograph.binding.v1",
        "predicate": predicate,
        "subject": {"language": "go", "kind": "symbol", "id": subject},
        "object": {"language": "go", "kind": "symbol", "id": obj},
        "required_precision": "precise",
    })


def main():
    gograph, repo, impl_path, cha_path = sys.argv[1:5]
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    rnd = random.Random(7)
    keep = lambda sym: not sym.startswith(("cmd/", "vendor/"))
    impl = set()
    for line in open(impl_path, encoding="utf-8"):
        t, i, _ = line.split()
        if keep(t) and keep(i):
            impl.add((t, i))
    calls = collections.defaultdict(set)
    for line in open(cha_path, encoding="utf-8"):
        r = line.rstrip("\n").split("\t")
        if len(r) >= 5 and keep(r[1]) and keep(r[2]):
            calls[r[1]].add(r[2])
    types = sorted({t for t, _ in impl})
    ifaces = sorted({i for _, i in impl})
    callers = sorted(calls)
    callees = sorted({c for cs in calls.values() for c in cs})
    cases = []
    for t, i in rnd.sample(sorted(impl), n):
        cases.append(("type_implements", t, i, True))
    while sum(1 for c in cases if c[0] == "type_implements" and not c[3]) < n:
        t, i = rnd.choice(types), rnd.choice(ifaces)
        if (t, i) not in impl:
            cases.append(("type_implements", t, i, False))
    for c in rnd.sample(callers, n):
        cases.append(("call_edge_exists", c, rnd.choice(sorted(calls[c])), True))
    while sum(1 for c in cases if c[0] == "call_edge_exists" and not c[3]) < n:
        c, t = rnd.choice(callers), rnd.choice(callees)
        if t not in calls[c]:
            cases.append(("call_edge_exists", c, t, False))
    errors, tally = 0, collections.Counter()
    for predicate, s, o, holds in cases:
        out = subprocess.run(
            [gograph, "validate", "--repo", repo, "--binding-json", binding(predicate, s, o), "--json"],
            capture_output=True, text=True,
        )
        result = json.loads(out.stdout)
        outcome, reason = result["evaluation"]["outcome"], result["evaluation"]["reason"]
        tally[(predicate, "holds" if holds else "absent", outcome)] += 1
        if (outcome == "pass" and not holds) or (outcome == "fail" and holds):
            errors += 1
            print(f"WRONG {outcome}: {predicate} {s} -> {o} (oracle: {'holds' if holds else 'absent'}; {reason})")
    for key in sorted(tally):
        print(*key, tally[key])
    print(f"{len(cases)} bindings, {errors} wrong")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
