"""HTTP hardening: every response carries the security headers and no server banner; the API
docs page is off by default and, when on, loads nothing from another origin
(docs/security.md, "HTTP hardening")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serverlib import AppFactory, create
from serverproc import Server

EXPECTED = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}

#: (method, path, body): pages, static files, API answers, refusals and unknown addresses.
REQUESTS: list[tuple[str, str, object]] = [
    ("GET", "/", None),
    ("GET", "/games/no-such-game", None),
    ("GET", "/static/js/app.js", None),
    ("GET", "/static/css/kerala.css", None),
    ("GET", "/static/no-such-file.js", None),
    ("GET", "/api/health", None),
    ("GET", "/api/games", None),
    ("GET", "/api/games/no-such-game", None),
    ("GET", "/api/games?status=nonsense", None),
    ("POST", "/api/games", {"seats": "nonsense"}),
    ("DELETE", "/api/games", None),
    ("GET", "/openapi.json", None),
    ("GET", "/no/such/page", None),
]


def assert_hardened(r: Any, where: str = "") -> None:
    """``r``: a response of httpx or of the test client (which may use another httpx)."""
    where = f"{where} ({r.status_code})"
    headers: Mapping[str, str] = r.headers
    for name, value in EXPECTED.items():
        assert headers.get(name) == value, f"{where}: {name} is {headers.get(name)!r}"
    csp = headers.get("content-security-policy", "")
    directives = {d.split()[0]: d.split()[1:] for d in csp.split(";") if d.strip()}
    assert directives.get("frame-ancestors") == ["'none'"], f"{where}: CSP {csp!r}"
    assert directives.get("script-src") == ["'self'"], f"{where}: CSP {csp!r}"
    assert directives.get("object-src") == ["'none'"], f"{where}: CSP {csp!r}"
    assert "server" not in headers, f"{where}: server banner {headers['server']!r}"


@pytest.mark.parametrize(("method", "path", "body"), REQUESTS)
def test_every_response_carries_the_security_headers(
    client: TestClient, method: str, path: str, body: object
) -> None:
    assert_hardened(client.request(method, path, json=body), f"{method} {path}")


def test_the_browser_ui_policy_allows_no_inline_script_or_style(client: TestClient) -> None:
    csp = client.get("/").headers["content-security-policy"]
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
    assert re.search(r"(^|;)\s*style-src 'self'\s*(;|$)", csp), csp


def test_an_unexpected_server_error_carries_the_security_headers(client: TestClient) -> None:
    def boom() -> None:
        raise RuntimeError("an unexpected fault")

    client.app.add_api_route("/api/boom", boom)  # type: ignore[attr-defined]
    bare = TestClient(client.app, raise_server_exceptions=False)
    r = bare.get("/api/boom")
    assert r.status_code == 500
    assert_hardened(r)


def test_kerala_serve_sends_the_headers_and_no_server_banner(
    sqlite_url: str, tmp_path: Path
) -> None:
    server = Server(sqlite_url, tmp_path / "server.log")
    try:
        for method, path, body in REQUESTS:
            assert_hardened(server.http.request(method, path, json=body), f"{method} {path}")
    finally:
        server.stop()


def test_the_api_docs_are_off_by_default(client: TestClient) -> None:
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect", "/docs-assets/swagger-ui.css"):
        r = client.get(path)
        assert r.status_code == 404, f"{path}: {r.status_code}"
        assert_hardened(r, path)
    assert client.get("/openapi.json").status_code == 200


@pytest.mark.parametrize("page", ["/docs"])
def test_the_api_docs_when_on_load_nothing_from_another_origin(
    make_client: AppFactory, page: str
) -> None:
    client = make_client(docs=True)
    assert client.get("/redoc").status_code == 404  # ReDoc's bundle draws its logo from a CDN
    r = client.get(page)
    assert r.status_code == 200
    assert_hardened(r, page)
    html = r.text
    assert "<script>" not in html, "an inline script"
    refs = re.findall(r"""(?:src|href)=["']([^"']+)""", html)
    assert refs, html
    for ref in refs:
        assert ref.startswith("/") and not ref.startswith("//"), f"{page} loads {ref}"
        got = client.get(ref)
        assert got.status_code == 200, f"{page}: {ref} answers {got.status_code}"
        assert_hardened(got, ref)


def test_the_security_headers_survive_a_game(client: TestClient) -> None:
    created = create(client)
    assert_hardened(client.get(f"/api/games/{created['id']}"))
