"""Rated games (docs/ratings.md): chosen at creation and shown to all; at the end the seats
held by accounts move as openskill's Plackett-Luce computes; once per seat, whichever process
settles; a seat claimed after the end is rated then; profiles and leaderboards read them."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from fastapi.testclient import TestClient
from openskill.models import PlackettLuce
from serverlib import AppFactory, auth, create, play_to_end, tokens_of
from test_server_accounts import csrf, sign_up

from kerala.ratings import Rating, bot_rating
from kerala.server.ratingrepo import RatingRepository

FOUR = [
    {"name": n, "color": c}
    for n, c in zip(("Ada", "Bo", "Cy", "Di"), ("blue", "red", "green", "purple"), strict=True)
]


def hold(client: TestClient, body: dict[str, Any], game_id: str, seat: int, token: str) -> None:
    r = client.post(
        "/api/account/seats",
        json={"game_id": game_id, "seat": seat, "token": token},
        headers=csrf(body),
    )
    assert r.status_code == 204, r.text


def profile(client: TestClient, handle: str) -> dict[str, Any]:
    r = client.get(f"/api/players/{handle}")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_a_rated_four_player_game_moves_ratings_as_openskill_computes(
    make_client: AppFactory,
) -> None:
    one = make_client(rating_settle=3600)  # settled by the reads below, not by the timer
    people = [one] + [TestClient(one.app) for _ in range(3)]
    handles = ["ada", "bob", "cyd", "dia"]
    bodies = [sign_up(c, h, h.title()) for c, h in zip(people, handles, strict=True)]
    created = create(one, FOUR, rated=True)
    game_id, tokens = created["id"], tokens_of(created)
    assert created["game"]["rated"] is True  # shown to all
    for seat, (c, b) in enumerate(zip(people, bodies, strict=True)):
        hold(c, b, game_id, seat, tokens[seat])
    end = play_to_end(one, game_id, tokens)
    ranks = end["result"]["ranks"]
    # openskill itself, from four new players, with the project's model settings.
    model = PlackettLuce(limit_sigma=True)
    teams = [[model.rating()] for _ in range(4)]
    if len(set(ranks)) == 4:
        expected = [t[0] for t in model.rate(teams, ranks=ranks)]
        for seat, h in enumerate(handles):
            got = profile(one, h)["ratings"]["3-5p"]
            assert abs(got["mu"] - expected[seat].mu) < 1e-3, (seat, got)
            assert abs(got["sigma"] - expected[seat].sigma) < 1e-3, (seat, got)
            assert got["games"] == 1 and got["provisional"] is True
    else:  # a shared place: the mean over the orders (kerala.ratings.rate), still one update
        for h in handles:
            assert profile(one, h)["ratings"]["3-5p"]["games"] == 1
    # Each seat is rated once: reading again (or another process settling) changes nothing.
    again = [profile(TestClient(one.app), h)["ratings"]["3-5p"] for h in handles]
    assert again == [profile(one, h)["ratings"]["3-5p"] for h in handles]
    winner = handles[ranks.index(1)]
    history = profile(one, winner)["history"]
    assert [(p["game"], p["rank"], p["players"]) for p in history] == [(game_id, 1, 4)]
    assert profile(one, winner)["results"] == [{"players": 4, "games": 1, "won": 1}]


def test_a_casual_game_moves_no_rating(make_client: AppFactory) -> None:
    one = make_client()
    two = TestClient(one.app)
    a, b = sign_up(one, "ada", "Ada"), sign_up(two, "bob", "Bo")
    created = create(one, FOUR[:2])
    assert created["game"]["rated"] is False  # between people: casual unless asked
    game_id, tokens = created["id"], tokens_of(created)
    hold(one, a, game_id, 0, tokens[0])
    hold(two, b, game_id, 1, tokens[1])
    play_to_end(one, game_id, tokens)
    assert profile(one, "ada")["ratings"]["2p"]["games"] == 0
    assert profile(one, "ada")["history"] == []


def test_a_guest_who_signs_up_after_the_end_is_rated_against_the_bot(
    make_client: AppFactory,
) -> None:
    """A game against a bot is rated by default; the guest's seat is rated once claimed."""
    one = make_client(rating_settle=0.05)
    seats = [
        {"name": "Guest", "color": "blue"},
        {"name": "Bot", "color": "red", "kind": "bot", "level": "random"},
    ]
    created = create(one, seats)
    assert created["game"]["rated"] is True
    game_id, tokens = created["id"], tokens_of(created)
    deadline = time.monotonic() + 120
    game = one.get(f"/api/games/{game_id}", headers=auth(tokens[0])).json()
    while game["status"] != "over":
        assert time.monotonic() < deadline
        if game["to_move"] == 0:
            game = play_to_end_step(one, game_id, tokens[0], game)
        else:
            time.sleep(0.02)
            game = one.get(f"/api/games/{game_id}", headers=auth(tokens[0])).json()
    body = sign_up(one, "gus", "Gus")
    hold(one, body, game_id, 0, tokens[0])
    # The timer settles it (no read needed): wait for the condition.
    while True:
        p = profile(TestClient(one.app), "gus")
        if p["ratings"]["2p"]["games"] == 1:
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)
    rank = game["result"]["ranks"][0]
    expected = PlackettLuce(limit_sigma=True).rate(
        [[PlackettLuce().rating()], [bot_as_openskill("random")]],
        ranks=game["result"]["ranks"],
    )[0][0]
    if len(set(game["result"]["ranks"])) == 2:
        assert abs(p["ratings"]["2p"]["mu"] - expected.mu) < 1e-3
    assert p["history"][0]["rank"] == rank


