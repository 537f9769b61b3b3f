"""The MCP read surface through the official Python SDK over stdio, on fixtures/shop and on
mutated copies. Each test states one rule of the contract."""

import base64
import json

import pytest
import shutil
import os
import time
from pathlib import Path

from conftest import CONTRACT_READ_TOOLS, call, run, session, start_raw, tree_state

ENVELOPE = ["notice", "project", "revision", "source_hash", "adapter_version", "precision", "staleness"]


def test_tools_list_is_the_contract_read_list_minus_what_get_contract_reports_unregistered(shop):
    async def go():
        async with session(shop, "--capability-mode", "read") as s:
            listed = [t.name for t in (await s.list_tools()).tools]
            err, c, _ = await call(s, "docforge_get_contract")
            assert not err
            r = c["result"]
            assert listed == r["registered_tools"]
            unregistered = [t["name"] for t in r["not_registered"] if t["name"] in CONTRACT_READ_TOOLS]
            assert all(t["reason"] for t in r["not_registered"])
            assert sorted(listed + unregistered) == sorted(CONTRACT_READ_TOOLS)
            assert [n for n in CONTRACT_READ_TOOLS if n in listed] == listed, "contract order kept"
            for t in (await s.list_tools()).tools:
                assert t.annotations.readOnlyHint is True and t.annotations.idempotentHint is True
                assert t.outputSchema["type"] == "object" and "staleness" in t.outputSchema["required"]
                assert [o["required"] for o in t.outputSchema["oneOf"]] == [["result"], ["error"]]
                assert t.inputSchema["type"] == "object"
                # Each tool states its own result (the SDK checks every answer against it).
                assert t.outputSchema["properties"]["result"].get("required"), t.name
    run(go())


def test_every_response_carries_the_envelope_and_the_notice(shop):
    async def go():
        async with session(shop) as s:
            assert "project content" in s.init_result.instructions or "not instructions" in s.init_result.instructions
            for name, args in [
                ("docforge_bootstrap", {}),
                ("docforge_project_info", {}),
                ("docforge_search", {"query": "repository"}),
                ("docforge_get_node", {"node_id": "nope"}),
            ]:
                err, c, res = await call(s, name, args)
                for key in ENVELOPE:
                    assert key in c, (name, key)
                assert "not instructions" in c["notice"]
                assert c["project"]["id"] == "shop"
                assert json.loads(res.content[0].text) == c, "the text block is the structured result"
    run(go())


def test_bootstrap_reports_binding_policy_capabilities_and_session_contract(shop):
    async def go():
        async with session(shop) as s:
            err, c, _ = await call(s, "docforge_bootstrap")
            assert not err
            r = c["result"]
            assert r["binding"]["project_root"] == str(shop.resolve())
            assert r["binding"]["index_path"].endswith(".docforge/index.sqlite")
            assert r["effective_policy"]["schema_version"] == 1
            assert r["effective_policy"]["capability_mode"] == "proposal"
            assert r["capabilities"]["proposal_access"]["enabled"] is False
            assert r["capabilities"]["application_access"]["enabled"] is False
            assert r["session_contract"]["version"] == 1
            assert "propos" not in r["session_contract"]["first_operation"]
            assert r["index"]["summary"]["nodes"] > 0
            assert c["staleness"] == "rebuilt", "the first call builds the missing index"
            err, c2, _ = await call(s, "docforge_bootstrap")
            assert c2["staleness"] == "current" and c2["revision"] == c["revision"]
    run(go())


def test_a_second_process_adopts_the_published_index_without_rebuilding(shop):
    async def first():
        async with session(shop) as s:
            return (await call(s, "docforge_bootstrap"))[1]

    async def second():
        async with session(shop) as s:
            return (await call(s, "docforge_bootstrap"))[1]

    a = run(first())
    b = run(second())
    assert b["staleness"] == "current" and b["revision"] == a["revision"] and b["source_hash"] == a["source_hash"]


def test_get_node_search_filter_backlinks_dependencies_impact(shop):
    async def go():
        async with session(shop) as s:
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "arch.storage"})
            assert not err, c
            node = c["result"]["node"]
            assert node["kind"] == "document" and node["attrs"]["kind"] == "design"
            assert node["attrs"]["family"] == "architecture"
            rels = {(e["relation"], e["node_id"]) for e in c["result"]["outgoing"]["items"]}
            assert ("governs", "go:example.com/shop/storage::Repository") in rels

            err, c, _ = await call(s, "docforge_search", {"query": "Repository", "limit": 2})
            assert not err and c["result"]["returned"] == 2 and c["result"]["truncated"] is True
            first = [i["id"] for i in c["result"]["items"]]
            err, c2, _ = await call(s, "docforge_search", {"query": "Repository", "limit": 2, "cursor": c["result"]["next_cursor"]})
            assert not err and not set(first) & {i["id"] for i in c2["result"]["items"]}

            err, c, _ = await call(s, "docforge_filter_nodes", {"family": "architecture", "kind": "design"})
            ids = [i["id"] for i in c["result"]["items"]]
            assert ids == sorted(ids) and {"arch.service", "arch.storage"} <= set(ids)
            err, c, _ = await call(s, "docforge_filter_nodes", {"tag": "interfaces"})
            assert [i["id"] for i in c["result"]["items"]] == ["arch.storage"]

            err, c, _ = await call(s, "docforge_backlinks", {"node_id": "go:example.com/shop/storage::Repository"})
            assert ("arch.storage", "governs") in {(i["source"], i["relation"]) for i in c["result"]["items"]}

            err, c, _ = await call(s, "docforge_dependencies", {"node_id": "arch.service", "depth": 2})
            reached = {i["id"]: i for i in c["result"]["items"]}
            assert "arch.storage" in reached and reached["arch.storage"]["depth"] == 1
            assert c["result"]["truncated"] is False and c["result"]["truncation"] is None

            err, c, _ = await call(s, "docforge_impact", {"node_id": "arch.storage", "depth": 1})
            assert "arch.service" in {i["id"] for i in c["result"]["items"]}
    run(go())


