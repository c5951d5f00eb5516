"""Quick match: pairing by player count, time control and rating closeness that widens with
waiting, bots after a chosen wait, and one shared queue for several processes (Redis)."""

from __future__ import annotations

import secrets
import time
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from serverlib import AppFactory

from kerala.server.matchmaking import Ticket, pair

REDIS = "redis://127.0.0.1:6379/0"


def ticket(
    i: int, rating: float = 1500, *, players: int = 2, since: float = 0.0, **kw: Any
) -> Ticket:
    return Ticket(f"t{i}", players, kw.pop("control", "fast"), rating, since, **kw)


# -- pairing -----------------------------------------------------------------------------------


def test_only_the_same_player_count_and_time_control_meet() -> None:
    ts = [
        ticket(0),
        ticket(1, players=3),
        ticket(2, control="day"),
        ticket(3, players=3),
        ticket(4, control="day"),
        ticket(5, players=3),
    ]
    groups = pair(ts, now=0.0)
    assert sorted(sorted(t.id for t in g.tickets) for g in groups) == [
        ["t1", "t3", "t5"],
        ["t2", "t4"],
    ]
    assert all(g.bots == 0 for g in groups)


def test_ratings_far_apart_wait_until_their_windows_widen() -> None:
    far = [ticket(0, 1500), ticket(1, 1800)]
    assert pair(far, now=0.0) == []  # 300 apart, windows of 100
    assert pair(far, now=10.0) == []  # windows of 200
    (game,) = pair(far, now=20.0)  # windows of 300
    assert {t.id for t in game.tickets} == {"t0", "t1"} and game.spread == 300


def test_a_newcomer_does_not_widen_the_window_of_those_waiting() -> None:
    """The spread must fit every member's window: a long wait widens one's own range only."""
    ts = [ticket(0, 1500, since=0.0), ticket(1, 1800, since=29.0)]
    assert pair(ts, now=30.0) == []  # t0 would take 300, but t1's window is still 110
    assert len(pair(ts, now=49.0)) == 1  # t1's window reaches 300


def test_the_oldest_is_served_first_with_the_closest_ratings() -> None:
    ts = [ticket(0, 1500, since=0), ticket(1, 1490, since=5), ticket(2, 1560, since=1)]
    (game,) = pair(ts, now=6.0)
    assert [t.id for t in game.tickets] == ["t0", "t1"]


def test_bots_fill_the_game_after_the_chosen_wait() -> None:
    alone = [ticket(0, players=4, bots_after=30.0), ticket(1, 2500, players=4)]
    assert pair(alone, now=29.0) == []
    (game,) = pair(alone, now=30.0)
    assert [t.id for t in game.tickets] == ["t0"] and game.bots == 3
    # Those who wait for people only never get bots.
    assert pair([ticket(0, players=3)], now=10_000.0) == []


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(2, 5),
            st.sampled_from(["fast", "day"]),
            st.floats(800, 2400),
            st.floats(0, 60),
            st.one_of(st.none(), st.floats(5, 60)),
        ),
        max_size=40,
    ),
    st.floats(0, 120),
)
def test_every_game_is_whole_and_fits_every_members_window(
    specs: list[tuple[int, str, float, float, float | None]], now: float
) -> None:
    ts = [
        Ticket(f"t{i}", n, c, r, min(since, now), bots_after=b)
        for i, (n, c, r, since, b) in enumerate(specs)
    ]
    seen: set[str] = set()
    for g in pair(ts, now):
        ids = [t.id for t in g.tickets]
        assert not seen & set(ids)  # nobody in two games
        seen.update(ids)
        first = g.tickets[0]
        assert len({t.key for t in g.tickets}) == 1
        assert len(g.tickets) + g.bots == first.players
        assert all(g.spread <= min(800.0, t.window(now)) for t in g.tickets)
        if g.bots:
            assert first.bots_after is not None and now - first.since >= first.bots_after


# -- the API -----------------------------------------------------------------------------------


def ask(client: TestClient, t: dict[str, Any]) -> Any:
    return client.get(
        f"/api/quickmatch/{t['ticket']}", headers={"Authorization": f"Bearer {t['secret']}"}
    )


def join(client: TestClient, name: str, players: int = 2, **body: Any) -> dict[str, Any]:
    r = client.post("/api/quickmatch", json={"players": players, "name": name, **body})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def wait_matched(client: TestClient, t: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        r = client.get(
            f"/api/quickmatch/{t['ticket']}", headers={"Authorization": f"Bearer {t['secret']}"}
        )
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        if body["status"] == "matched":
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.05)


def test_four_people_who_press_play_now_land_in_one_game(make_client: AppFactory) -> None:
    client = make_client(quickmatch_interval=0.05)
    tickets = [join(client, f"P{i}", players=4, control="none") for i in range(4)]
    found = [wait_matched(client, t) for t in tickets]
    assert len({f["game"] for f in found}) == 1
    assert sorted(f["seat"] for f in found) == [0, 1, 2, 3]
    assert all(f["bots"] == 0 for f in found)
    game = found[0]["game"]
    for f, i in zip(found, range(4), strict=True):
        r = client.get(f"/api/games/{game}", headers={"Authorization": f"Bearer {f['token']}"})
        assert r.status_code == 200
        body = r.json()
        assert body["seat"] == f["seat"] and body["players"][f["seat"]]["name"] == f"P{i}"


