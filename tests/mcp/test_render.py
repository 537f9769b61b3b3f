"""docforge_render_status through the official Python SDK: `docforge render` run as a
subprocess on a copy of fixtures/shop, then every state of its two views (`architecture`,
html-site@1 into site/architecture; `pages`, html-page@1 into site/pages) read over MCP.
Every status call is checked to leave the whole tree, `.docforge/` included, byte-identical."""

import subprocess

import pytest

from conftest import BIN, call, run, session, tree_state

VIEWS = ["architecture", "pages"]
STORAGE_PAGE = "site/architecture/docs/arch/storage.html"
OTHER_SOURCES = (
    "sources outside the view changed since the render "
    "(pages also show backlinks, the selection and symbol places)"
)
RECEIPT_BINDS = "the sources and the outputs are the ones the receipt binds"


def render(root):
    subprocess.run([str(BIN), "--project-root", str(root), "render"], check=True, capture_output=True)


async def status(s, root, args=None):
    """One docforge_render_status call; the tree is the same before and after it."""
    def tree():
        return tree_state(root, skip=())

    before = tree()
    err, c, _ = await call(s, "docforge_render_status", args)
    assert tree() == before, "a status call wrote"
    return err, c


def states(c):
    return {v["view_id"]: (v["state"], v["reason"]) for v in c["result"]["views"]}


@pytest.fixture
def rendered(shop):
    render(shop)
    return shop


def test_before_any_render_every_view_is_unverified_and_nothing_is_written(shop):
    async def go():
        async with session(shop) as s:
            err, c = await status(s, shop)
            assert not err
            never = "no render receipt: the view was never rendered (`docforge render`)"
            assert states(c) == {v: ("unverified", never) for v in VIEWS}
            assert c["staleness"] == "unverified" and c["result"]["deep"] is False
            assert [v["receipt"] for v in c["result"]["views"]] == [None, None]
            assert [v["deep"] for v in c["result"]["views"]] == [None, None]
            assert c["revision"] is None, "a status tool reads no generation"
    run(go())
    assert not (shop / ".docforge").exists() and not (shop / "site").exists()


def test_after_a_render_both_views_are_current(rendered):
    async def go():
        async with session(rendered) as s:
            err, c = await status(s, rendered)
            assert not err and c["staleness"] == "current"
            assert states(c) == {v: ("current", RECEIPT_BINDS) for v in VIEWS}
            views = {v["view_id"]: v for v in c["result"]["views"]}
            assert views["architecture"]["renderer"] == "html-site@1"
            assert views["architecture"]["output"] == "site/architecture"
            assert views["pages"]["renderer"] == "html-page@1" and views["pages"]["output"] == "site/pages"
            # The four architecture documents; the site adds index.html and the stylesheet.
            assert views["architecture"]["receipt"]["documents"] == 4
            assert views["architecture"]["receipt"]["outputs"] == 6
            assert len(views["architecture"]["receipt"]["receipt_hash"]) == 64
    run(go())


def flip_one_byte(path, after):
    data = bytearray(path.read_bytes())
    i = data.index(after) + len(after)
    data[i] = ord("0") if data[i] != ord("0") else ord("1")
    path.write_bytes(bytes(data))


def replace_by_symlink(root, rel):
    elsewhere = root.parent / "elsewhere.html"
    elsewhere.write_bytes((root / rel).read_bytes())
    (root / rel).unlink()
    (root / rel).symlink_to(elsewhere)


def append(root, rel, text):
    with open(root / rel, "a") as f:
        f.write(text)


