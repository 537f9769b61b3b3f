"""The proposal tools through the official MCP Python SDK, 2.x line (`mcp.Client` over stdio,
snake_case fields), on a copy of fixtures/shop: the surface, a changeset registered,
validated, diffed, previewed and abandoned, and a refusal as a structured tool error."""

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[3]
BIN = Path(os.environ.get("DOCFORGE_BIN", REPO / "target" / "debug" / "docforge"))


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def shop(tmp_path):
    dst = tmp_path / "shop"
    shutil.copytree(REPO / "fixtures" / "shop", dst, ignore=shutil.ignore_patterns(".docforge", ".gograph", "site"))
    return dst


def server(root, *flags):
    return Client(StdioServerParameters(command=str(BIN), args=["--project-root", str(root), "mcp", *flags]))


async def ok(c, tool, args):
    r = await c.call_tool(tool, args)
    assert not r.is_error, r.structured_content
    return r.structured_content["result"]


async def test_register_validate_diff_preview_abandon(shop):
    async with server(shop, "--proposal-writer", "agent-2x") as c:
        names = [t.name for t in (await c.list_tools()).tools]
        assert "docforge_register_changes" in names and "docforge_preview_changeset" in names
        ops = [
            {"op": "node_update", "node_id": "arch.storage#interfaces", "body": "Interfaces, as proposed."},
            {"op": "relationship_update", "node_id": "arch.storage", "add": [{"relation": "depends_on", "target": "glossary"}]},
        ]
        cs = await ok(c, "docforge_register_changes", {"title": "from the 2.x SDK", "operations": ops})
        assert cs["status"] == "ready" and len(cs["changeset_sha256"]) == 64
        v = await ok(c, "docforge_validate_changeset", {"changeset_id": cs["changeset_id"]})
        assert v["status"] == "ready" and v["errors"] == 0
        d = await ok(c, "docforge_get_changeset_diff", {"changeset_id": cs["changeset_id"]})
        diffs = [r["unified_diff"] for r in d["records"] if r["record"] == "change"]
        assert any("+Interfaces, as proposed." in t for t in diffs)
        p = (await ok(c, "docforge_preview_changeset", {"changeset_id": cs["changeset_id"], "view_id": "architecture"}))["preview"]
        assert hashlib.sha256((shop / p["path"]).read_bytes()).hexdigest() == p["sha256"]
        refused = await c.call_tool("docforge_register_changes", {"title": "again", "operations": ops[:1]})
        assert refused.is_error and refused.structured_content["error"]["code"] == "conflict"
        a = await ok(c, "docforge_abandon_changeset", {"changeset_id": cs["changeset_id"], "reason": "tested"})
        assert a["status"] == "abandoned"
