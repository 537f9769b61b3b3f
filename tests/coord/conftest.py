"""The real `docforge coord serve` on a free loopback port, with credentials made by the real
`docforge coord token`. DOCFORGE_BIN_DIR names the directory holding `docforge`."""

import os
import pathlib
import subprocess

import pytest

BIN = pathlib.Path(os.environ["DOCFORGE_BIN_DIR"]) / "docforge"


class Coord:
    def __init__(self, db, url):
        self.db = db
        self.url = url
        self.system = self.token("system")

    def token(self, *args):
        """Runs `docforge coord token ARGS --db DB` and returns the token it printed."""
        out = subprocess.run(
            [str(BIN), "coord", "token", *args, "--db", str(self.db)], check=True, capture_output=True, text=True
        )
        return out.stdout.strip()


@pytest.fixture
def coord(tmp_path):
    db = tmp_path / "coord.db"
    proc = subprocess.Popen(
        [str(BIN), "coord", "serve", "--listen", "127.0.0.1:0", "--db", str(db)], stdout=subprocess.PIPE, text=True
    )
    line = proc.stdout.readline()
    assert line.startswith("listening "), line
    try:
        yield Coord(db, line.split()[1])
    finally:
        proc.terminate()
        proc.wait()


@pytest.fixture
def anyio_backend():
    return "asyncio"


# The workflow both SDK lines run: (actor, tool, arguments) in order; SYSTEM is "SYSTEM".
def workflow():
    p = {"project_id": "shop"}
    wp = {**p, "work_package_id": "WP-001"}
    steps = [("SYSTEM", "create_project", {**p, "name": "Shop"})]
    for actor, role in [("olivia", "PO"), ("max", "PM"), ("ida", "IMPLEMENTER"), ("rita", "REVIEWER")]:
        steps.append(("SYSTEM", "register_actor", {**p, "actor_id": actor, "role": role}))
    steps += [
        ("max", "issue_work_package", {**wp, "title": "Checkout"}),
        ("ida", "claim_work_package", wp),
        ("ida", "link_commit", {**wp, "commit_id": "0123456789abcdef0123456789abcdef01234567"}),
        ("ida", "submit_result", {**wp, "summary": "Checkout implemented"}),
        ("max", "request_review", {**wp, "reviewer_id": "rita"}),
    ]
    return steps


def keyed(args, key):
    return {**args, "idempotency_key": key}
