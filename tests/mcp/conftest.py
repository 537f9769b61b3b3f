"""Shared helpers: a fresh copy of fixtures/shop per test and an MCP session over stdio
with the official Python SDK (the `mcp>=1.28,<2` line the contract names)."""

import asyncio
import contextlib
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("DOCFORGE_BIN", REPO / "target" / "debug" / "docforge"))

# The read tools of the MCP surface (docs/mcp.md).
CONTRACT_READ_TOOLS = [
    "docforge_bootstrap",
    "docforge_sync",
    "docforge_project_info",
    "docforge_get_contract",
    "docforge_get_node",
    "docforge_get_logic",
    "docforge_search",
    "docforge_filter_nodes",
    "docforge_backlinks",
    "docforge_dependencies",
    "docforge_impact",
    "docforge_get_context",
    "docforge_get_task_context",
    "docforge_validate_project",
    "docforge_render_status",
    "docforge_visualize",
    "docforge_stop_visualization",
    "docforge_visualization_status",
    "docforge_get_generation_diff",
]


@pytest.fixture
def shop(tmp_path):
    dst = tmp_path / "shop"
    shutil.copytree(REPO / "fixtures" / "shop", dst, ignore=shutil.ignore_patterns(".docforge", ".gograph"))
    return dst


def tree_state(root: Path, skip=(".docforge",)):
    """Path -> SHA-256 of every file outside the skipped top-level directories."""
    state = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if rel.parts and rel.parts[0] in skip:
            continue
        if p.is_file():
            state[str(rel)] = hashlib.sha256(p.read_bytes()).hexdigest()
        else:
            state[str(rel)] = "dir"
    return state


@contextlib.asynccontextmanager
async def session(root: Path, *flags: str):
    params = StdioServerParameters(command=str(BIN), args=["--project-root", str(root), "mcp", *flags])
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            init = await s.initialize()
            s.init_result = init
            yield s


async def call(s, name, args=None):
    res = await s.call_tool(name, args or {})
    return bool(res.isError), res.structuredContent, res


def run(coro):
    return asyncio.run(coro)


def start_raw(root: Path, *flags: str):
    """Start the binary directly (no client) to check startup refusals."""
    return subprocess.run(
        [str(BIN), "--project-root", str(root), "mcp", *flags],
        input=b"",
        capture_output=True,
        timeout=60,
    )
