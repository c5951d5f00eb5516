"""Color vision by default: every tile's color is readable without telling hues apart. Each
color's tile is rendered by the page itself (its fill, texture and letter, with no setting
switched on), the rendered pixels are passed through the Machado et al. (2009) simulations of
deuteranopia, protanopia and tritanopia (severity 1), and each pair of colors must still differ
by a CIEDE2000 color difference above the thresholds below (docs/web.md, "Color vision")."""

from __future__ import annotations

import io
import itertools
import warnings

import colour
import numpy as np
import pytest
from numpy.typing import NDArray
from PIL import Image
from playwright.sync_api import Page
from webserver import Server, shot

COLORS = ["blue", "black", "green", "red", "purple"]
SIMULATIONS = {
    "normal": None,
    "deuteranopia": "Deuteranomaly",
    "protanopia": "Protanomaly",
    "tritanopia": "Tritanomaly",
}
#: The mean CIEDE2000 difference, pixel by pixel, between the rendered tiles of two colors
#: (fill, texture, letter and symbols together). 10 is where two colors read as different
#: colors rather than shades of one (a just noticeable difference is about 2.3).
IMAGE_THRESHOLD = 10.0
#: The difference between the fills alone: tiles too small to show their texture are still
#: told apart by their lightness.
FILL_THRESHOLD = 10.0

RENDER = """async ([size, colors]) => {
  const m = await import('/static/js/grounds.js');
  const holder = document.createElement('div');
  holder.id = 'cv';
  holder.style.cssText = 'position:fixed;left:0;top:0;z-index:99;background:#fff;display:flex';
  for (const c of colors) {
    const svg = m.tileSvg(c + ':e1', size);
    svg.id = 'cv-' + c;
    holder.append(svg);
  }
  document.body.append(holder);
}"""


def simulate(rgb: NDArray[np.float64], kind: str | None) -> NDArray[np.float64]:
    """CIE L*a*b* (D65) of sRGB pixels as seen with the simulated deficiency."""
    linear: NDArray[np.float64] = np.asarray(colour.models.eotf_sRGB(rgb), dtype=np.float64)
    if kind is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tritanomaly's model note, not an error
            m = colour.blindness.matrix_cvd_Machado2009(kind, 1.0)
        linear = np.clip(linear @ m.T, 0.0, 1.0)
    xyz = colour.RGB_to_XYZ(linear, colour.RGB_COLOURSPACES["sRGB"], apply_cctf_decoding=False)
    lab: NDArray[np.float64] = np.asarray(colour.XYZ_to_Lab(xyz), dtype=np.float64)
    return lab


def rendered_tiles(page: Page, server: Server, size: int) -> dict[str, NDArray[np.float64]]:
    page.goto(server.url + "/")
    page.wait_for_selector("#quick-play")
    assert not page.evaluate("document.body.classList.contains('cb')")  # the default look
    page.evaluate(RENDER, [size, COLORS])
    out = {}
    for c in COLORS:
        png = page.locator(f"#cv-{c}").screenshot()
        out[c] = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.float64) / 255
    return out


def delta_e(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    d: NDArray[np.float64] = np.asarray(colour.delta_E(a, b, method="CIE 2000"), dtype=np.float64)
    return d


@pytest.mark.parametrize("size", [96, 28])
def test_every_pair_of_tile_colors_differs_under_each_color_vision(
    server: Server, page: Page, size: int
) -> None:
    tiles = rendered_tiles(page, server, size)
    # The inside of the tile (its rounded corners and outline are the same for every color).
    inner = slice(size // 8, size - size // 8)
    for name, kind in SIMULATIONS.items():
        lab = {c: simulate(img[inner, inner], kind) for c, img in tiles.items()}
        for a, b in itertools.combinations(COLORS, 2):
            mean = float(delta_e(lab[a], lab[b]).mean())
            assert mean > IMAGE_THRESHOLD, f"{a} and {b} under {name}: {mean:.1f}"


def test_the_fills_alone_stay_apart_and_carry_white_symbols(server: Server, page: Page) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector("#quick-play")
    fills = page.evaluate("async () => (await import('/static/js/tiles.js')).COLOR_FILL")
    rgb = np.array([[int(fills[c][i : i + 2], 16) / 255 for i in (1, 3, 5)] for c in COLORS])
    for name, kind in SIMULATIONS.items():
        lab = simulate(rgb, kind)
        for i, j in itertools.combinations(range(len(COLORS)), 2):
            d = float(delta_e(lab[i], lab[j]))
            assert d > FILL_THRESHOLD, f"{COLORS[i]} and {COLORS[j]} fills under {name}: {d:.1f}"
    # White symbols on every fill: a contrast of at least 3:1 (WCAG, large graphics).
    luminance = np.asarray(colour.models.eotf_sRGB(rgb)) @ np.array([0.2126, 0.7152, 0.0722])
    for c, y in zip(COLORS, luminance, strict=True):
        assert 1.05 / (y + 0.05) >= 3.0, f"white on {c}: {1.05 / (y + 0.05):.2f}"


def test_the_marks_are_on_by_default_and_contrast_makes_them_stronger(
    server: Server, page: Page
) -> None:
    page.goto(server.url + "/#/calc")
    page.wait_for_selector("#calc-grounds svg")
    letter = page.locator("#calc-grounds .cell.stack text.cbmark").first
    pattern = page.locator("#calc-grounds .cell.stack rect.cbmark.pattern").first
    assert letter.is_visible() and letter.text_content() == "B"
    weak = float(pattern.evaluate("e => getComputedStyle(e).opacity"))
    page.check("#cb-mode")
    strong = float(pattern.evaluate("e => getComputedStyle(e).opacity"))
    assert strong > weak > 0
    page.reload()
    page.wait_for_selector("#calc-grounds svg")
    assert page.is_checked("#cb-mode")  # remembered
    assert page.locator("#calc-grounds .cell.stack text.cbmark").first.is_visible()
    shot(page, "calc-contrast-desktop")
