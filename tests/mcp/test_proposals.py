"""The proposal tools through the official Python SDK, on copies of fixtures/shop: the startup
gate, every tool's success path, the refusal codes, two servers racing, stale/rebase, output
limits (compact receipts, preflight, canonical_json_chunk pages) and the promise that nothing
outside the changeset root is ever written."""

import asyncio
import hashlib
import json
import subprocess

import pytest

from conftest import BIN, CONTRACT_READ_TOOLS, call, run, session, start_raw, tree_state

PROPOSAL_TOOLS = [
    "docforge_create_changeset",
    "docforge_register_changes",
    "docforge_list_changesets",
    "docforge_get_changeset",
    "docforge_rebase_changeset",
    "docforge_abandon_changeset",
    "docforge_propose_node_create",
    "docforge_propose_node_update",
    "docforge_propose_node_move",
    "docforge_propose_relationship_update",
    "docforge_propose_node_delete",
    "docforge_validate_changeset",
    "docforge_get_changeset_diff",
    "docforge_preview_changeset",
]
READS = {
    "docforge_list_changesets",
    "docforge_get_changeset",
    "docforge_validate_changeset",
    "docforge_get_changeset_diff",
}
MUTATIONS = set(PROPOSAL_TOOLS) - READS
WRITER = ["--proposal-writer", "agent-1"]

UPDATE_STORAGE = {"op": "node_update", "node_id": "arch.storage", "fields": {"status": "superseded"}}
HOOKS_BODY = {"op": "node_update", "node_id": "arch.service#hooks", "body": "Hooks, rewritten."}


def outside_store(root):
    """Every file but the changeset and preview roots and the SQLite index files."""
    state = tree_state(root, skip=())
    return {
        k: v
        for k, v in state.items()
        if not k.startswith((".docforge/changesets", ".docforge/previews", ".docforge/index"))
    }


def result(c):
    assert "error" not in c, c.get("error")
    return c["result"]


def error(c):
    assert "error" in c, c.get("result")
    return c["error"]


def test_the_default_server_registers_the_proposal_surface_and_read_mode_does_not(shop):
    async def go():
        async with session(shop) as s:
            tools = (await s.list_tools()).tools
            listed = [t.name for t in tools]
            r = result((await call(s, "docforge_get_contract"))[1])
            assert listed == r["registered_tools"]
            unregistered = [t["name"] for t in r["not_registered"]]
            assert sorted(listed + unregistered) == sorted(CONTRACT_READ_TOOLS + PROPOSAL_TOOLS + ["docforge_apply_changeset"])
            assert "docforge_preview_changeset" in listed
            for t in tools:
                assert t.annotations.readOnlyHint is (t.name not in MUTATIONS), t.name
                assert t.annotations.destructiveHint is False
            assert r["effective_policy"]["capability_mode"] == "proposal"
            access = r["capabilities"]["proposal_access"]
            assert access["enabled"] is False and "proposal_access_disabled" in access["reason"]
            assert r["session_contract"]["proposal_tools"] == [n for n in PROPOSAL_TOOLS if n in listed]
            assert not any("register" in w for w in r["session_contract"]["workflow"])
            codes = {e["code"] for e in r["error_codes"]}
            assert {"proposal_access_disabled", "conflict", "rebase_conflict", "path_not_allowed"} <= codes
        async with session(shop, "--capability-mode", "read") as s:
            listed = [t.name for t in (await s.list_tools()).tools]
            assert not set(listed) & set(PROPOSAL_TOOLS)
            err, c, _ = await call(s, "docforge_list_changesets", {})
            assert err and c["error"]["code"] == "tool_not_registered"
        async with session(shop, *WRITER) as s:
            r = result((await call(s, "docforge_bootstrap"))[1])
            assert r["capabilities"]["proposal_access"] == {"enabled": True, "writer": "agent-1", "reason": None}
            assert r["session_contract"]["proposal_writer"] == "agent-1"
            assert any("docforge_register_changes" in w for w in r["session_contract"]["workflow"])
            assert "docforge_register_changes" in s.init_result.instructions
    run(go())