def test_limits_are_capped_and_truncation_says_why(shop):
    cfg = shop / "docforge.toml"
    cfg.write_text(cfg.read_text() + "\n[limits]\nmax_results = 3\n")

    async def go():
        async with session(shop) as s:
            err, c, _ = await call(s, "docforge_search", {"query": "service", "limit": 50})
            assert c["result"]["returned"] <= 3 and c["result"]["limit_clamped"] is True
            err, c, _ = await call(s, "docforge_filter_nodes", {"kind": "func"})
            assert c["result"]["returned"] == 3 and c["result"]["truncated"] is True
            err, c, _ = await call(s, "docforge_impact", {"node_id": "go:example.com/shop/storage", "depth": 3})
            assert c["result"]["returned"] == 3
            assert c["result"]["truncated"] is True and c["result"]["truncation"] == "result_limit"
            err, c, _ = await call(s, "docforge_search", {"query": "x", "limit": 0})
            assert err and c["error"]["code"] == "invalid_arguments"
    run(go())


def test_bad_arguments_are_structured_errors(shop):
    async def go():
        async with session(shop) as s:
            for name, args, code in [
                ("docforge_get_node", {"node_id": "arch.storage", "extra": 1}, "invalid_arguments"),
                ("docforge_get_node", {}, "invalid_arguments"),
                ("docforge_get_node", {"node_id": "ARCH.STORAGE"}, "node_not_found"),
                ("docforge_get_context", {"node_id": "x" * 5000}, "invalid_arguments"),
                ("docforge_get_task_context", {"task": "change", "description": "x", "focus_node_id": "x" * 5000}, "invalid_arguments"),
                ("docforge_search", {"query": ""}, "invalid_arguments"),
                ("docforge_dependencies", {"node_id": "arch.storage", "depth": 9}, "invalid_arguments"),
                ("docforge_filter_nodes", {}, "invalid_arguments"),
                ("docforge_get_task_context", {"task": "refactor", "description": "x"}, "invalid_arguments"),
                ("docforge_get_task_context", {"task": "change", "description": "x" * 10001}, "invalid_arguments"),
            ]:
                err, c, _ = await call(s, name, args)
                assert err and c["error"]["code"] == code, (name, args, c.get("error"))
            # A node not found names the IDs the caller may have meant, on every tool.
            for name, typed, want in [
                ("docforge_get_node", "ARCH.STORAGE", "arch.storage"),
                ("docforge_get_context", "arch.storag", "arch.storage"),
                ("docforge_backlinks", "OrderService", "go:example.com/shop/service::OrderService"),
                ("docforge_impact", "Place", "go:example.com/shop/service::(*OrderService).Place"),
            ]:
                err, c, _ = await call(s, name, {"node_id": typed})
                assert err and c["error"]["code"] == "node_not_found", (name, c)
                assert c["error"]["details"]["closest"][0] == want, (name, typed, c["error"])
                assert "details.closest" in c["error"]["remediation"]
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "zzzz-nothing-like-it"})
            assert c["error"]["details"]["closest"] == [] and "docforge_search" in c["error"]["remediation"]
    run(go())


def test_cursors_fail_closed_when_corrupt_foreign_or_stale(shop):
    async def go():
        async with session(shop) as s:
            err, c, _ = await call(s, "docforge_search", {"query": "Repository", "limit": 1})
            cur = c["result"]["next_cursor"]
            raw = base64.urlsafe_b64decode(cur + "=" * (-len(cur) % 4))
            tampered = base64.urlsafe_b64encode(raw.replace(b'"position":1', b'"position":7')).rstrip(b"=").decode()
            for bad in [tampered, "!!!", cur[:-3]]:
                err, c2, _ = await call(s, "docforge_search", {"query": "Repository", "limit": 1, "cursor": bad})
                assert err and c2["error"]["code"] == "invalid_cursor"
                assert c2["error"]["remediation"] == "restart_pagination"
            err, c2, _ = await call(s, "docforge_search", {"query": "Order", "limit": 1, "cursor": cur})
            assert err and c2["error"]["code"] == "invalid_cursor", "bound to its parameters"
            # A change to the sources makes the old cursor stale: never silently restarted.
            doc = shop / "docs" / "notes.md"
            doc.write_text(doc.read_text() + "\nRepository notes changed.\n")
            err, c3, _ = await call(s, "docforge_search", {"query": "Repository", "limit": 1, "cursor": cur})
            assert err and c3["error"]["code"] == "stale_cursor"
            assert c3["error"]["remediation"] == "restart_pagination"
            assert c3["staleness"] == "rebuilt" and c3["revision"] == c["revision"] + 1
    run(go())


def test_every_call_resyncs_after_an_edit_outside_the_client(shop):
    async def go():
        async with session(shop, "--diagnostics") as s:
            _, c, _ = await call(s, "docforge_bootstrap")
            _, quiet, _ = await call(s, "docforge_get_node", {"node_id": "arch.storage"})
            assert quiet["staleness"] == "current" and quiet["diagnostics"]["counters"].get("full_walks", 0) == 0
            doc = shop / "docs" / "notes.md"
            doc.write_text(doc.read_text() + "\nA brand new zanzibar term.\n")
            _, c2, _ = await call(s, "docforge_search", {"query": "zanzibar"})
            assert c2["staleness"] == "rebuilt" and c2["revision"] == c["revision"] + 1
            assert c2["source_hash"] != c["source_hash"]
            counters = c2["diagnostics"]["counters"]
            assert counters["files_read"] == 1, "only the edited file is read again"
            assert counters["full_walks"] == 0, "the watcher named the file: no walk"
            assert counters["owners_written"] <= 2, "only the edited document's rows are rewritten"
            assert [i["id"] for i in c2["result"]["items"]] == ["notes"] or c2["result"]["returned"] >= 1
            (shop / "docs" / "notes.md").unlink()
            _, c3, _ = await call(s, "docforge_search", {"query": "zanzibar"})
            assert c3["staleness"] == "rebuilt" and c3["result"]["returned"] == 0
            _, c4, _ = await call(s, "docforge_sync")
            assert c4["staleness"] == "current" and c4["revision"] == c3["revision"]
    run(go())


