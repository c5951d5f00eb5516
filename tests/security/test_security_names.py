"""Names (docs/security.md, "Names"): every name that comes in is NFC, bounded, and free of
characters that hide or reorder text; one check (kerala.names) for all of them."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from kerala.names import MAX_NAME, BadName, clean_name

#: Characters that change how the text around them shows, or do not show at all.
HIDDEN = {
    "right-to-left override": "\u202e",
    "zero width space": "\u200b",
    "next line": "\u0085",
    "left-to-right isolate": "\u2066",
    "zero width joiner": "\u200d",
    "line separator": "\u2028",
    "tab": "\t",
    "escape": "\x1b",
    "byte order mark": "\ufeff",
    "private use": "\ue000",
}


@pytest.mark.parametrize("char", HIDDEN.values(), ids=HIDDEN.keys())
def test_names_with_control_format_or_bidi_characters_are_refused(
    client: TestClient, char: str
) -> None:
    for name in (f"Ann{char}e", f"{char}Ann", f"Ann{char}"):
        r = client.post(
            "/api/games",
            json={"seats": [{"name": name, "color": "blue"}, {"name": "Bo", "color": "red"}]},
        )
        assert r.status_code == 422, r.text
        assert f"U+{ord(char):04X}" in r.json()["detail"]
    assert client.get("/api/games").json()["games"] == []


@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\u0085"])
def test_taking_a_seat_checks_the_name_the_same_way(client: TestClient, char: str) -> None:
    r = client.post(
        "/api/games",
        json={"seats": [{"name": "Host", "color": "blue"}, {"color": "red", "kind": "open"}]},
    )
    gid = r.json()["id"]
    r = client.post(f"/api/games/{gid}/seats/1/join", json={"name": f"Eve{char}"})
    assert r.status_code == 422, r.text
    assert f"U+{ord(char):04X}" in r.json()["detail"]
    assert client.get(f"/api/games/{gid}").json()["players"][1]["kind"] == "open"


def test_names_are_stored_in_normal_form_c(client: TestClient) -> None:
    decomposed = "Rene\u0301e"  # e + combining acute accent
    r = client.post(
        "/api/games",
        json={"seats": [{"name": decomposed, "color": "blue"}, {"name": " Bo ", "color": "red"}]},
    )
    assert r.status_code == 201, r.text
    names = [p["name"] for p in r.json()["game"]["players"]]
    assert names == ["Ren\u00e9e", "Bo"]


def test_a_name_is_bounded_in_characters_after_normalising(client: TestClient) -> None:
    ok = "e\u0301" * MAX_NAME  # 80 code points in, 40 characters once composed
    assert clean_name(ok) == "\u00e9" * MAX_NAME
    with pytest.raises(BadName, match="at most 40"):
        clean_name("a" * (MAX_NAME + 1))
    r = client.post(
        "/api/games",
        json={"seats": [{"name": "a" * 41, "color": "blue"}, {"name": "Bo", "color": "red"}]},
    )
    assert r.status_code == 422


def test_names_in_other_scripts_are_welcome() -> None:
    for name in ("Ananya", "അനന്യ", "Zoë", "王芳", "محمد", "Ωmega 2"):
        assert clean_name(name) == name