def test_startup_gate(shop):
    for flags, code in [
        (["--capability-mode", "read", "--proposal-writer", "w1"], "invalid_arguments"),
        (["--proposal-writer", "has space"], "invalid_arguments"),
        (["--capability-mode", "application"], "canonical_applier_required"),
    ]:
        p = start_raw(shop, *flags)
        assert p.returncode == 1 and code in p.stderr.decode(), (flags, p.stderr)
    assert not (shop / ".docforge").exists(), "a refused start writes nothing"


def test_without_a_writer_mutations_are_refused_and_reads_work(shop):
    async def go():
        async with session(shop, *WRITER) as s:
            cs = result((await call(s, "docforge_register_changes", {"title": "t", "operations": [UPDATE_STORAGE]}))[1])
        async with session(shop) as s:
            for name, args in [
                ("docforge_create_changeset", {"title": "t"}),
                ("docforge_register_changes", {"title": "t", "operations": [HOOKS_BODY]}),
                ("docforge_propose_node_update", {"changeset_id": cs["changeset_id"], "node_id": "glossary", "title": "G"}),
                ("docforge_rebase_changeset", {"changeset_id": cs["changeset_id"]}),
                ("docforge_abandon_changeset", {"changeset_id": cs["changeset_id"], "reason": "x"}),
            ]:
                err, c, _ = await call(s, name, args)
                assert err and error(c)["code"] == "proposal_access_disabled", (name, c)
            for name in ["docforge_get_changeset", "docforge_validate_changeset", "docforge_get_changeset_diff"]:
                err, c, _ = await call(s, name, {"changeset_id": cs["changeset_id"]})
                assert not err, (name, c)
            listed = result((await call(s, "docforge_list_changesets"))[1])
            assert [i["changeset_id"] for i in listed["items"]] == [cs["changeset_id"]]
    run(go())


def test_every_tool_on_one_changeset_writes_nothing_outside_the_store(shop):
    async def go():
        async with session(shop, *WRITER) as s:
            await call(s, "docforge_bootstrap")
            before = outside_store(shop)
            created = result((await call(s, "docforge_create_changeset", {"title": "Step by step", "description": "d"}))[1])
            cid = created["changeset_id"]
            assert created["status"] == "draft" and created["outcome"] == "created"
            node = result((await call(s, "docforge_get_node", {"node_id": "arch.storage"}))[1])["node"]
            steps = [
                ("docforge_propose_node_update", {"node_id": "arch.storage", "expected_content_hash": node["attrs"]["content_sha256"], "title": "Storage layer"}),
                ("docforge_propose_relationship_update", {"node_id": "guide.getting-started", "add": [{"relation": "depends_on", "target": "arch.storage"}]}),
                ("docforge_propose_node_create", {"node_id": "arch.payments", "path": "docs/arch/payments.md", "title": "Payments", "kind": "design", "body": "See [[arch.storage]]."}),
                ("docforge_propose_node_move", {"node_id": "decision.value-receivers", "new_path": "docs/decisions/values.md"}),
                ("docforge_propose_node_delete", {"node_id": "arch.service#hooks"}),
            ]
            for i, (name, args) in enumerate(steps):
                r = result((await call(s, name, {"changeset_id": cid, **args}))[1])
                assert r["operation_index"] == i and r["changeset_id"] == cid, r
            final = r
            got = result((await call(s, "docforge_get_changeset", {"changeset_id": cid}))[1])
            assert got["changeset_sha256"] == final["changeset_sha256"]
            assert [o["op"] for o in got["operations"]] == ["node_update", "relationship_update", "node_create", "node_move", "node_delete"]
            assert all(o.get("expected_content_hash") for o in got["operations"] if o["op"] != "node_create")
            # Pages of one operation each, bound to the changeset hash.
            seen, cursor = [], None
            while True:
                args = {"changeset_id": cid, "limit": 1, **({"cursor": cursor} if cursor else {})}
                page = result((await call(s, "docforge_get_changeset", args))[1])
                seen += [o["index"] for o in page["operations"]]
                cursor = page["next_cursor"]
                if not cursor:
                    break
            assert seen == [0, 1, 2, 3, 4]
            v = result((await call(s, "docforge_validate_changeset", {"changeset_id": cid}))[1])
            # Deleting the Hooks section breaks the wiki link the guide has into it? No: the
            # guide links to its own section; service's section is linked from nowhere.
            assert v["status"] == final["status"], v
            diff = result((await call(s, "docforge_get_changeset_diff", {"changeset_id": cid}))[1])
            assert diff["mode"] == "records"
            changes = [r for r in diff["records"] if r["record"] == "change"]
            assert {c["change"]["path"] for c in changes} >= {"docs/arch/payments.md", "docs/decisions/values.md"}
            assert any("+title" in (c["unified_diff"] or "") or "+# Storage layer" in (c["unified_diff"] or "") for c in changes)
            listed = result((await call(s, "docforge_list_changesets", {"history": True}))[1])
            assert cid in [i["changeset_id"] for i in listed["items"]]
            r = result((await call(s, "docforge_rebase_changeset", {"changeset_id": cid}))[1])
            assert r["outcome"] == "already_current" and r["rebased"] is False
            a = result((await call(s, "docforge_abandon_changeset", {"changeset_id": cid, "reason": "done testing"}))[1])
            assert a["status"] == "abandoned" and a["receipt"]["reason"] == "done testing"
            assert outside_store(shop) == before, "proposal tools wrote outside the changeset root"
    run(go())


