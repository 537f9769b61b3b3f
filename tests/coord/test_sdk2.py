"""The official MCP Python SDK, 2.x line (mcp.Client, streamable_http_client, snake_case
fields), against the real coordination server: it probes `server/discover`, falls back to the
initialize handshake, and runs the same workflow."""

import traceback
from contextlib import asynccontextmanager

import anyio
import httpx2
import pytest
from conftest import keyed, workflow
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def client(url, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http:
        async with Client(streamable_http_client(url, http_client=http)) as c:
            yield c


async def ok(c, tool, args):
    result = await c.call_tool(tool, args)
    assert not result.is_error, result
    return result.structured_content


async def test_connects_and_lists_the_tools_with_schemas(coord):
    async with client(coord.url) as c:
        assert c.protocol_version in ("2025-03-26", "2025-06-18", "2025-11-25")
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert len(tools) == 18
        schema = tools["submit_review"].input_schema
        assert schema["properties"]["verdict"]["enum"] == ["APPROVED", "CHANGES_REQUESTED"]
        assert "idempotency_key" in schema["required"]


async def test_the_workflow_and_a_domain_error(coord):
    tokens = {"SYSTEM": coord.system}
    for actor in ["olivia", "max", "ida", "rita"]:
        tokens[actor] = coord.token("create", "--actor", actor)
    last = None
    for i, (actor, tool, args) in enumerate(workflow()):
        async with client(coord.url, tokens[actor]) as c:
            last = await ok(c, tool, keyed(args, f"step-{i}"))
    async with client(coord.url, tokens["ida"]) as c:
        # The claimant cannot review its own work: a tool result with is_error.
        verdict = {"project_id": "shop", "review_id": last["review_id"], "verdict": "APPROVED"}
        refused = await c.call_tool("submit_review", keyed(verdict, "self-review"))
        assert refused.is_error is True
        assert refused.structured_content["error"]["code"] == "forbidden"
    async with client(coord.url, tokens["rita"]) as c:
        await ok(c, "submit_review", keyed(verdict, "approve"))
        log = await ok(c, "sync_since", {"project_id": "shop"})
        assert log["events"][-1]["event_type"] == "review.submitted"
        assert log["events"][-1]["actor_role"] == "REVIEWER"


async def test_tools_call_without_a_token_is_refused(coord):
    with pytest.raises(BaseException) as refused:
        with anyio.fail_after(60):  # a guard against a hang, not a timing assertion
            async with client(coord.url) as c:
                await c.call_tool("get_project", {"project_id": "shop"})
    # 2.x reads the JSON-RPC error body of the HTTP 401.
    assert "tools/call needs Authorization" in "".join(traceback.format_exception(refused.value))
