"""docforge_apply_changeset through the official Python SDK, on copies of fixtures/shop: the two
gates (the process flag and the project's [application] declaration), an application of a
multi-file changeset, and the refusals. Crashes at every step of the write sequence, the
verification rollback and a degraded refresh are tested through `docforge changeset apply`
(crates/cli/tests/changeset.rs)."""

import json

from conftest import call, run, session, start_raw, tree_state

DECLARED = '\n[application]\napplier = "markdown-toml@1"\nwriter = "docs-applier"\ncontent_roots = ["docs"]\n'
APPLIER = ["--proposal-writer", "agent-1", "--canonical-applier", "docs-applier"]
OPS = [
    {"op": "node_update", "node_id": "arch.storage", "fields": {"status": "superseded"}},
    {"op": "node_create", "node_id": "arch.events", "path": "docs/arch/events.md", "title": "Event log", "fields": {"family": "architecture"}},
    {"op": "node_move", "node_id": "decision.value-receivers", "new_path": "docs/decisions/values.md"},
    {"op": "relationship_update", "node_id": "glossary", "add": [{"relation": "relates_to", "target": "arch.events"}]},
]


def declare(root, text=DECLARED):
    cfg = root / "docforge.toml"
    cfg.write_text(cfg.read_text() + text)


def result(c):
    assert "error" not in c, c.get("error")
    return c["result"]


def test_the_gates(shop):
    # Application mode without a declaration, with another writer, with an unknown applier.
    for text, code in [
        ("", "canonical_applier_required"),
        (DECLARED.replace("docs-applier", "someone"), "applier_mismatch"),
        (DECLARED.replace("markdown-toml@1", "custom@2"), "applier_mismatch"),
    ]:
        root = shop.parent / f"gate-{code}-{len(text)}"
        import shutil
        shutil.copytree(shop, root)
        declare(root, text)
        p = start_raw(root, "--capability-mode", "application", "--canonical-applier", "docs-applier")
        assert p.returncode == 1 and code in p.stderr.decode(), (text, p.stderr)
        assert not (root / ".docforge").exists(), "a refused start writes nothing"

    async def go():
        # Another mode with a mismatching applier: no application tool, and capabilities say why.
        declare(shop, DECLARED.replace("docs-applier", "someone"))
        async with session(shop, *APPLIER) as s:
            names = [t.name for t in (await s.list_tools()).tools]
            assert "docforge_apply_changeset" not in names
            r = result((await call(s, "docforge_get_contract"))[1])
            access = r["capabilities"]["application_access"]
            assert access["enabled"] is False and "applier_mismatch" in access["reason"]
            assert "canonical_application" in r["effective_policy"]["excluded_operations"]
    run(go())