def test_get_context_pages_with_omission_evidence_and_the_size_limit(shop):
    cfg = shop / "docforge.toml"
    cfg.write_text(cfg.read_text() + "\n[limits]\nmax_results = 3\nmax_response_bytes = 6000\n")
    big = shop / "docs" / "big.md"
    targets = '["arch.storage", "arch.service", "glossary", "notes", "decision.pointer-receivers"]'
    big.write_text("+++\nid = \"big\"\n[relations]\nrelates_to = " + targets + "\n+++\n" + "word " * 4000 + "\n\n# Big\n")

    async def go():
        async with session(shop) as s:
            seen, pages, cursor = [], 0, None
            while True:
                args = {"node_id": "big", "limit": 2}
                if cursor:
                    args["cursor"] = cursor
                err, c, _ = await call(s, "docforge_get_context", args)
                assert not err, c
                page = c["result"]["page"]
                seen += c["result"]["items"]
                pages += 1
                assert page["returned"] == len(c["result"]["items"]) >= 1
                cursor = page["next_cursor"]
                if not page["has_more"]:
                    assert cursor is None
                    break
                assert pages < 50
            assert len(seen) == page["total"]
            first = seen[0]
            assert first["type"] == "omission" and first["reason"] == "response_limit", first
            assert first["id"] == "big" and len(first["item_hash"]) == 64, "hash-identified"
            kinds = [i["type"] for i in seen]
            assert "entry" in kinds
            reasons = [i["reason"] for i in seen[1:] if i["type"] == "omission"]
            assert "result_limit" in reasons, "neighbours beyond max_results are explicit omissions"
            last_entry = max(i for i, k in enumerate(kinds) if k == "entry")
            assert all(k == "omission" for k in kinds[last_entry + 1:]), "entries first, omissions second"
            # The omission's remediation works: get_node pages what one response cannot hold.
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "big"})
            assert not err, c
            node = c["result"]["node"]
            assert node["text_truncated"] is True and node["text_next_offset"] == len(node["text"].encode())
    run(go())


def test_task_context_is_plan_derived_bounded_and_hash_stable_across_pages(shop):
    async def go():
        async with session(shop) as s:
            args = {"task": "change", "description": "order service storage repository", "limit": 2}
            err, c, _ = await call(s, "docforge_get_task_context", args)
            assert not err, c
            r = c["result"]
            assert r["plan"]["version"] == 1 and r["plan"]["ceilings"] == {
                "evidence_items": 1000, "candidate_edges": 100000, "query_chars": 10000}
            assert {st["step"] for st in r["plan"]["steps"]} == {"traverse", "hydrate"}
            hashes = {k: r[k] for k in ["request_hash", "plan_hash", "collection_hash", "capsule_hash"]}
            items = list(r["items"])
            cursor = r["page"]["next_cursor"]
            while cursor:
                err, c, _ = await call(s, "docforge_get_task_context", {**args, "cursor": cursor})
                assert not err
                assert {k: c["result"][k] for k in hashes} == hashes
                items += c["result"]["items"]
                cursor = c["result"]["page"]["next_cursor"]
            ev = [i for i in items if i["type"] == "evidence"]
            assert ev and all(len(i["content_hash"]) == 64 and "relationship_reasons" in i for i in ev)
            assert len({i["id"] for i in items}) == len(items), "pages partition the stream"
            err, c, _ = await call(s, "docforge_get_task_context", {**args, "description": "other words", "cursor": r["page"]["next_cursor"]})
            assert err and c["error"]["code"] in ("invalid_cursor", "stale_cursor")
            err, c, _ = await call(s, "docforge_get_task_context",
                                   {"task": "test", "description": "x", "focus_node_id": "arch.storage"})
            assert not err and c["result"]["plan"]["focus"]["mode"] == "exact"
            for gap in c["result"]["evidence_gaps"]:
                assert gap["gap"] in ("undeclared_relation_category", "no_selected_evidence", "incomplete_proof")
    run(go())


def test_validate_project_reports_every_claim(shop):
    async def go():
        async with session(shop) as s:
            err, c, _ = await call(s, "docforge_validate_project")
            assert not err
            r = c["result"]
            assert r["claims"] == len(r["items"]) > 0
            assert sum(r["outcomes"].values()) == r["claims"]
            assert all(i["result"]["schema_version"] == "gograph.validation.v1" for i in r["items"])
            assert r["returned"] == r["claims"] and r["truncated"] is False and r["truncation"] is None
            rank = {"fail": 0, "cannot_evaluate": 1, "pass": 2}
            outcomes = [rank[i["outcome"]] for i in r["items"]]
            assert outcomes == sorted(outcomes) and outcomes[0] == 0, "what fails comes first"
    run(go())

    # A response too small for every claim's full result: the first ones that fit, saying so.
    cfg = shop / "docforge.toml"
    cfg.write_text(cfg.read_text() + "\n[limits]\nmax_response_bytes = 9000\n")

    async def small():
        async with session(shop) as s:
            err, c, _ = await call(s, "docforge_validate_project")
            assert not err, c.get("error")
            r = c["result"]
            assert 1 <= r["returned"] == len(r["items"]) < r["claims"], r["returned"]
            assert r["truncated"] is True and r["truncation"] == "response_limit"
            assert r["items"][0]["outcome"] == "fail"
    run(small())


def test_no_ast_binding_forbids_logic_and_names_the_excluded_operations(shop):
    async def go():
        async with session(shop, "--no-ast") as s:
            assert "--no-ast" in s.init_result.instructions
            err, c, _ = await call(s, "docforge_bootstrap")
            p = c["result"]["effective_policy"]
            assert p["ast_policy"] == "no_ast" and p["logic_indexing"] is False
            assert {"adapter_ast_upgrade", "function_logic_extraction"} <= set(p["excluded_operations"])
            assert c["result"]["adapter_policy"] == {"no_ast": True, "ast_analysis": False, "logic_indexing": False}
            err, c, _ = await call(s, "docforge_get_logic", {"node_id": "go:example.com/shop/service::New"})
            assert err and c["error"]["code"] == "adapter_policy_forbids_logic"
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "file:service/service.go"})
            assert not err, "Go files are still inventoried as file nodes"
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "go:example.com/shop/service::New"})
            assert err and c["error"]["code"] == "node_not_found", "no symbols without an AST"
            # Claims are not evaluated with Go analysis under the policy that forbids it.
            err, c, _ = await call(s, "docforge_validate_project")
            assert err and c["error"]["code"] == "adapter_policy_forbids_ast", c
    run(go())