def test_refusal_codes(shop):
    async def go():
        async with session(shop, *WRITER) as s:
            first = result((await call(s, "docforge_register_changes", {"title": "first", "operations": [UPDATE_STORAGE]}))[1])
            assert first["status"] == "ready"
            cases = [
                ("docforge_register_changes", {"title": "t", "operations": [{"op": "node_update", "node_id": "arch.storage", "titel": "x"}]}, "invalid_arguments"),
                ("docforge_register_changes", {"title": "t", "operations": []}, "invalid_arguments"),
                ("docforge_register_changes", {"title": "t", "operations": [UPDATE_STORAGE], "extra": 1}, "invalid_arguments"),
                ("docforge_propose_relationship_update", {"changeset_id": first["changeset_id"], "node_id": "arch.storage"}, "invalid_arguments"),
                ("docforge_register_changes", {"title": "t", "operations": [{"op": "node_update", "node_id": "nope", "title": "x"}]}, "node_not_found"),
                ("docforge_register_changes", {"title": "t", "operations": [{"op": "node_create", "node_id": "glossary", "path": "docs/g2.md", "title": "G"}]}, "node_exists"),
                ("docforge_register_changes", {"title": "t", "operations": [{"op": "node_update", "node_id": "glossary", "expected_content_hash": "0" * 64, "title": "G"}]}, "content_hash_mismatch"),
                ("docforge_register_changes", {"title": "t", "operations": [{"op": "node_create", "node_id": "x.y", "path": "../escape.md", "title": "X"}]}, "path_not_allowed"),
                ("docforge_register_changes", {"title": "t", "operations": [{"op": "node_create", "node_id": "x.y", "path": ".docforge/x.md", "title": "X"}]}, "path_not_allowed"),
                ("docforge_register_changes", {"title": "t", "operations": [{"op": "relationship_update", "node_id": "arch.storage", "add": [{"relation": "depends_on", "target": "glossary"}]}]}, "conflict"),
                ("docforge_get_changeset", {"changeset_id": "cs-00000000000000000000"}, "changeset_not_found"),
                ("docforge_register_changes", {"title": "t", "operations": [{"op": "node_update", "node_id": "glossary", "title": "a\nb"}]}, "invalid_arguments"),
                ("docforge_register_changes", {"title": "t", "operations": [{"op": "node_update", "node_id": "glossary", "title": ""}]}, "invalid_arguments"),
                ("docforge_register_changes", {"title": "t", "operations": [{"op": "node_create", "node_id": "x.h", "path": "docs/h.md", "title": "Foo ##"}]}, "invalid_arguments"),
            ]
            for name, args, code in cases:
                err, c, _ = await call(s, name, args)
                assert err and error(c)["code"] == code, (name, args, c)
            # An operation that cannot be read names itself, as every refused operation does.
            for bad in [{"op": "node_rename", "node_id": "glossary"}, {"op": "node_create", "node_id": "x.z", "title": "X"}]:
                ops = [UPDATE_STORAGE, bad]
                err, c, _ = await call(s, "docforge_register_changes", {"title": "t", "operations": ops})
                assert err and error(c)["code"] == "invalid_arguments" and error(c)["details"] == {"operation": 1}, c
            err, c, _ = await call(s, "docforge_register_changes", {"title": "t", "operations": [{"op": "node_update", "node_id": "arch.storage", "title": "x"}]})
            assert error(c)["details"]["conflicting_changeset_id"] == first["changeset_id"]
        async with session(shop, "--proposal-writer", "agent-2") as s:
            err, c, _ = await call(s, "docforge_propose_node_update", {"changeset_id": first["changeset_id"], "node_id": "glossary", "title": "G"})
            assert error(c)["code"] == "changeset_not_owned"
        async with session(shop, *WRITER) as s:
            await call(s, "docforge_abandon_changeset", {"changeset_id": first["changeset_id"], "reason": "r"})
            err, c, _ = await call(s, "docforge_propose_node_update", {"changeset_id": first["changeset_id"], "node_id": "glossary", "title": "G"})
            assert error(c)["code"] == "changeset_closed"
        assert len(list((shop / ".docforge" / "changesets").glob("cs-*"))) == 1, "refusals stored nothing"
    run(go())