def test_apply_a_multi_file_changeset(shop):
    declare(shop)

    async def go():
        async with session(shop, "--capability-mode", "application", *APPLIER) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert tools["docforge_apply_changeset"].annotations.readOnlyHint is False
            assert tools["docforge_apply_changeset"].annotations.destructiveHint is True, "it overwrites documents"
            assert "docforge_apply_changeset" in s.init_result.instructions
            r = result((await call(s, "docforge_get_contract"))[1])
            assert r["capabilities"]["application_access"]["enabled"] is True
            codes = {e["code"] for e in r["error_codes"]}
            for code in ["changeset_hash_mismatch", "changeset_not_ready", "changeset_already_applied",
                         "proposal_writer_not_allowed", "canonical_applier_required", "applier_mismatch",
                         "application_failed", "application_verification_failed"]:
                assert code in codes, code
            boot = result((await call(s, "docforge_bootstrap"))[1])
            assert boot["session_contract"]["application_tools"] == ["docforge_apply_changeset"]
            assert "canonical_application" not in r["effective_policy"]["excluded_operations"]
            cs = result((await call(s, "docforge_register_changes", {"title": "four files", "operations": OPS}))[1])
            assert cs["status"] == "ready"
            before = tree_state(shop)
            stored = json.loads((shop / ".docforge" / "changesets" / cs["changeset_id"] / "changeset.json").read_text())
            err, c, _ = await call(s, "docforge_apply_changeset", {"changeset_id": cs["changeset_id"], "changeset_sha256": "0" * 64})
            assert err and c["error"]["code"] == "changeset_hash_mismatch"
            assert tree_state(shop) == before
            err, c, _ = await call(s, "docforge_apply_changeset", {"changeset_id": cs["changeset_id"], "changeset_sha256": cs["changeset_sha256"], "extra": 1})
            assert err and c["error"]["code"] == "invalid_arguments"
            a = result((await call(s, "docforge_apply_changeset", {"changeset_id": cs["changeset_id"], "changeset_sha256": cs["changeset_sha256"]}))[1])
            assert a["status"] == "applied" and a["refresh"]["state"] == "ok"
            # Exactly the projected bytes; nothing else in the documents changed.
            after = tree_state(shop)
            for ch in stored["changes"]:
                path = shop / ch["path"]
                if ch["action"] == "delete":
                    assert not path.exists()
                else:
                    assert path.read_text() == ch["after_text"], ch["path"]
            changed = {ch["path"] for ch in stored["changes"]}
            assert {k: v for k, v in after.items() if k not in changed} == {k: v for k, v in before.items() if k not in changed}
            assert (shop / a["receipt_path"]).is_file()
            node = result((await call(s, "docforge_get_node", {"node_id": "arch.events"}))[1])
            assert node["node"]["location"]["path"] == "docs/arch/events.md"
            err, c, _ = await call(s, "docforge_apply_changeset", {"changeset_id": cs["changeset_id"], "changeset_sha256": cs["changeset_sha256"]})
            assert err and c["error"]["code"] == "changeset_already_applied"
            assert c["error"]["details"]["receipt"]["changeset_sha256"] == cs["changeset_sha256"]
            # A draft is refused for what it is, before its hash is looked at.
            draft = result((await call(s, "docforge_register_changes", {"title": "draft", "operations": [
                {"op": "node_create", "node_id": "arch.broken", "path": "docs/arch/broken.md", "title": "B", "body": "See [[arch.nothing]]."}]}))[1])
            assert draft["status"] == "draft"
            err, c, _ = await call(s, "docforge_apply_changeset", {"changeset_id": draft["changeset_id"], "changeset_sha256": "0" * 64})
            assert err and c["error"]["code"] == "changeset_not_ready", c
    run(go())


def test_a_canonical_edit_between_review_and_apply_is_refused(shop):
    declare(shop)
    service = shop / "docs" / "arch" / "service.md"

    async def go():
        async with session(shop, *APPLIER) as s:
            cs = result((await call(s, "docforge_register_changes", {"title": "hooks", "operations": [{"op": "node_update", "node_id": "arch.service#hooks", "body": "New."}]}))[1])
            v = result((await call(s, "docforge_validate_changeset", {"changeset_id": cs["changeset_id"]}))[1])
            assert v["status"] == "ready"
            service.write_text(service.read_text() + "\nEdited meanwhile.\n")
            err, c, _ = await call(s, "docforge_apply_changeset", {"changeset_id": cs["changeset_id"], "changeset_sha256": cs["changeset_sha256"]})
            assert err and c["error"]["code"] == "changeset_stale"
            assert service.read_text().endswith("Edited meanwhile.\n")
    run(go())


def test_a_symlinked_content_directory_is_never_written_through(shop, tmp_path):
    declare(shop)
    outside = tmp_path / "outside"

    async def go():
        async with session(shop, *APPLIER) as s:
            cs = result((await call(s, "docforge_register_changes", {"title": "t", "operations": [{"op": "node_update", "node_id": "arch.storage", "title": "Store"}]}))[1])
            # The directory holding the document becomes a symlink to a copy outside the project.
            import shutil
            shutil.copytree(shop / "docs" / "arch", outside)
            shutil.rmtree(shop / "docs" / "arch")
            (shop / "docs" / "arch").symlink_to(outside)
            before = (outside / "storage.md").read_text()
            err, c, _ = await call(s, "docforge_apply_changeset", {"changeset_id": cs["changeset_id"], "changeset_sha256": cs["changeset_sha256"]})
            assert err, c
            assert (outside / "storage.md").read_text() == before, "nothing was written through the symlink"
    run(go())