def test_a_preexisting_index_with_logic_is_never_read_under_no_ast(shop):
    import sqlite3
    async def precise():
        async with session(shop) as s:
            err, c, _ = await call(s, "docforge_get_logic", {"node_id": "go:example.com/shop/service::New"})
            assert not err, c
            assert c["result"]["steps"] > 0 and c["precision"] == "precise"
    run(precise())
    db = shop / ".docforge" / "index.sqlite"
    logic_rows = sqlite3.connect(db).execute("select count(*) from logic").fetchone()[0]
    assert logic_rows > 0
    # A no-AST binding has an index of its own; one holding Logic there is never read.
    shutil.copy(db, shop / ".docforge" / "index.no-ast.sqlite")
    no_ast_db = shop / ".docforge" / "index.no-ast.sqlite"

    async def no_ast():
        async with session(shop, "--no-ast") as s:
            err, c, _ = await call(s, "docforge_search", {"query": "New"})
            assert not err and c["staleness"] == "rebuilt" and c["precision"] == "none"
            assert all(not i["id"].startswith("go:") for i in c["result"]["items"])
            _, b, _ = await call(s, "docforge_bootstrap")
            assert b["result"]["binding"]["index_path"].endswith(".docforge/index.no-ast.sqlite")
            assert b["result"]["binding"]["precision_requested"] == "none"
    run(no_ast())
    assert sqlite3.connect(no_ast_db).execute("select count(*) from logic").fetchone()[0] == 0
    # The project's precise index is left as it was: a process policy never downgrades it.
    assert sqlite3.connect(db).execute("select count(*) from logic").fetchone()[0] == logic_rows


def test_precision_is_the_projects_setting(shop):
    import subprocess
    from conftest import BIN
    cfg = shop / "docforge.toml"
    cfg.write_text(cfg.read_text() + '\n[analysis]\nprecision = "ast"\n')
    # Asking for more than the project declares refuses to start, writing nothing.
    p = start_raw(shop, "--precise")
    assert p.returncode == 1 and b"precision_not_declared" in p.stderr, p.stderr
    assert not (shop / ".docforge").exists()

    async def go():
        async with session(shop) as s:
            _, c, _ = await call(s, "docforge_bootstrap")
            assert c["precision"] == "ast" and c["result"]["index"]["precision"] == "ast"
            assert c["result"]["binding"]["precision_declared"] == "ast"
            err, c, _ = await call(s, "docforge_get_logic", {"node_id": "go:example.com/shop/service::New"})
            assert err and c["error"]["code"] == "logic_not_indexed" and c["precision"] == "ast", c
            _, d, _ = await call(s, "docforge_get_generation_diff")
            assert d["precision"] == "ast", "a status tool states the binding's precision"
    run(go())
    # The CLI builds the same precision: the server's index is already current.
    out = subprocess.run([str(BIN), "--project-root", str(shop), "index", "--json"], capture_output=True, check=True)
    assert json.loads(out.stdout)["up_to_date"] is True


def test_startup_refusals_fail_closed(shop):
    for flags, code in [
        (["--capability-mode", "application"], "canonical_applier_required"),
        (["--capability-mode", "application", "--canonical-applier", "w1"], "canonical_applier_required"),
        (["--capability-mode", "read", "--canonical-applier", "w1"], "invalid_arguments"),
    ]:
        p = start_raw(shop, *flags)
        assert p.returncode == 1 and code in p.stderr.decode(), (flags, p.stderr)
    p = start_raw(shop, "--capability-mode", "bogus")
    assert p.returncode == 2
    assert not (shop / ".docforge").exists(), "a refused start writes nothing"


def test_adapter_change_requires_a_restart(shop):
    async def go():
        async with session(shop) as s:
            err, c, _ = await call(s, "docforge_bootstrap")
            assert not err
            cfg = shop / "docforge.toml"
            cfg.write_text(cfg.read_text() + "\n# changed\n")
            err, c, _ = await call(s, "docforge_search", {"query": "x"})
            assert err and c["error"]["code"] == "adapter_restart_required"
            assert c["error"]["remediation"] == "restart_project_server"
            # Even this answer states what it read (nothing) and how current it is.
            for key in ENVELOPE:
                assert key in c, key
            assert c["revision"] is None and c["source_hash"] is None and c["staleness"] == "unknown"
    run(go())


