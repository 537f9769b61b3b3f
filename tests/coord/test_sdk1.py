"""The official MCP Python SDK, 1.x line (ClientSession, Streamable HTTP, camelCase fields),
against the real coordination server."""

import traceback
from contextlib import asynccontextmanager

import anyio
import httpx
import pytest
from conftest import keyed, workflow
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def session(url, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=60)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, _):
            async with ClientSession(read, write) as s:
                init = await s.initialize()
                yield s, init


async def ok(s, tool, args):
    result = await s.call_tool(tool, args)
    assert not result.isError, result
    return result.structuredContent


async def test_initialize_negotiates_and_tools_list_publishes_the_schemas(coord):
    async with session(coord.url) as (s, init):
        assert init.protocolVersion in ("2025-03-26", "2025-06-18", "2025-11-25")
        assert init.serverInfo.name == "docforge-coord"
        assert init.capabilities.tools is not None
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert len(tools) == 18
        claim = tools["claim_work_package"].inputSchema
        assert claim["type"] == "object" and claim["additionalProperties"] is False
        assert set(claim["required"]) == {"project_id", "work_package_id", "idempotency_key"}
        assert tools["register_actor"].inputSchema["properties"]["role"]["enum"] == [
            "PO", "PM", "PA", "ARCHITECT", "LEAD_ENGINEER", "IMPLEMENTER", "REVIEWER"
        ]
        assert tools["sync_since"].inputSchema["properties"]["limit"]["maximum"] == 500
        await s.send_ping()


async def test_a_workflow_with_tokens_from_review_to_baseline(coord):
    tokens = {"SYSTEM": coord.system}
    for actor in ["olivia", "max", "ida", "rita"]:
        tokens[actor] = coord.token("create", "--actor", actor)
    review = None
    for i, (actor, tool, args) in enumerate(workflow()):
        async with session(coord.url, tokens[actor]) as (s, _):
            review = await ok(s, tool, keyed(args, f"step-{i}"))
    wp = {"project_id": "shop", "work_package_id": "WP-001"}
    async with session(coord.url, tokens["rita"]) as (s, _):
        pending = await ok(s, "list_pending_actions", {"project_id": "shop"})
        assert [r["review_id"] for r in pending["reviews"]] == [review["review_id"]]
        verdict = {"project_id": "shop", "review_id": review["review_id"], "verdict": "APPROVED"}
        await ok(s, "submit_review", keyed(verdict, "approve"))
    async with session(coord.url, tokens["olivia"]) as (s, _):
        gate = await ok(s, "close_gate", keyed({**wp, "gate": "ACCEPT"}, "accept"))
        assert gate["work_package_state"] == "ACCEPTED"
        baseline = {"project_id": "shop", "baseline_id": "v1.0", "title": "First", "work_package_ids": ["WP-001"]}
        await ok(s, "baseline_release", keyed(baseline, "release"))
        log = await ok(s, "sync_since", {"project_id": "shop", "cursor": 0, "limit": 500})
        types = [e["event_type"] for e in log["events"]]
        assert types[-4:] == ["review.requested", "review.submitted", "gate.closed", "baseline.released"]
        cursors = [e["cursor"] for e in log["events"]]
        assert cursors == sorted(cursors) and len(set(cursors)) == len(cursors)
        project = await ok(s, "get_project", {"project_id": "shop"})
        assert {(m["actor_id"], m["role"]) for m in project["roster"]} == {
            ("olivia", "PO"), ("max", "PM"), ("ida", "IMPLEMENTER"), ("rita", "REVIEWER")
        }


async def test_domain_failures_are_tool_results_with_is_error(coord):
    async with session(coord.url, coord.system) as (s, _):
        await ok(s, "create_project", {"project_id": "shop", "name": "Shop", "idempotency_key": "c"})
        # SYSTEM is no member: a domain failure, not a protocol error.
        result = await s.call_tool("get_project", {"project_id": "shop"})
        assert result.isError is True
        assert result.structuredContent["error"]["code"] == "forbidden"
        # The same key with other input is a conflict.
        result = await s.call_tool("create_project", {"project_id": "other", "name": "O", "idempotency_key": "c"})
        assert result.isError and result.structuredContent["error"]["code"] == "conflict"


async def test_a_retry_replays_the_original_result(coord):
    async with session(coord.url, coord.system) as (s, _):
        args = {"project_id": "shop", "name": "Shop", "idempotency_key": "once"}
        first = await s.call_tool("create_project", args)
        second = await s.call_tool("create_project", args)
        assert first.model_dump() == second.model_dump()


async def test_tools_call_without_a_token_is_refused_with_401(coord):
    listed = []
    with pytest.raises(BaseException) as refused:
        with anyio.fail_after(60):  # a guard against a hang, not a timing assertion
            async with session(coord.url) as (s, _):
                listed = (await s.list_tools()).tools
                await s.call_tool("get_project", {"project_id": "shop"})
    assert len(listed) == 18, "initialize and tools/list need no token"
    assert "401 Unauthorized" in "".join(traceback.format_exception(refused.value))