def bot_as_openskill(level: str) -> Any:
    r: Rating = bot_rating(level, 2)
    return PlackettLuce().rating(mu=r.mu, sigma=r.sigma)


def play_to_end_step(client: TestClient, game_id: str, token: str, game: Any) -> Any:
    legal = game["legal"]
    r = client.post(
        f"/api/games/{game_id}/decisions",
        json={"decision": legal[0], "expected": game["decision_number"]},
        headers=auth(token),
    )
    assert r.status_code == 200, r.text
    return client.get(f"/api/games/{game_id}", headers=auth(token)).json()


def test_the_leaderboard_lists_settled_ratings_only(make_client: AppFactory) -> None:
    one = make_client()
    r = one.get("/api/leaderboard?group=2p")
    assert r.status_code == 200 and r.json() == {"group": "2p", "players": []}
    assert one.get("/api/leaderboard?group=6p").status_code == 422
    assert one.get("/api/players/nobody").status_code == 404
    assert "\n" not in one.get("/api/players/nobody").json()["detail"]


def test_rated_must_be_a_boolean(make_client: AppFactory) -> None:
    one = make_client()
    r = one.post("/api/games", json={"seats": FOUR[:2], "rated": "yes"})
    assert r.status_code == 422
    assert one.get("/api/games").json()["games"] == []


def test_the_leaderboard_ranks_settled_ratings_and_leaves_out_provisional_ones(
    make_client: AppFactory,
) -> None:
    one = make_client(rating_settle=3600)
    two = TestClient(one.app)
    sign_up(one, "ada", "Ada")
    sign_up(two, "bob", "Bo")
    created = create(one, FOUR[:2], rated=True)
    game_id = created["id"]
    play_to_end(one, game_id, tokens_of(created))
    state = one.app.state  # type: ignore[attr-defined]
    repo = RatingRepository(state.repo.engine)
    accounts = state.accounts.repo
    ada = accounts.account_by_key("ada")
    bob = accounts.account_by_key("bob")
    assert ada is not None and bob is not None
    now = dt.datetime.now(dt.UTC)
    assert repo.settle(game_id, "2p", [(0, ada.id, 30.0, 4.0, 1), (1, bob.id, 20.0, 6.0, 2)], now)
    # The same seats again (another process): refused, nothing written twice.
    assert not repo.settle(game_id, "2p", [(0, ada.id, 99.0, 1.0, 1)], now)
    board = one.get("/api/leaderboard?group=2p").json()
    assert [(p["handle"], p["display"], p["provisional"]) for p in board["players"]] == [
        ("ada", 1650, False)
    ]
    assert one.get("/api/leaderboard?group=3-5p").json()["players"] == []


def test_a_rated_game_with_a_guest_waits_until_the_guest_claims_the_seat(
    make_client: AppFactory, db_url: str
) -> None:
    """A guest never stands in as a new player whom an account could beat at will: the game
    is rated once every person's seat is held, then both seats in one update (on SQLite and
    PostgreSQL: the queries that find the games waiting)."""
    one = make_client(db=db_url, rating_settle=3600)
    guest = TestClient(one.app)
    ada = sign_up(one, "ada", "Ada")
    created = create(one, FOUR[:2], rated=True)
    game_id, tokens = created["id"], tokens_of(created)
    hold(one, ada, game_id, 0, tokens[0])
    end = play_to_end(one, game_id, tokens)
    state = one.app.state  # type: ignore[attr-defined]
    repo = RatingRepository(state.repo.engine)
    assert repo.pending() == []  # waiting for the guest, without holding up newer games
    assert profile(one, "ada")["ratings"]["2p"]["games"] == 0
    assert profile(one, "ada")["history"] == []
    gus = sign_up(guest, "gus", "Gus")
    hold(guest, gus, game_id, 1, tokens[1])
    ranks = end["result"]["ranks"]
    model = PlackettLuce(limit_sigma=True)
    expected = [t[0] for t in model.rate([[model.rating()], [model.rating()]], ranks=ranks)]
    for seat, h in enumerate(("ada", "gus")):
        got = profile(one, h)["ratings"]["2p"]
        assert got["games"] == 1, (h, got)
        if len(set(ranks)) == 2:
            assert abs(got["mu"] - expected[seat].mu) < 1e-3, (h, got)


def test_the_game_list_says_whether_each_game_is_rated(make_client: AppFactory) -> None:
    one = make_client()
    rated = create(one, FOUR[:2], rated=True)["id"]
    casual = create(one, FOUR[:2])["id"]
    listed = {g["id"]: g["rated"] for g in one.get("/api/games").json()["games"]}
    assert listed == {rated: True, casual: False}