def test_no_socket_at_startup_and_no_write_outside_the_state_dir(shop):
    before = tree_state(shop)

    async def go():
        async with session(shop, "--diagnostics") as s:
            pids = [p for p in os.listdir("/proc") if p.isdigit()]
            mine = []
            for p in pids:
                try:
                    cmd = Path(f"/proc/{p}/cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if str(shop).encode() in cmd and b"mcp" in cmd:
                    mine.append(p)
            assert len(mine) == 1
            for name, args in [
                ("docforge_bootstrap", {}), ("docforge_sync", {}), ("docforge_project_info", {}),
                ("docforge_get_contract", {}), ("docforge_get_node", {"node_id": "arch.storage"}),
                ("docforge_get_logic", {"node_id": "arch.storage"}), ("docforge_search", {"query": "order"}),
                ("docforge_filter_nodes", {"kind": "design"}), ("docforge_backlinks", {"node_id": "arch.storage"}),
                ("docforge_dependencies", {"node_id": "arch.service"}), ("docforge_impact", {"node_id": "arch.storage"}),
                ("docforge_get_context", {"node_id": "arch.storage"}),
                ("docforge_get_task_context", {"task": "ownership", "description": "storage"}),
                ("docforge_validate_project", {}),
            ]:
                err, c, _ = await call(s, name, args)
                d = c["diagnostics"]
                assert d["schema_version"] == 1 and set(d["stages_ms"]) >= {"source_identity", "index_read"}
                assert "arch" not in json.dumps(d) and str(shop) not in json.dumps(d), "no content or paths"
            fds = [os.readlink(f"/proc/{mine[0]}/fd/{fd}") for fd in os.listdir(f"/proc/{mine[0]}/fd")]
            inodes = {f[len("socket:["):-1] for f in fds if f.startswith("socket:[")}
            # No IP socket at all (TCP or UDP, v4 or v6) ...
            for table in ["tcp", "tcp6", "udp", "udp6", "raw", "raw6"]:
                rows = Path(f"/proc/{mine[0]}/net/{table}").read_text().splitlines()[1:]
                assert not inodes & {r.split()[9] for r in rows if len(r.split()) > 9}, table
            # ... and no named or listening Unix socket (the runtime's internal socketpair is neither).
            for r in Path(f"/proc/{mine[0]}/net/unix").read_text().splitlines()[1:]:
                cols = r.split()
                if cols[6] in inodes:
                    assert len(cols) == 7, f"named unix socket {cols}"
                    assert int(cols[3], 16) & 0x10000 == 0, "listening unix socket"
    run(go())
    assert tree_state(shop) == before


def receipt_file(root):
    return root / ".docforge" / "receipts" / "generation-diff.v1.json"


def test_generation_diff_states_and_pages_without_repairing(shop):
    async def go():
        async with session(shop) as s:
            err, c, _ = await call(s, "docforge_get_generation_diff")
            assert not err and c["result"]["receipt_state"] == "missing" and c["staleness"] == "missing"
            assert not (shop / ".docforge").exists(), "the status path never builds or writes"

            _, boot, _ = await call(s, "docforge_bootstrap")
            err, c, _ = await call(s, "docforge_get_generation_diff", {"limit": 3})
            r = c["result"]
            assert r["receipt_state"] == "current" and r["page_schema_version"] == 1
            h = r["receipt_header"]
            assert h["from"] is None and h["to"]["generation"] == boot["revision"]
            assert len(h["to"]["node_hash"]) == 64 and len(h["to"]["edge_hash"]) == 64
            c2_header_to = h["to"]
            assert h["counts"]["nodes_added"] == boot["result"]["index"]["summary"]["nodes"]
            assert h["counts"]["edges_added"] == boot["result"]["index"]["summary"]["edges"]
            assert "items" not in h and len(h["stored_receipt_hash"]) == 64
            assert len(r["items"]) == 3 and r["pagination"]["has_more"] is True
            assert r["pagination"]["details_permanently_omitted"] == max(0, h["counts"]["items_total"] - 1000)
            first_cursor = r["pagination"]["next_cursor"]
            err, c2, _ = await call(s, "docforge_get_generation_diff", {"limit": 3, "cursor": first_cursor})
            assert not err and c2["result"]["items"] != r["items"]

            # An edit makes the receipt stale until a normal call republishes.
            doc = shop / "docs" / "notes.md"
            doc.write_text(doc.read_text() + "\nOne more line.\n")
            _, c, _ = await call(s, "docforge_get_generation_diff")
            assert c["result"]["receipt_state"] == "stale" and c["result"]["page"] is None
            _, synced, _ = await call(s, "docforge_search", {"query": "line"})
            _, c, _ = await call(s, "docforge_get_generation_diff")
            r = c["result"]
            assert r["receipt_state"] == "current"
            h = r["receipt_header"]
            assert h["from"]["generation"] == boot["revision"] and h["to"]["generation"] == synced["revision"]
            # Incremental receipts state the identity of the sources they start from.
            assert h["from"]["source_identity"] == c2_header_to["source_identity"] is not None
            assert h["to"]["source_identity"] not in (None, h["from"]["source_identity"])
            assert h["counts"]["nodes_changed"] >= 1 and h["counts"]["nodes_added"] == 0
            first_to = c2_header_to
            assert h["from"]["node_hash"] == first_to["node_hash"] and h["from"]["edge_hash"] == first_to["edge_hash"]
            assert h["to"]["node_hash"] != h["from"]["node_hash"], "a node changed"
            assert h["to"]["edge_hash"] == h["from"]["edge_hash"], "prose edits change no edge"
            changed = [i["id"] for i in r["items"] if i["type"] == "node" and i["change"] == "changed"]
            assert sorted(changed) == ["docs/notes", "docs/notes#notes", "file:docs/notes.md"], r["items"]
            err, c, _ = await call(s, "docforge_get_generation_diff", {"limit": 3, "cursor": first_cursor})
            assert err and c["error"]["code"] == "stale_cursor"

            # Tampered or unsafe evidence is stated, never repaired.
            f = receipt_file(shop)
            good = f.read_bytes()
            f.write_bytes(good.replace(b'"nodes_changed":', b'"nodes_changed":1'))
            _, c, _ = await call(s, "docforge_get_generation_diff")
            assert c["result"]["receipt_state"] == "unverified"
            f.write_bytes(good)
            _, c, _ = await call(s, "docforge_get_generation_diff")
            assert c["result"]["receipt_state"] == "current", "restored in place: the same file"
            # A byte-identical copy put in its place is another file (another inode).
            copy = f.with_name("copy.json")
            copy.write_bytes(good)
            os.replace(copy, f)
            _, c, _ = await call(s, "docforge_get_generation_diff")
            assert c["result"]["receipt_state"] == "unverified", c
            other = shop.parent / "elsewhere.json"
            other.write_bytes(good)
            f.unlink()
            f.symlink_to(other)
            _, c, _ = await call(s, "docforge_get_generation_diff")
            assert c["result"]["receipt_state"] == "unsafe"
            assert f.is_symlink(), "not repaired"
    run(go())


def test_a_long_first_sync_reports_progress_to_a_client_that_asks(tmp_path):
    root = tmp_path / "big"
    (root / "p").mkdir(parents=True)
    (root / "go.mod").write_text("module example.com/big\n\ngo 1.21\n")
    for i in range(3000):
        (root / "p" / f"f{i}.go").write_text(
            f"package p\n\n// F{i} does things.\nfunc F{i}(x int) int {{\n\tif x > {i} {{\n\t\treturn F{max(i - 1, 0)}(x - 1)\n\t}}\n\treturn x\n}}\n")
    seen = []

    async def on_progress(progress, total, message):
        seen.append((progress, total, message))

    async def go():
        async with session(root) as s:
            res = await s.call_tool("docforge_bootstrap", {}, progress_callback=on_progress)
            assert not res.isError, res.structuredContent
            assert res.structuredContent["result"]["index"]["summary"]["go_files"] == 3000
    run(go())
    assert seen, "at least one progress notification during the first analysis"
    assert all(t and 0 <= p <= t for p, t, _ in seen)
    assert [p for p, _, _ in seen] == sorted(p for p, _, _ in seen), "progress only increases"


def test_a_generation_published_by_another_process_is_noticed(shop):
    import os
    import subprocess
    from conftest import BIN

    async def go():
        async with session(shop) as s:
            _, c, _ = await call(s, "docforge_bootstrap")
            assert c["result"]["index"]["precision"] == "precise"
            # Another process publishes a new generation into the same index (a file's
            # modification time moved; its content did not).
            notes = shop / "docs" / "notes.md"
            st = notes.stat()
            os.utime(notes, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
            out = subprocess.run([str(BIN), "--project-root", str(shop), "index", "--json"],
                                 capture_output=True, check=True)
            other = json.loads(out.stdout)
            assert other["generation"] > c["revision"]
            _, c2, _ = await call(s, "docforge_project_info")
            assert c2["staleness"] == "rebuilt", "the other generation is not silently served as ours"
            # It reads the generation now in the file (the same sources: nothing new to write).
            assert c2["revision"] >= other["generation"] > c["revision"]
            assert c2["result"]["index"]["precision"] == "precise"
    run(go())


def test_filter_pages_cover_the_collection_once_in_order(shop):
    async def go():
        async with session(shop) as s:
            err, whole, _ = await call(s, "docforge_filter_nodes", {"kind": "func"})
            assert not err and whole["result"]["truncated"] is False
            ids, cursor = [], None
            while True:
                args = {"kind": "func", "limit": 2}
                if cursor:
                    args["cursor"] = cursor
                err, c, _ = await call(s, "docforge_filter_nodes", args)
                assert not err, c
                ids += [i["id"] for i in c["result"]["items"]]
                cursor = c["result"]["next_cursor"]
                if not cursor:
                    break
            assert ids == [i["id"] for i in whole["result"]["items"]] and len(ids) > 2
            err, c, _ = await call(s, "docforge_filter_nodes", {"kind": "type", "limit": 2, "cursor": c["result"]["next_cursor"] or "x"})
            assert err and c["error"]["code"] == "invalid_cursor"
    run(go())


def test_every_bounded_argument_says_its_bounds_and_unregistered_contract_tools_answer_why(shop):
    async def go():
        async with session(shop) as s:
            depths = 0
            for t in (await s.list_tools()).tools:
                limit = t.inputSchema.get("properties", {}).get("limit")
                if limit is not None:
                    assert limit.get("minimum") == 1, (t.name, limit)
                depth = t.inputSchema.get("properties", {}).get("depth")
                if depth is not None:
                    depths += 1
                    assert (depth.get("minimum"), depth.get("maximum")) == (1, 5), (t.name, depth)
                    for d, ok in [(0, False), (1, True), (5, True), (6, False)]:
                        err, c, _ = await call(s, t.name, {"node_id": "arch.storage", "depth": d})
                        assert err != ok and (ok or c["error"]["code"] == "invalid_arguments"), (t.name, d, c)
            assert depths == 2, "dependencies and impact"
            tools = {t.name: t for t in (await s.list_tools()).tools}
            budget = tools["docforge_get_task_context"].inputSchema["properties"]["budget"]
            assert (budget.get("minimum"), budget.get("maximum")) == (1, 200000), budget
            for b, ok in [(0, False), (1, True), (200000, True), (200001, False)]:
                args = {"task": "change", "description": "order storage", "budget": b}
                err, c, _ = await call(s, "docforge_get_task_context", args)
                assert err != ok and (ok or c["error"]["code"] == "invalid_arguments"), (b, c)
            # A tool of the contract this server does not register: a structured refusal.
            err, c, _ = await call(s, "docforge_visualize", {})
            assert err and c["error"]["code"] == "tool_not_registered", c
            assert "graph browser" in c["error"]["message"]
            for key in ENVELOPE:
                assert key in c, key
            err, c, _ = await call(s, "docforge_apply_changeset", {"changeset_id": "x", "changeset_sha256": "y"})
            assert err and c["error"]["code"] == "tool_not_registered" and "--canonical-applier" in c["error"]["message"]
            # Any other name stays a protocol error.
            with pytest.raises(Exception):
                await s.call_tool("docforge_no_such_tool", {})
        async with session(shop, "--capability-mode", "read") as s:
            err, c, _ = await call(s, "docforge_register_changes", {"title": "t", "operations": []})
            assert err and c["error"]["code"] == "tool_not_registered" and "read" in c["error"]["message"]
    run(go())


def test_task_context_names_each_relationship_reason_once(shop):
    async def go():
        async with session(shop) as s:
            # Several focus nodes whose traversals meet: a node reached twice the same way.
            for description in ["storage interfaces repository", "order service hooks", "receivers decision"]:
                args = {"task": "change", "description": description}
                err, c, _ = await call(s, "docforge_get_task_context", args)
                assert not err, c
                for i in c["result"]["items"]:
                    if i.get("type") != "evidence":
                        continue
                    reasons = [json.dumps(r, sort_keys=True) for r in i["relationship_reasons"]]
                    assert len(reasons) == len(set(reasons)), (description, i["id"], i["relationship_reasons"])
    run(go())


def test_get_node_serves_a_documents_whole_source_in_pages(shop):
    big = shop / "docs" / "big.md"
    body = "".join(f"Paragraph {i}: é lorem ipsum dolor sit amet, the last word is here-{i}.\n\n" for i in range(4000))
    big.write_text("+++\nid = \"big\"\n+++\n# Big\n\n" + body + "## Tail\n\nThe very last word.\n")

    async def go():
        async with session(shop) as s:
            parts, offset = [], 0
            while True:
                args = {"node_id": "big", **({"source_offset": offset} if offset else {})}
                err, c, _ = await call(s, "docforge_get_node", args)
                assert not err, c
                r = c["result"]
                src = r["source"]
                assert src["offset"] == offset and src["bytes"] == len(big.read_bytes())
                parts.append(src["text"])
                if not src["truncated"]:
                    assert src["next_offset"] is None
                    break
                offset = src["next_offset"]
            assert len(parts) > 1, "a 300 KB document takes several pages"
            assert "".join(parts) == big.read_text(), "the pages are the document, whole"
            # A section's own bytes, and a bounded page on request.
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "big#tail"})
            assert c["result"]["source"]["text"] == "## Tail\n\nThe very last word.\n"
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "big", "source_limit": 10})
            assert c["result"]["source"]["text"] == "+++\nid = \"" and c["result"]["source"]["next_offset"] == 10
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "big", "source_offset": 10**9})
            assert err and c["error"]["code"] == "invalid_arguments"
            # A Go symbol has no source span: no `source`.
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "go:example.com/shop/service::New"})
            assert "source" not in c["result"]
    run(go())


