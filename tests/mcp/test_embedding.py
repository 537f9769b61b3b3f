"""A Rust program embedding the server (crates/mcp/examples/embed.rs, built by `cargo test`)
through the official Python SDK: its own context provider for docforge_get_context (then the
server's pagination), task context answered task_context_unavailable without synchronising,
its own applier bound by the project's declaration, and the read surface alone."""

import contextlib
from pathlib import Path

from conftest import BIN, call, run
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

EMBED = Path(BIN).parent / "examples" / "embed"
DECLARED = '\n[application]\napplier = "markdown-toml-no-deletes@1"\nwriter = "docs-applier"\ncontent_roots = ["docs"]\n'


@contextlib.asynccontextmanager
async def embedded(root, *flags):
    params = StdioServerParameters(command=str(EMBED), args=["--project-root", str(root), *flags])
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            yield s


def test_the_embedding_program_serves_its_provider_and_its_applier(shop):
    cfg = shop / "docforge.toml"
    cfg.write_text(cfg.read_text() + DECLARED)

    async def go():
        async with embedded(shop, "--proposal-writer", "agent-1", "--canonical-applier", "docs-applier") as s:
            err, c, _ = await call(s, "docforge_get_context", {"node_id": "arch.service", "limit": 2})
            assert not err, c
            items = c["result"]["items"]
            assert [i["id"] for i in items] == ["arch.service", "arch.service#hooks"]
            assert items[1]["via"] == "section"
            nxt = c["result"]["page"]["next_cursor"]
            err, c, _ = await call(s, "docforge_get_context", {"node_id": "arch.service", "limit": 2, "cursor": nxt})
            assert [i["id"] for i in c["result"]["items"]] == ["arch.service#order-service", "arch.service#placing-orders"]
            err, c, _ = await call(s, "docforge_get_task_context", {"task": "change", "description": "hooks"})
            assert err and c["error"]["code"] == "task_context_unavailable"
            assert c["revision"] is None, "answered without synchronising"
            r = (await call(s, "docforge_get_contract"))[1]["result"]
            assert r["capabilities"]["application_access"]["serializer"] == "markdown-toml-no-deletes@1"
            cs = (await call(s, "docforge_register_changes", {"title": "drop", "operations": [
                {"op": "relationship_update", "node_id": "decision.pointer-receivers", "remove": [{"relation": "supersedes", "target": "decision.value-receivers"}]},
                {"op": "node_delete", "node_id": "decision.value-receivers"},
            ]}))[1]["result"]
            assert cs["status"] == "ready", cs
            err, c, _ = await call(s, "docforge_apply_changeset", {"changeset_id": cs["changeset_id"], "changeset_sha256": cs["changeset_sha256"]})
            assert err and c["error"]["code"] == "path_not_allowed" and "never deletes" in c["error"]["message"]
            assert (shop / "docs" / "decisions" / "value-receivers.md").exists()
        async with embedded(shop, "--read-only") as s:
            names = [t.name for t in (await s.list_tools()).tools]
            assert "docforge_get_context" in names and not any("changeset" in n for n in names)
    run(go())


def test_a_provider_omission_without_an_id_is_served_with_id_null(shop):
    """The provider contract asks only a `reason` of an omission; the answer still meets the
    tool's outputSchema, which the SDK checks (`id: null`)."""
    cfg = shop / "docforge.toml"
    cfg.write_text(cfg.read_text().replace("[sources]", "[limits]\nmax_results = 2\n\n[sources]", 1))

    async def go():
        async with embedded(shop) as s:
            items, cursor = [], None
            while True:
                args = {"node_id": "arch.service", **({"cursor": cursor} if cursor else {})}
                err, c, _ = await call(s, "docforge_get_context", args)
                assert not err, c
                items += c["result"]["items"]
                cursor = c["result"]["page"]["next_cursor"]
                if not cursor:
                    break
            omissions = [i for i in items if i["type"] == "omission"]
            assert omissions and omissions[-1] == {"type": "omission", "id": None, "reason": "result_limit"}, items
    run(go())