def test_a_ticket_says_how_long_and_with_how_many_it_waits(make_client: AppFactory) -> None:
    client = make_client(quickmatch_interval=0.05)
    t = join(client, "Ada", players=3, control="day")
    join(client, "Bo", players=3, control="day")
    r = client.get(
        f"/api/quickmatch/{t['ticket']}", headers={"Authorization": f"Bearer {t['secret']}"}
    )
    assert r.json()["status"] == "waiting" and r.json()["alike"] == 2
    # Leaving takes the ticket out; its secret then holds nothing.
    auth = {"Authorization": f"Bearer {t['secret']}"}
    assert client.delete(f"/api/quickmatch/{t['ticket']}", headers=auth).status_code == 204
    assert client.get(f"/api/quickmatch/{t['ticket']}", headers=auth).status_code == 403


def test_bots_fill_a_quick_match_after_the_players_chosen_wait(make_client: AppFactory) -> None:
    client = make_client(quickmatch_interval=0.05)
    t = join(client, "Ada", players=3, control="none", bots_after=5)
    found = wait_matched(client, t, timeout=30)
    assert found["bots"] == 2 and found["waited"] >= 5
    game = client.get(f"/api/games/{found['game']}").json()
    assert [p["kind"] for p in game["players"]] == ["human", "bot", "bot"]


def test_bad_tickets_are_refused_in_one_line_and_change_nothing(make_client: AppFactory) -> None:
    client = make_client(quickmatch_interval=0.05)
    for body in (
        {"players": 6, "name": "A"},
        {"players": 2, "name": "A", "control": "blitz"},
        {"players": 2, "name": "A", "bots_after": 1},
        {"players": 2, "name": "\u202eA"},
        {"players": 2},
    ):
        r = client.post("/api/quickmatch", json=body)
        assert r.status_code in (400, 422), (body, r.text)
        assert "\n" not in r.json()["detail"]
    t = join(client, "Ada")
    assert client.get(f"/api/quickmatch/{t['ticket']}").status_code == 401
    wrong = {"Authorization": "Bearer not-the-secret"}
    assert client.get(f"/api/quickmatch/{t['ticket']}", headers=wrong).status_code == 403
    assert client.delete(f"/api/quickmatch/{t['ticket']}", headers=wrong).status_code == 403
    r = client.get(
        f"/api/quickmatch/{t['ticket']}", headers={"Authorization": f"Bearer {t['secret']}"}
    )
    assert r.json()["status"] == "waiting" and r.json()["alike"] == 1


def test_the_queue_is_bounded(make_client: AppFactory) -> None:
    client = make_client(quickmatch_interval=0.05, quickmatch_max_waiting=2)
    join(client, "A", players=5)
    join(client, "B", players=5)
    r = client.post("/api/quickmatch", json={"players": 5, "name": "C"})
    assert r.status_code == 409 and "full" in r.json()["detail"]


def test_the_queue_is_shared_by_the_processes_of_one_world(make_client: AppFactory) -> None:
    """Two processes on one database and one Redis: people joining on either land together,
    and every ticket gets exactly one seat."""
    prefix = f"kerala-test-{secrets.token_hex(4)}"
    opts = {"redis": REDIS, "redis_prefix": prefix, "quickmatch_interval": 0.05}
    one, two = make_client(**opts), make_client(**opts)
    tickets = [
        (c, join(c, f"P{i}", players=2, control="fast")) for i, c in enumerate([one, two] * 3)
    ]
    found = [wait_matched(c, t) for c, t in tickets]
    games: dict[str, list[int]] = {}
    for f in found:
        games.setdefault(f["game"], []).append(f["seat"])
    assert len(games) == 3 and all(sorted(s) == [0, 1] for s in games.values())
    # Each game is readable from both processes.
    for g in games:
        assert one.get(f"/api/games/{g}").status_code == 200
        assert two.get(f"/api/games/{g}").status_code == 200


def test_rated_and_casual_tickets_never_meet() -> None:
    ts = [ticket(0, rated=True, account="a"), ticket(1), ticket(2, rated=True, account="b")]
    (game,) = pair(ts, now=0.0)
    assert [t.id for t in game.tickets] == ["t0", "t2"]


def test_a_rated_quick_match_needs_accounts_and_makes_a_rated_game(
    make_client: AppFactory,
) -> None:
    from test_server_accounts import sign_up

    one = make_client(quickmatch_interval=0.05)
    two = TestClient(one.app)
    guest = TestClient(one.app)
    r = guest.post("/api/quickmatch", json={"players": 2, "name": "G", "rated": True})
    assert r.status_code == 401 and "needs an account" in r.json()["detail"]
    sign_up(one, "ada", "Ada")
    sign_up(two, "bob", "Bo")
    a = join(one, "Ada", rated=True, control="none")
    join(guest, "Gus", control="none")  # casual: not paired with the rated ones
    b = join(two, "Bo", rated=True, control="none")
    found = [wait_matched(one, a), wait_matched(two, b)]
    assert found[0]["game"] == found[1]["game"]
    assert one.get(f"/api/games/{found[0]['game']}").json()["rated"] is True
