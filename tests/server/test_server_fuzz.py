"""A schemathesis fuzz run of the OpenAPI document: whatever comes in, never a 5xx, and every
answer as the document says: a documented status code, its content type, and a body that
validates against the response schema (schemathesis's conformance checks).

Bounded (a few dozen examples per operation). Half the generated requests get the id of a real
game and a real seat token, so that the fuzz reaches past the "unknown game" refusal.
"""

from __future__ import annotations

import importlib
import pkgutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
import uvicorn
from fastapi.routing import APIRoute
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

import kerala.server.routes
from kerala.server.app import create_app
from kerala.server.settings import Settings

REAL: dict[str, Any] = {}

# The document only: building the app touches no database (an in-memory URL, no migration).
schema = schemathesis.openapi.from_dict(
    create_app(Settings(db="sqlite:///:memory:", migrate=False)).openapi()
)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real uvicorn server in a thread, on a fresh SQLite file, with one real game."""
    db = f"sqlite:///{Path(tmp_path_factory.mktemp('fuzz')) / 'fuzz.sqlite3'}"
    settings = Settings(
        db=db, bot_executor="thread", bot_delay=0, bot_workers=1, hint_budget=0.05, tune_gc=False
    )
    app = create_app(settings)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    r = httpx.post(
        f"{base}/api/games",
        json={"seats": [{"name": "A", "color": "blue"}, {"name": "B", "color": "red"}]},
    )
    created = r.json()
    REAL["id"] = created["id"]
    REAL["token"] = created["invites"][0]["token"]
    yield base
    server.should_exit = True
    thread.join(10)
    sock.close()


@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@pytest.mark.timeout(300)
def test_no_server_errors_and_every_answer_as_documented(case: Any, live_server: str) -> None:
    params = case.path_parameters or {}
    if "game_id" in params and hash(repr(case.body)) % 2 == 0:
        params["game_id"] = REAL["id"]
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {REAL['token']}"}
    case.call_and_validate(
        base_url=live_server,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )


def test_every_rate_limited_route_documents_429() -> None:
    """A route that counts requests against a rate says so in the document (the fuzz above
    runs with the rates raised, so it cannot see a 429 that is missing)."""
    doc = create_app(Settings(db="sqlite:///:memory:", migrate=False)).openapi()["paths"]
    limited = []
    for info in pkgutil.iter_modules(kerala.server.routes.__path__):
        module = importlib.import_module(f"kerala.server.routes.{info.name}")
        router = getattr(module, "router", None)
        for route in getattr(router, "routes", []):
            if isinstance(route, APIRoute) and any(
                d.call is not None and d.call.__qualname__.startswith("rate_limit.")
                for d in route.dependant.dependencies
            ):
                limited += [(route.path_format, m.lower()) for m in sorted(route.methods or ())]
    assert len(limited) >= 8
    for path, method in limited:
        assert "429" in doc[path][method]["responses"], f"{method.upper()} {path}"