def test_a_record_that_cannot_be_read_is_listed_as_such_never_hidden(shop):
    async def go():
        async with session(shop, *WRITER) as s:
            first = result((await call(s, "docforge_register_changes", {"title": "first", "operations": [UPDATE_STORAGE]}))[1])
            bad = shop / ".docforge" / "changesets" / "cs-99999999999999999999"
            bad.mkdir()
            (bad / "changeset.json").write_text("{ not json")
            r = result((await call(s, "docforge_list_changesets", {"history": True}))[1])
            assert [i["changeset_id"] for i in r["items"]] == [first["changeset_id"]]
            assert [u["changeset_id"] for u in r["unreadable"]] == ["cs-99999999999999999999"], r
            assert r["unreadable"][0]["message"]
    run(go())
    out = subprocess.run([str(BIN), "--project-root", str(shop), "changeset", "list", "--json"], capture_output=True)
    doc = json.loads(out.stdout)
    assert [u["changeset_id"] for u in doc["unreadable"]] == ["cs-99999999999999999999"], doc
    assert b"cs-99999999999999999999 cannot be read" in out.stderr


def test_a_canonical_edit_makes_a_changeset_stale_rebase_moves_it_then_refuses_to_merge_prose(shop):
    service = shop / "docs" / "arch" / "service.md"

    async def go():
        async with session(shop, *WRITER) as s:
            cs = result((await call(s, "docforge_register_changes", {"title": "hooks", "operations": [HOOKS_BODY]}))[1])
            service.write_text(service.read_text() + "\nOne more line.\n")
            got = result((await call(s, "docforge_get_changeset", {"changeset_id": cs["changeset_id"]}))[1])
            assert got["status"] == "stale" and got["stale_sources"] == ["docs/arch/service.md"]
            err, c, _ = await call(s, "docforge_propose_node_update", {"changeset_id": cs["changeset_id"], "node_id": "glossary", "title": "G"})
            assert error(c)["code"] == "changeset_stale"
            r = result((await call(s, "docforge_rebase_changeset", {"changeset_id": cs["changeset_id"]}))[1])
            assert r["rebased"] is True and r["status"] == "ready"
            assert r["previous_changeset_sha256"] == cs["changeset_sha256"] != r["changeset_sha256"]
            service.write_text(service.read_text().replace("Hooks are plain", "Hooks are simple"))
            err, c, _ = await call(s, "docforge_rebase_changeset", {"changeset_id": cs["changeset_id"]})
            assert error(c)["code"] == "rebase_conflict" and error(c)["details"]["node_id"] == "arch.service#hooks"
    run(go())