def test_text_is_whole_in_pages_searchable_to_the_last_word_and_cut_entries_say_so(shop):
    big = shop / "docs" / "big.md"
    body = "".join(f"Paragraph {i}: é lorem ipsum dolor sit amet.\n\n" for i in range(4000))
    code = "```go\nfunc wireUpQuux() {}\n```\n\n"
    big.write_text("+++\nid = \"big\"\n+++\n# Big\n\n" + body + code + "## Tail\n\nThe very last word is zanzibar.\n")

    async def go():
        async with session(shop) as s:
            # The node's whole text, in pages that fit the response.
            parts, offset = [], 0
            while True:
                args = {"node_id": "big", **({"text_offset": offset} if offset else {})}
                err, c, _ = await call(s, "docforge_get_node", args)
                assert not err, c
                node = c["result"]["node"]
                assert node["text_offset"] == offset
                parts.append(node["text"])
                # Truncated while more follows, as `source.truncated`: a reader that reads on
                # while it is true stops at the last page.
                assert node["text_truncated"] is (node["text_next_offset"] is not None), node
                if not node["text_truncated"]:
                    break
                offset = node["text_next_offset"]
            text = "".join(parts)
            assert len(parts) > 1 and len(text.encode()) == node["text_bytes"]
            assert "Paragraph 3999: é lorem" in text and "func wireUpQuux() {}" in text
            assert text.endswith("Tail\nThe very last word is zanzibar.")
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "big", "text_offset": 1, "text_limit": 5})
            assert c["result"]["node"]["text"] == "ig\nPa" and c["result"]["node"]["text_truncated"] is True
            # Search reaches the last word and a code block's.
            for query, want in [("zanzibar", "big#tail"), ("wireUpQuux", "big"), ("Paragraph 3999", "big")]:
                err, c, _ = await call(s, "docforge_search", {"query": query})
                assert not err and want in [i["id"] for i in c["result"]["items"]], (query, c)
                # Each hit says where: words of its text around the query's, on one line.
                item = next(i for i in c["result"]["items"] if i["id"] == want)
                snippet = item["snippet"]
                assert query.split()[-1] in snippet and "\n" not in snippet, (query, snippet)
                assert len(snippet.encode()) <= 300 + len("…".encode()), snippet
            # A Go symbol's doc comment is its text, searchable.
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "go:example.com/shop/service::New"})
            assert c["result"]["node"]["text"].endswith("\n\nNew returns a service backed by repo."), c
            err, c, _ = await call(s, "docforge_search", {"query": "service backed by repo"})
            assert c["result"]["items"][0]["id"] == "go:example.com/shop/service::New", c
            # A context entry that is cut says so and how to read the rest.
            err, c, _ = await call(s, "docforge_get_context", {"node_id": "big"})
            focus = c["result"]["items"][0]
            assert focus["id"] == "big" and focus["text_truncated"] is True
            assert focus["text_bytes"] == len(text.encode())
            rest = focus["read_rest"]
            assert rest["tool"] == "docforge_get_node"
            err, c, _ = await call(s, rest["tool"], rest["arguments"])
            assert not err and focus["text"] + c["result"]["node"]["text"] == text[: len(focus["text"]) + len(c["result"]["node"]["text"])]
    run(go())