# (mutation, the envelope's staleness, each view's state and reason)
CASES = {
    "source_of_the_view_edited": (
        lambda r: append(r, "docs/arch/storage.md", "\nOne more sentence.\n"),
        "stale",
        {
            "architecture": ("stale", "docs/arch/storage.md changed since the render"),
            "pages": ("stale", "docs/arch/storage.md changed since the render"),
        },
    ),
    "another_document_edited": (
        lambda r: append(r, "docs/notes.md", "\nOne more note.\n"),
        "stale",
        {
            "architecture": ("stale", OTHER_SOURCES),
            "pages": ("stale", "docs/notes.md changed since the render"),
        },
    ),
    "output_deleted": (
        lambda r: (r / STORAGE_PAGE).unlink(),
        "missing",
        {
            "architecture": ("missing", f"{STORAGE_PAGE} does not exist"),
            "pages": ("current", RECEIPT_BINDS),
        },
    ),
    "output_bytes_changed": (
        lambda r: append(r, STORAGE_PAGE, "<!-- edited by hand -->\n"),
        "stale",
        {
            "architecture": ("stale", f"{STORAGE_PAGE} changed since the render"),
            "pages": ("current", RECEIPT_BINDS),
        },
    ),
    "receipt_corrupted": (
        lambda r: flip_one_byte(r / ".docforge/receipts/render/pages.v1.json", b'"graph_digest":"'),
        "unverified",
        {
            "architecture": ("current", RECEIPT_BINDS),
            "pages": (
                "unverified",
                "the render receipt: the receipt hash does not match its content; "
                "render the view again (`docforge render --view pages`) to write a current one",
            ),
        },
    ),
    "output_replaced_by_a_symlink": (
        lambda r: replace_by_symlink(r, STORAGE_PAGE),
        "unsafe",
        {
            "architecture": ("unsafe", f"{STORAGE_PAGE} is a symlink"),
            "pages": ("current", RECEIPT_BINDS),
        },
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_change_after_a_render_has_its_state(rendered, case):
    mutate, staleness, want = CASES[case]
    mutate(rendered)

    async def go():
        async with session(rendered) as s:
            err, c = await status(s, rendered)
            assert not err
            assert states(c) == want
            assert c["staleness"] == staleness
            for v in c["result"]["views"]:
                assert (v["receipt"] is None) == (v["state"] == "unverified"), v
    run(go())
    if case == "output_replaced_by_a_symlink":
        assert (rendered / STORAGE_PAGE).is_symlink(), "never repaired"


def test_deep_is_equivalent_after_a_render_and_names_a_changed_output(rendered):
    async def go():
        async with session(rendered) as s:
            err, c = await status(s, rendered, {"deep": True})
            assert not err and c["result"]["deep"] is True
            for v in c["result"]["views"]:
                assert v["deep"] == {"equivalent": True, "differing": [], "differing_total": 0, "reason": None}
            # Same size, one byte changed: only hashing sees it.
            flip_one_byte(rendered / STORAGE_PAGE, b"<title>")
            err, c = await status(s, rendered, {"deep": True})
            deep = {v["view_id"]: v["deep"] for v in c["result"]["views"]}
            assert deep["architecture"] == {
                "equivalent": False, "differing": ["docs/arch/storage.html"], "differing_total": 1, "reason": None}
            assert deep["pages"]["equivalent"] is True
    run(go())


def test_deep_status_writes_nothing(rendered):
    """The deep status reads the index without leaving SQLite's side files beside it."""
    async def go():
        async with session(rendered) as s:
            await status(s, rendered, {"deep": True})
    run(go())


def test_view_id_selects_one_view_and_arguments_are_strict(rendered):
    async def go():
        async with session(rendered) as s:
            err, c = await status(s, rendered, {"view_id": "pages"})
            assert not err and [v["view_id"] for v in c["result"]["views"]] == ["pages"]
            err, c = await status(s, rendered, {"view_id": "nope"})
            assert err and c["error"]["code"] == "invalid_arguments"
            assert c["error"]["message"] == (
                'no view "nope" is declared in docforge.toml (declared: ["architecture", "pages"])')
            err, c = await status(s, rendered, {"deep": True, "extra": 1})
            assert err and c["error"]["code"] == "invalid_arguments"
            assert c["error"]["message"] == "invalid arguments: unknown field `extra`, expected `view_id` or `deep`"
            err, c = await status(s, rendered, {"deep": "yes"})
            assert err and c["error"]["code"] == "invalid_arguments"
    run(go())


def test_the_tool_is_listed_with_its_result_schema_and_registered_in_the_contract(shop):
    async def go():
        async with session(shop) as s:
            tool = next(t for t in (await s.list_tools()).tools if t.name == "docforge_render_status")
            assert tool.annotations.readOnlyHint is True
            assert set(tool.inputSchema["properties"]) == {"view_id", "deep"}
            result = tool.outputSchema["properties"]["result"]
            assert set(result["required"]) == {"views", "deep"}
            view = result["properties"]["views"]["items"]
            assert {"view_id", "renderer", "output", "state", "reason"} <= set(view["required"])
            assert {"receipt", "deep"} <= set(view["properties"])
            assert "differing" in view["properties"]["deep"]["properties"]
            _, c, _ = await call(s, "docforge_get_contract")
            assert "docforge_render_status" in c["result"]["registered_tools"]
            assert "docforge_render_status" not in [t["name"] for t in c["result"]["not_registered"]]
    run(go())


def test_a_garbage_index_leaves_the_cheap_status_answering_and_the_deep_one_says_why(rendered):
    (rendered / ".docforge" / "index.sqlite").write_bytes(b"this is not a database\n" * 64)

    async def go():
        async with session(rendered) as s:
            err, c = await status(s, rendered)
            assert not err and states(c) == {v: ("current", RECEIPT_BINDS) for v in VIEWS}
            err, c = await status(s, rendered, {"deep": True, "view_id": "architecture"})
            assert not err and c["result"]["views"][0]["state"] == "current"
            deep = c["result"]["views"][0]["deep"]
            assert deep["equivalent"] is None and deep["differing"] == []
            index = rendered.resolve() / ".docforge" / "index.sqlite"
            assert deep["reason"] == (
                f"the published index cannot be read: index {index}: not a valid index database "
                "(file is not a database); run `docforge index` to rebuild it (the index is derived and disposable)")
    run(go())