def test_two_servers_racing_on_one_node_one_wins_one_gets_conflict(shop):
    async def register(i):
        async with session(shop, "--proposal-writer", f"racer-{i}") as s:
            await call(s, "docforge_bootstrap")
            return (await call(s, "docforge_register_changes", {"title": f"racer {i}", "operations": [{"op": "node_update", "node_id": "glossary", "title": f"T{i}"}]}))[1]

    async def go():
        # Build the index once so both servers start from the same published generation.
        async with session(shop) as s:
            await call(s, "docforge_bootstrap")
        return await asyncio.gather(register(1), register(2))

    outcomes = run(go())
    codes = sorted("ok" if "result" in c else c["error"]["code"] for c in outcomes)
    assert codes == ["conflict", "ok"], outcomes
    stored = list((shop / ".docforge" / "changesets").glob("cs-*/changeset.json"))
    assert len(stored) == 1
    record = json.loads(stored[0].read_text())
    assert record["changeset_sha256"] in [c["result"]["changeset_sha256"] for c in outcomes if "result" in c]


def limit_responses(root, n):
    cfg = root / "docforge.toml"
    cfg.write_text(cfg.read_text() + f"\n[limits]\nmax_response_bytes = {n}\n")


def test_a_result_that_does_not_fit_is_a_compact_receipt_and_an_impossible_one_is_refused_first(shop):
    limit_responses(shop, 4096)

    async def go():
        async with session(shop, *WRITER) as s:
            ops = [{"op": "node_create", "node_id": f"n.{i}", "path": f"docs/n{i}.md", "title": f"N{i}"} for i in range(8)]
            err, c, _ = await call(s, "docforge_register_changes", {"title": "many", "operations": ops})
            r = result(c)
            assert r["compact"] is True and r["receipt_version"] == 1 and r["outcome"] == "registered"
            assert r["operations"] == 8 and r["changes"] == 8 and r["status"] == "ready"
            stored = json.loads((shop / ".docforge" / "changesets" / r["changeset_id"] / "changeset.json").read_text())
            assert stored["changeset_sha256"] == r["changeset_sha256"]
            # A long reason is kept in the receipt file, not in the answer: still a success.
            err, c, _ = await call(s, "docforge_abandon_changeset", {"changeset_id": r["changeset_id"], "reason": "why " * 750})
            a = result(c)
            assert a["compact"] is True and a["outcome"] == "abandoned" and a["status"] == "abandoned"
            receipt = json.loads((shop / a["receipt_path"]).read_text())
            assert receipt["reason"] == "why " * 750
            # A header too large for the limit is cut, and says so, rather than failing.
            got = result((await call(s, "docforge_get_changeset", {"changeset_id": r["changeset_id"], "limit": 1}))[1])
            assert got["changeset_sha256"] == r["changeset_sha256"] and got["returned"] == 1
    run(go())

    tiny = shop.parent / "tiny"
    subprocess.run(["cp", "-r", str(shop), str(tiny)], check=True)
    subprocess.run(["rm", "-rf", str(tiny / ".docforge" / "changesets")], check=True)
    cfg = tiny / "docforge.toml"
    cfg.write_text(cfg.read_text().replace("max_response_bytes = 4096", "max_response_bytes = 1024"))

    async def refused():
        async with session(tiny, *WRITER) as s:
            err, c, _ = await call(s, "docforge_register_changes", {"title": "t", "operations": [HOOKS_BODY]})
            e = error(c)
            assert e["code"] == "result_too_large" and e["details"] == {"stage": "preflight", "mutation_committed": False}
            return int(e["remediation"].rsplit(" ", 1)[1])
    need = run(refused())
    assert not list((tiny / ".docforge").glob("changesets/cs-*")), "a preflight refusal wrote nothing"

    # The remediation names the limit that holds the receipt; set, the registration goes through.
    cfg.write_text(cfg.read_text().replace("max_response_bytes = 1024", f"max_response_bytes = {need}"))

    async def registered():
        async with session(tiny, *WRITER) as s:
            err, c, _ = await call(s, "docforge_register_changes", {"title": "t", "operations": [HOOKS_BODY]})
            assert not err and result(c)["outcome"] == "registered", c
    run(registered())