def test_a_small_response_limit_gives_smaller_pages_not_failures(shop):
    cfg = shop / "docforge.toml"
    cfg.write_text(cfg.read_text() + "\n[limits]\nmax_response_bytes = 4096\n")

    async def go():
        async with session(shop) as s:
            # Pages of filter and search cover the collection once, whatever the limit.
            for tool, args in [("docforge_filter_nodes", {"kind": "section"}), ("docforge_search", {"query": "storage"})]:
                seen, cursor = [], None
                while True:
                    err, c, _ = await call(s, tool, {**args, **({"cursor": cursor} if cursor else {})})
                    assert not err, (tool, c.get("error"))
                    assert c["result"]["returned"] >= 1
                    seen += [i["id"] for i in c["result"]["items"]]
                    cursor = c["result"]["next_cursor"]
                    if not cursor:
                        break
                assert len(seen) == len(set(seen)) and len(seen) > 3, (tool, seen)
            # A context entry of a few hundred bytes travels; it is not an omission.
            err, c, _ = await call(s, "docforge_get_context", {"node_id": "arch.storage#interfaces"})
            assert not err, c.get("error")
            first = c["result"]["items"][0]
            assert first["type"] == "entry" and first["id"] == "arch.storage#interfaces", first
            # bootstrap and the contract leave out their largest parts, and say which.
            for tool in ["docforge_bootstrap", "docforge_get_contract"]:
                err, c, _ = await call(s, tool)
                assert not err, (tool, c.get("error"))
                assert c["result"]["compact"] is True and c["result"]["omitted_fields"], tool
            # get_node trims its edge lists (saying so) rather than failing.
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "arch.storage"})
            assert not err, c.get("error")
            assert "source" in c["result"]
    run(go())


