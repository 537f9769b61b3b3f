#!/usr/bin/env python3
"""Compare DocForge's call resolution with go/ssa + callgraph/cha (see cha.go and
crates/go/examples/calls). Usage: cha_compare.py ORACLE OURS [--strict]

Bars (the goals of precise call resolution):
  (a) edges we mark resolved_static (class `static`) present in the oracle graph  >= 99.9%
  (b) oracle edges from call sites we marked resolved, found by us (static or cha) >= 99%
  (c) unresolved call sites / call sites (builtins and conversions are not calls)  <= 10%
An edge is (call-site position, caller ID, callee ID). --strict: every bar at 100%
(fixtures). Exit status 0 iff the bars hold.
"""
import collections
import sys


def read(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 5:
                yield parts


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    strict = "--strict" in sys.argv
    oracle = {}  # (site, caller, callee) -> (kind, all synthetic)
    for site, caller, callee, kind, syn in read(args[0]):
        key = (site, caller, callee)
        prev = oracle.get(key)
        oracle[key] = (kind, (syn == "synthetic") and (prev is None or prev[1]))
    static, cha = {}, {}
    resolved_sites, unresolved_sites, noncall_sites = set(), {}, set()
    for site, caller, callee, cls, rest in read(args[1]):
        if cls == "static":
            static[(site, caller, callee)] = rest == "synthetic"
            resolved_sites.add(site)
        elif cls == "cha":
            cha[(site, caller, callee)] = rest == "synthetic"
            resolved_sites.add(site)
        elif cls == "resolved":
            resolved_sites.add(site)
            if rest.startswith("builtin") or rest in ("conversion", "not evaluated"):
                noncall_sites.add(site)
        elif cls == "unresolved":
            unresolved_sites[site] = rest.split(":")[0]
    ours = {**static, **cha}
    calls = len(resolved_sites - noncall_sites) + len(unresolved_sites)

    a_ok = [e for e in static if e in oracle]
    a_miss = [e for e in static if e not in oracle]
    b_all = [e for e in oracle if e[0] in resolved_sites]
    b_miss = [e for e in b_all if e not in ours]
    cha_extra = [e for e in cha if e not in oracle]
    syn_diff = [e for e in ours if e in oracle and ours[e] != oracle[e][1]]
    unseen = {e[0] for e in oracle} - resolved_sites - set(unresolved_sites)

    def pct(n, d):
        return 100.0 * n / d if d else 100.0

    a = pct(len(a_ok), len(static))
    b = pct(len(b_all) - len(b_miss), len(b_all))
    c = pct(len(unresolved_sites), calls)
    print(f"oracle edges: {len(oracle)}; ours: {len(static)} static + {len(cha)} cha edges; "
          f"{calls} call sites, {len(unresolved_sites)} unresolved")
    print(f"(a) resolved_static edges in oracle: {len(a_ok)}/{len(static)} = {a:.3f}%")
    for e in a_miss[:15]:
        print("    wrong:", *e)
    print(f"(b) oracle edges at our resolved sites found: {len(b_all) - len(b_miss)}/{len(b_all)} = {b:.3f}%")
    for e in b_miss[:15]:
        print("    missed:", *e, oracle[e][0])
    print(f"(c) unresolved call sites: {len(unresolved_sites)}/{calls} = {c:.2f}%")
    for r, n in collections.Counter(unresolved_sites.values()).most_common(8):
        print(f"    {n:>7} {r}")
    print(f"cha edges not in oracle: {len(cha_extra)}")
    for e in cha_extra[:8]:
        print("    extra:", *e)
    print(f"synthetic classification differs: {len(syn_diff)}")
    for e in syn_diff[:5]:
        print("    ", *e, "ours:", ours[e], "oracle:", oracle[e][1])
    print(f"oracle call sites we do not see at all: {len(unseen)}")
    for s in sorted(unseen)[:5]:
        print("    ", s)
    if strict:
        ok = not a_miss and not b_miss and not cha_extra
    else:
        ok = a >= 99.9 and b >= 99.0 and c <= 10.0
    print("bars:", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