def test_an_oversized_diff_travels_as_canonical_json_chunks_that_reassemble_exactly(shop):
    # The body travels twice (the operation and the projected file): a changeset of ~3.4 MB.
    body = "\n\n".join(f"Paragraph {i}: " + "é lorem ipsum \"quoted\" \\ slash " * 40 for i in range(1300))
    assert len(body.encode()) > 1_600_000

    async def go():
        async with session(shop, *WRITER) as s:
            op = {"op": "node_create", "node_id": "big.doc", "path": "docs/big.md", "title": "Big", "body": body}
            cs = result((await call(s, "docforge_register_changes", {"title": "big", "operations": [op]}))[1])
            chunks, cursor, pages = [], None, 0
            while True:
                args = {"changeset_id": cs["changeset_id"], **({"cursor": cursor} if cursor else {})}
                page = result((await call(s, "docforge_get_changeset_diff", args))[1])
                assert page["mode"] == "canonical_json_chunk"
                assert page["offset"] == sum(len(c) for c in chunks)
                chunks.append(page["chunk"])
                pages += 1
                cursor = page["next_cursor"]
                if not cursor:
                    assert page["complete"] is True
                    break
            payload = "".join(chunks)
            assert payload.isascii() and pages > 10 and len(payload) > 3_000_000
            assert hashlib.sha256(payload.encode()).hexdigest() == page["payload_sha256"]
            decoded = json.loads(payload)
            stored = json.loads((shop / ".docforge" / "changesets" / cs["changeset_id"] / "changeset.json").read_text())
            assert decoded == {"operations": stored["operations"], "changes": stored["changes"]}
            assert decoded["operations"][0]["body"] == body
            # Inspection pages give an operation too large for a page as a summary.
            got = result((await call(s, "docforge_get_changeset", {"changeset_id": cs["changeset_id"]}))[1])
            summary = got["operations"][0]
            assert summary["summary"] is True and summary["op"] == "node_create" and summary["node_id"] == "big.doc"
            op_text = json.dumps(stored["operations"][0], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            assert summary["chars"] == len(op_text) + len(',"index":0')
            assert len(summary["sha256"]) == 64
    run(go())


def test_no_ast_servers_propose_too(shop):
    async def go():
        async with session(shop, "--no-ast", *WRITER) as s:
            r = result((await call(s, "docforge_register_changes", {"title": "t", "operations": [{"op": "relationship_update", "node_id": "arch.storage", "add": [{"relation": "governs", "target": "go:example.com/shop/storage::Reader"}]}]}))[1])
            # Without Go analysis a go: target cannot be checked: a warning, not an error.
            assert r["status"] == "ready"
            assert [i["code"] for i in r["validation"]["issues"]] == ["unknown_relation_target"]
            assert r["validation"]["issues"][0]["severity"] == "warning"
    run(go())


def test_a_preview_writes_one_html_file_below_the_preview_root_and_nothing_else(shop):
    async def go():
        async with session(shop, *WRITER) as s:
            ops = [
                {"op": "node_update", "node_id": "arch.storage#interfaces", "body": "Interfaces, as proposed."},
                {"op": "node_create", "node_id": "arch.events", "path": "docs/arch/events.md", "title": "Event log", "fields": {"family": "architecture"}},
            ]
            cs = result((await call(s, "docforge_register_changes", {"title": "events", "operations": ops}))[1])
            before = outside_store(shop)
            # No writer is needed to preview.
        async with session(shop) as s:
            r = result((await call(s, "docforge_preview_changeset", {"changeset_id": cs["changeset_id"], "view_id": "architecture"}))[1])
            p = r["preview"]
            assert p["path"] == f".docforge/previews/{cs['changeset_id']}/architecture.html"
            html = (shop / p["path"]).read_text()
            assert hashlib.sha256(html.encode()).hexdigest() == p["sha256"]
            assert "Interfaces, as proposed." in html and "Event log" in html and "<script" not in html
            assert {d["path"]: d["in_view"] for d in p["documents"]} == {"docs/arch/events.md": True, "docs/arch/storage.md": True}
            for view, code in [("nope", "unknown_view"), ("html-page@1", "invalid_arguments"), ("sh -c id", "invalid_arguments")]:
                err, c, _ = await call(s, "docforge_preview_changeset", {"changeset_id": cs["changeset_id"], "view_id": view})
                assert err and error(c)["code"] == code, (view, c)
            # The project's graph does not know the proposed document.
            err, c, _ = await call(s, "docforge_get_node", {"node_id": "arch.events"})
            assert err and error(c)["code"] == "node_not_found"
        assert outside_store(shop) == before
        assert sorted(p.name for p in (shop / ".docforge" / "previews").rglob("*") if p.is_file()) == ["architecture.html"]
    run(go())