def test_an_answer_too_large_for_any_page_names_the_limit_that_holds_it(shop):
    """Near the 1,024-byte minimum some answers cannot fit at all. Their remediation is the one
    that works: a smaller page when the page that did not fit held more than one item, else
    the `max_response_bytes` that holds the answer; set, it does."""
    import re

    cfg = shop / "docforge.toml"
    base = cfg.read_text()
    cfg.write_text(base + "\n[limits]\nmax_response_bytes = 2000\n")
    calls = [
        ("docforge_get_node", {"node_id": "arch.storage"}),
        ("docforge_project_info", {}),
        # These pack their pages to the limit: a page too large holds one item already.
        ("docforge_search", {"query": "storage"}),
        ("docforge_filter_nodes", {"kind": "section", "limit": 5}),
        ("docforge_get_task_context", {"task": "change", "description": "order storage"}),
    ]

    async def first():
        needs = []
        async with session(shop) as s:
            # A page of several items that does not fit: a smaller page first.
            err, c, _ = await call(s, "docforge_dependencies", {"node_id": "go:example.com/shop/service", "limit": 5})
            assert err and c["error"]["code"] == "result_too_large", c
            assert c["error"]["remediation"] == "request a smaller limit or page with the cursor", c["error"]
            err, c, _ = await call(s, "docforge_dependencies", {"node_id": "go:example.com/shop/service", "limit": 1})
            assert not err and c["result"]["returned"] == 1, c
            for tool, args in calls:
                err, c, _ = await call(s, tool, args)
                assert err and c["error"]["code"] == "result_too_large", (tool, c)
                m = re.fullmatch(r"raise \[limits\] max_response_bytes in docforge.toml to at least (\d+)",
                                 c["error"]["remediation"])
                assert m, (tool, c["error"])
                needs.append(int(m.group(1)))
        return needs

    needs = run(first())
    for (tool, args), need in zip(calls, needs):
        cfg.write_text(base + f"\n[limits]\nmax_response_bytes = {need}\n")

        async def again():
            async with session(shop) as s:
                err, c, _ = await call(s, tool, args)
                assert not err, (tool, need, c.get("error"))
        run(again())


def test_malformed_json_rpc_gets_the_specified_error_codes_and_the_session_goes_on(shop):
    """Below any SDK: raw lines on stdin. A line that is not JSON is -32700, a message that is
    not an object -32600, a tools/call whose `arguments` is not an object -32602 (with its
    id); the session answers what follows as before."""
    import subprocess
    from conftest import BIN

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
    lines = [
        json.dumps(init),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "{this is not json",
        "[1, 2, 3]",
        "{}",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "docforge_search", "arguments": "query=x"}}),
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "docforge_search", "arguments": ["x"]}}),
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                    "params": {"name": "docforge_search", "arguments": {"query": "order"}}}),
    ]
    raw = [l.encode() for l in lines[:5]]
    raw.append(b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"x": "caf\xe9"}}')  # not UTF-8
    raw.append("\ufeff".encode() + json.dumps({"jsonrpc": "2.0", "id": 10, "method": "ping"}).encode())  # a BOM
    raw += [l.encode() for l in lines[5:]]
    p = subprocess.run([str(BIN), "--project-root", str(shop), "mcp"],
                       input=b"\n".join(raw) + b"\n", capture_output=True, timeout=120)
    replies = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    errors = [(r.get("id"), r["error"]["code"]) for r in replies if "error" in r]
    assert errors == [(None, -32700), (None, -32600), (None, -32600), (None, -32700), (2, -32602), (3, -32602)], replies
    assert all("id" in r for r in replies), "an error whose id cannot be told still has `id: null`"
    assert any(r.get("id") == 10 and "result" in r for r in replies), "a line with a BOM is served"
    last = [r for r in replies if r.get("id") == 4]
    assert last and last[0]["result"]["structuredContent"]["result"]["items"], replies


def test_sync_sees_an_edit_that_keeps_the_size_and_restores_the_mtime(shop):
    notes = shop / "docs" / "notes.md"
    text = notes.read_text() + "\nThe password is alpha.\n"
    notes.write_text(text)
    # Settled before the server reads it: only the stamp can tell the edit below (a racy
    # file would be caught by its content).
    time.sleep(3.3)

    async def go():
        async with session(shop) as s:
            err, c, _ = await call(s, "docforge_search", {"query": "alpha"})
            assert not err and "docs/notes" in [i["id"] for i in c["result"]["items"]], c
            before = notes.stat()
            notes.write_text(text.replace("alpha.", "omega."))
            os.utime(notes, ns=(before.st_atime_ns, before.st_mtime_ns))
            assert notes.stat().st_mtime_ns == before.st_mtime_ns and notes.stat().st_size == before.st_size
            for tool, args in [("docforge_sync", {}), ("docforge_search", {"query": "omega"})]:
                err, c, _ = await call(s, tool, args)
                assert not err, c
            assert "docs/notes" in [i["id"] for i in c["result"]["items"]], c
    run(go())


def test_an_index_file_overwritten_in_place_is_never_answered_from(shop, tmp_path):
    """Another project's index copied over .docforge/index.sqlite (same inode) while the
    server runs: the next call re-syncs from the sources instead of answering from it."""
    import subprocess
    from conftest import BIN

    other = tmp_path / "other"
    shutil.copytree(shop, other)
    (other / "docs" / "notes.md").write_text("# Notes\n\nforeignword only lives in the other index.\n")
    subprocess.run([str(BIN), "--project-root", str(other), "index"], check=True, capture_output=True)
    foreign = (other / ".docforge" / "index.sqlite").read_bytes()

    async def go():
        async with session(shop) as s:
            err, c, _ = await call(s, "docforge_search", {"query": "foreignword"})
            assert not err and c["result"]["items"] == [], c
            target = shop / ".docforge" / "index.sqlite"
            inode = target.stat().st_ino
            with open(target, "r+b") as f:  # in place: the same inode
                f.write(foreign)
                f.truncate()
            assert target.stat().st_ino == inode
            err, c, _ = await call(s, "docforge_search", {"query": "foreignword"})
            assert not err, c
            assert c["staleness"] == "rebuilt", c
            assert c["result"]["items"] == [], "answered from the foreign index"
            err, c, _ = await call(s, "docforge_search", {"query": "Repository"})
            assert not err and c["staleness"] == "current" and c["result"]["items"], c
    run(go())
