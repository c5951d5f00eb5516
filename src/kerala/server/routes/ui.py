"""The browser UI's entry page: ``/`` and ``/games/{id}`` serve ``static/index.html``."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response

router = APIRouter(include_in_schema=False)

STATIC_DIR = Path(str(resources.files("kerala.server").joinpath("static")))

_MISSING = """<!doctype html><meta charset="utf-8"><title>Kerala</title>
<h1>Kerala server</h1><p>The browser UI is not installed. The API is described at
<a href="/openapi.json">/openapi.json</a>.</p>"""


def _index() -> Response:
    index = STATIC_DIR / "index.html"
    if index.is_file():
        return FileResponse(index, media_type="text/html", headers={"Cache-Control": "no-cache"})
    return HTMLResponse(_MISSING)


@router.get("/")
def index() -> Response:
    return _index()


@router.get("/games/{game_id}")
def game_page(game_id: str) -> Response:
    del game_id  # the page reads it from the URL
    return _index()
