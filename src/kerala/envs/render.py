"""A small raster picture of the public game state, for ``render_mode="rgb_array"``.

:func:`render_rgb` draws, with Pillow, what every player sees (docs/rules.md I1): the display
on top, then one panel per seat with its grounds, in seat order. A stack is a square in the
color of its top tile (the web board's colors), with one to three white dots for the elephant
symbols of an ``e1``–``e3`` tile, a bar in the asked color on the edge an arch faces, a white
cross on a special tile, a white ring on the start tile, its height when above one, and a black
disc ringed white where an elephant stands; a small square in the corner gives the seat's
color, and a black frame marks the seat to move. Each seat's panel has a fixed size, and the
cells shrink to fit a large grounds, so every picture of one env has the same shape
(video recorders need that): ``(PANEL + 2 * MARGIN + BANNER, n * (PANEL + MARGIN) + MARGIN, 3)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from kerala.game import GameState
from kerala.tiles import START, TileType

if TYPE_CHECKING:
    from PIL import ImageDraw

#: The web board's tile colors (src/kerala/server/static/js/tiles.js).
TILE_RGB: Final[dict[str, tuple[int, int, int]]] = {
    "blue": (0x22, 0x58, 0xB5),
    "black": (0x2B, 0x2B, 0x2B),
    "green": (0x18, 0x6A, 0x31),
    "red": (0xEE, 0x6A, 0x2F),
    "purple": (0xB8, 0x73, 0xD6),
}
#: Side of one seat's panel, in pixels.
PANEL: Final = 192
MARGIN: Final = 8
#: Height of the display strip above the panels.
BANNER: Final = 28
_BACKGROUND: Final = (0xF4, 0xEF, 0xE3)
_PANEL_RGB: Final = (0xE2, 0xD8, 0xC0)
_WHITE: Final = (255, 255, 255)
_BLACK: Final = (0, 0, 0)
#: The bar of an arch facing each edge, as fractions of the cell: (x0, y0, x1, y1).
_EDGE_BOX: Final = {
    "N": (0, 0, 1, 0.22),
    "E": (0.78, 0, 1, 1),
    "S": (0, 0.78, 1, 1),
    "W": (0, 0, 0.22, 1),
}
#: Where the white dots of a tile with 1, 2 or 3 elephant symbols go.
_SYMBOL_DOTS: Final = {
    1: ((0.5, 0.5),),
    2: ((0.3, 0.5), (0.7, 0.5)),
    3: ((0.25, 0.7), (0.5, 0.3), (0.75, 0.7)),
}


#: The render modes of every env.
RENDER_MODES = ("human", "ansi", "rgb_array")


def check_render_mode(render_mode: str | None) -> str | None:
    """``render_mode`` if it is one of :data:`RENDER_MODES` or ``None``; else ``ValueError``."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(
            f"render_mode must be one of {', '.join(RENDER_MODES)} or None, got {render_mode!r}"
        )
    return render_mode


def render_in_mode(render_mode: str | None, state: GameState) -> str | npt.NDArray[np.uint8] | None:
    """The ``render()`` of the envs: ``ansi`` returns the text (``str(state)``, public facts
    only), ``human`` prints it, ``rgb_array`` returns :func:`render_rgb`."""
    if render_mode is None:
        import gymnasium

        gymnasium.logger.warn("render() called without a render_mode")
        return None
    if render_mode == "rgb_array":
        return render_rgb(state)
    text = str(state)
    if render_mode == "ansi":
        return text
    print(text)
    return None


def picture_shape(num_players: int) -> tuple[int, int, int]:
    """The ``(height, width, 3)`` of every picture of a game of ``num_players``."""
    return (BANNER + PANEL + 2 * MARGIN, num_players * (PANEL + MARGIN) + MARGIN, 3)


def _tile(
    draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], t: TileType, arch: str | None
) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    draw.rectangle(box, fill=TILE_RGB[t.color], outline=_BACKGROUND)
    r = max(1.0, w * 0.09)
    for fx, fy in _SYMBOL_DOTS.get(t.symbols if t.kind != START else 0, ()):
        cx, cy = x0 + fx * w, y0 + fy * h
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=_WHITE)
    if t.arch_color is not None:
        ex0, ey0, ex1, ey1 = _EDGE_BOX[arch or "N"]
        draw.rectangle(
            (x0 + ex0 * w, y0 + ey0 * h, x0 + ex1 * w, y0 + ey1 * h),
            fill=TILE_RGB[t.arch_color],
            outline=_WHITE,
        )
    a0, b0, a1, b1 = x0 + 0.25 * w, y0 + 0.25 * h, x1 - 0.25 * w, y1 - 0.25 * h
    if t.special is not None:
        draw.line((a0, b0, a1, b1), fill=_WHITE, width=2)
        draw.line((a0, b1, a1, b0), fill=_WHITE, width=2)
    if t.kind == START:
        draw.ellipse((a0, b0, a1, b1), outline=_WHITE, width=2)


def render_rgb(state: GameState) -> npt.NDArray[np.uint8]:
    """The public picture of ``state`` as an ``(H, W, 3)`` ``uint8`` array
    (:func:`picture_shape`); see the module docstring. Needs Pillow (``kerala[rl]``)."""
    from PIL import Image, ImageDraw

    height, width, _ = picture_shape(state.n)
    img = Image.new("RGB", (width, height), _BACKGROUND)
    draw = ImageDraw.Draw(img)
    side = BANNER - 8
    for i, t in enumerate(state.display):
        x = MARGIN + i * (side + 4)
        _tile(draw, (x, 4, x + side, 4 + side), t, "N")
    for seat, g in enumerate(state.grounds):
        left = MARGIN + seat * (PANEL + MARGIN)
        top = BANNER + MARGIN
        draw.rectangle((left, top, left + PANEL - 1, top + PANEL - 1), fill=_PANEL_RGB)
        draw.rectangle((left + 4, top + 4, left + 14, top + 14), fill=TILE_RGB[g.color])
        if seat == state.current_player:
            draw.rectangle((left, top, left + PANEL - 1, top + PANEL - 1), outline=_BLACK, width=2)
        cells = g.cells()
        xs = [c[0] for c in cells]
        ys = [c[1] for c in cells]
        span = max(max(xs) - min(xs), max(ys) - min(ys)) + 1
        size = min(24.0, (PANEL - 8) / span)
        ox = left + (PANEL - size * (max(xs) - min(xs) + 1)) / 2 - size * min(xs)
        oy = top + (PANEL - size * (max(ys) - min(ys) + 1)) / 2 - size * min(ys)
        for x, y in cells:
            stack = g.stack((x, y))
            box = (ox + x * size, oy + y * size, ox + (x + 1) * size - 1, oy + (y + 1) * size - 1)
            t, arch = stack[-1]
            _tile(draw, box, t, arch)
            if len(stack) > 1 and size >= 12:
                draw.text((box[0] + 2, box[1] + 1), str(len(stack)), fill=_WHITE)
        for x, y in g.elephant_cells():
            cx, cy = ox + (x + 0.5) * size, oy + (y + 0.5) * size
            r = size * 0.28
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=_BLACK, outline=_WHITE, width=2)
    return np.asarray(img, dtype=np.uint8)


__all__ = ["PANEL", "TILE_RGB", "picture_shape", "render_in_mode", "render_rgb"]
