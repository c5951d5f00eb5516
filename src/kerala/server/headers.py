"""The security headers of every HTTP response, and the optional API docs page served from a
package (never from a CDN). See docs/security.md, "HTTP hardening".

The headers are constants, so a small pure-ASGI middleware sets them: it wraps the whole app
(:class:`HardenedApp`), outside Starlette's error middleware, so that pages, static files, API
answers, refusals and even an unexpected 500 all carry them. The ``server`` banner is uvicorn's:
``kerala serve`` turns it off (``server_header=False``).

>>> dict(SECURITY_HEADERS)[b"x-frame-options"]
b'DENY'
>>> b"'unsafe-inline'" in dict(SECURITY_HEADERS)[b"content-security-policy"]
False
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The browser UI's policy: every script, style, image and connection from this origin only;
#: no inline script or style, no plugins, no framing, forms post only here. ``connect-src 'self'``
#: covers the game's WebSocket on the same host (CSP Level 3).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

#: The API docs page (off by default): Swagger UI sets inline styles and draws icons from
#: ``data:`` images. Scripts still come only from this origin (the assets of the
#: ``fastapi-offline`` package), never inline.
DOCS_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)

#: Where the docs page lives when ``KERALA_DOCS`` is on.
DOCS_PATHS = frozenset({"/docs"})


class SecurityHeaders:
    """Pure ASGI middleware: every HTTP response gets :data:`SECURITY_HEADERS` (the docs pages
    get :data:`DOCS_CSP`), replacing any value a route set, and no ``server`` header."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        docs = scope["path"] in DOCS_PATHS

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS:
                    headers[name.decode()] = value.decode()
                if docs:
                    headers["content-security-policy"] = DOCS_CSP
                del headers["server"]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class HardenedApp(FastAPI):
    """FastAPI whose whole middleware stack, error pages included, sits inside
    :class:`SecurityHeaders` (``add_middleware`` would put it inside the error middleware, so an
    unexpected 500 would go out bare)."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


def _docs_assets() -> Path:
    """The Swagger UI files that the ``fastapi-offline`` package ships."""
    return Path(str(resources.files("fastapi_offline").joinpath("static")))


_SWAGGER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - Swagger UI</title>
<link rel="stylesheet" href="/docs-assets/swagger-ui.css">
<link rel="icon" href="/static/img/favicon.svg" type="image/svg+xml">
</head><body><div id="swagger-ui"></div>
<script src="/docs-assets/swagger-ui-bundle.js"></script>
<script type="module" src="/static/js/swagger.js"></script>
</body></html>"""


def install_docs(app: FastAPI) -> None:
    """``/docs`` (Swagger UI) from the package's files, with no inline script (it starts from
    ``static/js/swagger.js``). No ReDoc page: its bundle fetches its logo from its makers' CDN."""
    app.mount("/docs-assets", StaticFiles(directory=_docs_assets()), name="docs-assets")
    swagger = _SWAGGER.format(title=app.title)

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return HTMLResponse(swagger)
