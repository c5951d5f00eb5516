"""Accounts over HTTP (docs/accounts.md): sign-up and sign-in by password and passkey, the
session cookie, CSRF, lock-outs, seats held by account, my games, export and deletion."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serverlib import AppFactory, FakeTime, auth, choose, create, play_to_end, tokens_of
from softkey import UP, SoftKey

from kerala.server.routes.accounts import COOKIE

PASSWORD = "correct horse battery"


def sign_up(client: TestClient, handle: str = "ada", name: str = "Ada") -> dict[str, Any]:
    r = client.post(
        "/api/account/signup",
        json={"handle": handle, "display_name": name, "password": PASSWORD},
    )
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def csrf(body: dict[str, Any]) -> dict[str, str]:
    return {"X-CSRF-Token": body["csrf"]}


def me(client: TestClient) -> dict[str, Any]:
    r = client.get("/api/account")
    assert r.status_code == 200
    body: dict[str, Any] = r.json()
    return body


def passkey_sign_up(client: TestClient, key: SoftKey, handle: str = "kim") -> dict[str, Any]:
    begin = client.post(
        "/api/account/passkeys/register/begin", json={"handle": handle, "display_name": "Kim"}
    )
    assert begin.status_code == 200, begin.text
    options = begin.json()["options"]
    assert options["authenticatorSelection"]["userVerification"] == "required"
    done = client.post(
        "/api/account/passkeys/register/finish",
        json={"ceremony": begin.json()["ceremony"], "credential": key.register(options)},
    )
    assert done.status_code == 201, done.text
    body: dict[str, Any] = done.json()
    return body


def passkey_begin(client: TestClient) -> tuple[str, dict[str, Any]]:
    r = client.post("/api/account/passkeys/signin/begin")
    assert r.status_code == 200, r.text
    return r.json()["ceremony"], r.json()["options"]


def passkey_finish(client: TestClient, ceremony: str, credential: dict[str, Any]) -> Any:
    return client.post(
        "/api/account/passkeys/signin/finish",
        json={"ceremony": ceremony, "credential": credential},
    )


# -- passwords and sessions ----------------------------------------------------------------


def test_password_sign_up_signs_in_with_an_httponly_samesite_cookie(
    db_url: str, make_client: AppFactory
) -> None:
    client = make_client(db=db_url)
    r = client.post(
        "/api/account/signup",
        json={"handle": "Ada", "display_name": "Ada L.", "password": PASSWORD},
    )
    assert r.status_code == 201, r.text
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=")
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # plain HTTP: a Secure cookie would never come back
    assert r.json()["account"]["handle"] == "Ada"
    assert me(client)["account"]["display_name"] == "Ada L."
    client.cookies.clear()
    assert me(client) == {"signed_in": False, "account": None, "csrf": None}
    r = client.post("/api/account/signin", json={"handle": "ADA", "password": PASSWORD})
    assert r.status_code == 200, r.text
    assert me(client)["account"]["handle"] == "Ada"


def test_the_session_cookie_is_secure_over_https(make_client: AppFactory) -> None:
    client = make_client()
    client.base_url = client.base_url.copy_with(scheme="https")
    r = client.post(
        "/api/account/signup", json={"handle": "sec", "display_name": "S", "password": PASSWORD}
    )
    assert r.status_code == 201, r.text
    assert "Secure" in r.headers["set-cookie"]


def test_sign_in_rotates_the_session_id(client: TestClient) -> None:
    sign_up(client)
    first = client.cookies[COOKIE]
    r = client.post("/api/account/signin", json={"handle": "ada", "password": PASSWORD})
    assert r.status_code == 200
    second = client.cookies[COOKIE]
    assert second != first
    client.cookies.clear()
    client.cookies.set(COOKIE, first)
    assert me(client)["signed_in"] is False  # the session signed in before is over


def test_a_wrong_password_and_an_unknown_handle_are_refused_alike(client: TestClient) -> None:
    sign_up(client)
    client.cookies.clear()
    wrong = client.post("/api/account/signin", json={"handle": "ada", "password": "nope nope"})
    unknown = client.post("/api/account/signin", json={"handle": "bob", "password": PASSWORD})
    for r in (wrong, unknown):
        assert r.status_code == 401
        assert r.json() == {"detail": "wrong handle or password", "code": "signin_failed"}
        assert COOKIE not in r.headers.get("set-cookie", "")
    assert me(client)["signed_in"] is False


def test_failed_sign_ins_lock_the_account_even_for_the_right_password(
    make_client: AppFactory,
) -> None:
    # Windows of a day: the sliding window counter weighs the previous window's hits down
    # as the next goes on, so a short window could let a test straddling its end through.
    client = make_client(rate_signin_failures="3/day", rate_signin="")
    sign_up(client)
    client.cookies.clear()
    for _ in range(3):
        r = client.post("/api/account/signin", json={"handle": "ada", "password": "x" * 9})
        assert r.status_code == 401
    r = client.post("/api/account/signin", json={"handle": "ADA", "password": PASSWORD})
    assert r.status_code == 429
    assert r.json()["code"] == "locked_out"
    assert int(r.headers["Retry-After"]) > 0
    assert me(client)["signed_in"] is False


def test_sign_ins_from_one_address_are_rate_limited(make_client: AppFactory) -> None:
    client = make_client(rate_signin="2/day")
    for _ in range(2):
        r = client.post("/api/account/signin", json={"handle": "x" * 5, "password": "y" * 9})
        assert r.status_code == 401
    r = client.post("/api/account/signin", json={"handle": "x" * 5, "password": "y" * 9})
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"


@pytest.mark.parametrize(
    ("first", "second"),
    [("Joe", "joe"), ("Ｊｏｅ", "JOE"), ("Straße", "STRASSE")],
)
def test_handles_are_unique_after_normalising_and_casefolding(
    client: TestClient, first: str, second: str
) -> None:
    sign_up(client, first)
    r = client.post(
        "/api/account/signup",
        json={"handle": second, "display_name": "Other", "password": PASSWORD},
    )
    assert r.status_code == 409 and r.json()["code"] == "handle_taken"


@pytest.mark.parametrize(
    ("handle", "why"),
    [
        ("evil\u202egpj", "U+202E"),
        ("zero\u200bwidth", "U+200B"),
        ("a b", "letters, digits"),
        ("ab", "3 to 24"),
    ],
)
def test_bad_handles_are_refused_with_the_reason(client: TestClient, handle: str, why: str) -> None:
    r = client.post(
        "/api/account/signup", json={"handle": handle, "display_name": "X", "password": PASSWORD}
    )
    assert r.status_code == 422 and why in r.json()["detail"]
    assert me(client)["signed_in"] is False


def test_a_change_from_another_origin_is_refused(client: TestClient) -> None:
    body = sign_up(client)
    for headers in (
        {"Origin": "http://evil.example", **csrf(body)},
        {"Sec-Fetch-Site": "cross-site", **csrf(body)},
        {"Sec-Fetch-Site": "same-site", **csrf(body)},
        {"Origin": "http://testserver"},  # the right origin, but no CSRF token
        {"X-CSRF-Token": "not-the-token"},
    ):
        r = client.post("/api/account/signout", headers=headers)
        assert r.status_code == 403, headers
        assert r.json()["code"] == "csrf"
    assert me(client)["signed_in"] is True  # nothing happened
    r = client.post(
        "/api/account/signout",
        headers={"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin", **csrf(body)},
    )
    assert r.status_code == 204
    assert me(client)["signed_in"] is False


def test_a_sign_in_from_another_origin_is_refused(client: TestClient) -> None:
    sign_up(client)
    client.cookies.clear()
    r = client.post(
        "/api/account/signin",
        json={"handle": "ada", "password": PASSWORD},
        headers={"Origin": "http://evil.example"},
    )
    assert r.status_code == 403 and r.json()["code"] == "csrf"
    assert me(client)["signed_in"] is False


def test_a_stolen_session_is_refused_after_sign_out(make_client: AppFactory) -> None:
    client, thief = make_client(), None
    body = sign_up(client)
    stolen = client.cookies[COOKIE]
    assert client.post("/api/account/signout", headers=csrf(body)).status_code == 204
    thief = TestClient(client.app)
    thief.cookies.set(COOKIE, stolen)
    assert thief.get("/api/account").json()["signed_in"] is False
    r = thief.get("/api/account/games")
    assert r.status_code == 401 and r.json()["code"] == "not_signed_in"
    r = thief.post("/api/account/signout", headers=csrf(body))
    assert r.status_code == 401


def test_signing_out_everywhere_ends_every_session(make_client: AppFactory) -> None:
    phone = make_client()
    body = sign_up(phone)
    laptop = TestClient(phone.app)
    laptop.post("/api/account/signin", json={"handle": "ada", "password": PASSWORD})
    assert me(laptop)["signed_in"] is True
    assert phone.post("/api/account/signout-everywhere", headers=csrf(body)).status_code == 204
    assert me(phone)["signed_in"] is False
    assert me(laptop)["signed_in"] is False


def test_an_expired_session_is_refused(client: TestClient) -> None:
    fake = FakeTime()
    client.app.state.service.now = fake  # type: ignore[attr-defined]
    sign_up(client)
    fake.move(31 * 86400)  # KERALA_SESSION_DAYS is 30
    assert me(client)["signed_in"] is False


# -- passkeys ----------------------------------------------------------------------------


def test_sign_up_and_sign_in_with_a_passkey(db_url: str, make_client: AppFactory) -> None:
    client = make_client(db=db_url)
    key = SoftKey()
    body = passkey_sign_up(client, key)
    assert body["account"] == {**body["account"], "handle": "kim", "passkeys": 1}
    assert body["account"]["password"] is False
    assert client.post("/api/account/signout", headers=csrf(body)).status_code == 204
    ceremony, options = passkey_begin(client)
    assert options["userVerification"] == "required"
    r = passkey_finish(client, ceremony, key.assert_(options))
    assert r.status_code == 200, r.text
    assert me(client)["account"]["handle"] == "kim"


def test_a_replayed_passkey_assertion_is_refused(client: TestClient) -> None:
    key = SoftKey()
    passkey_sign_up(client, key)
    client.cookies.clear()
    ceremony, options = passkey_begin(client)
    assertion = key.assert_(options)
    assert passkey_finish(client, ceremony, assertion).status_code == 200
    client.cookies.clear()
    again = passkey_finish(client, ceremony, assertion)  # the same ceremony: used up
    assert again.status_code == 400 and again.json()["code"] == "passkey_refused"
    ceremony, _ = passkey_begin(client)
    again = passkey_finish(client, ceremony, assertion)  # a new challenge: it signed the old
    assert again.status_code == 401 and again.json()["code"] == "signin_failed"
    assert me(client)["signed_in"] is False


def test_foreign_and_forged_passkeys_are_refused(client: TestClient) -> None:
    key = SoftKey()
    passkey_sign_up(client, key)
    client.cookies.clear()
    stranger = SoftKey()
    stranger.user_handle = key.user_handle
    forger = SoftKey()  # another key pretending to be the registered credential
    forger.credential_id, forger.user_handle = key.credential_id, key.user_handle
    cases: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        "unknown credential": lambda o: stranger.assert_(o),
        "wrong key": lambda o: forger.assert_(o),
        "other origin": lambda o: key.assert_(o, origin="http://evil.example"),
        "other site": lambda o: key.assert_(o, rp_id="evil.example"),
        "no user verification": lambda o: key.assert_(o, flags=UP),
    }
    for why, make in cases.items():
        ceremony, options = passkey_begin(client)
        r = passkey_finish(client, ceremony, make(options))
        assert r.status_code == 401, why
        assert r.json()["code"] == "signin_failed", why
        assert me(client)["signed_in"] is False, why


def test_a_passkey_of_another_account_cannot_sign_in_as_this_one(client: TestClient) -> None:
    kim, lea = SoftKey(), SoftKey()
    passkey_sign_up(client, kim, "kim")
    client.cookies.clear()
    passkey_sign_up(client, lea, "lea")
    client.cookies.clear()
    ceremony, options = passkey_begin(client)
    lea.user_handle = kim.user_handle  # lea's passkey claims to be kim's user
    r = passkey_finish(client, ceremony, lea.assert_(options))
    assert r.status_code == 401
    assert me(client)["signed_in"] is False


def test_a_passkey_registration_with_a_wrong_challenge_or_origin_is_refused(
    client: TestClient,
) -> None:
    key = SoftKey()
    begin = client.post(
        "/api/account/passkeys/register/begin", json={"handle": "kim", "display_name": "Kim"}
    ).json()
    forged = dict(begin["options"], challenge="AAAA")
    r = client.post(
        "/api/account/passkeys/register/finish",
        json={"ceremony": begin["ceremony"], "credential": key.register(forged)},
    )
    assert r.status_code == 400 and r.json()["code"] == "passkey_refused"
    begin = client.post(
        "/api/account/passkeys/register/begin", json={"handle": "kim", "display_name": "Kim"}
    ).json()
    r = client.post(
        "/api/account/passkeys/register/finish",
        json={
            "ceremony": begin["ceremony"],
            "credential": key.register(begin["options"], origin="http://evil.example"),
        },
    )
    assert r.status_code == 400
    assert me(client)["signed_in"] is False
    assert (
        client.post("/api/account/signin", json={"handle": "kim", "password": PASSWORD}).status_code
        == 401
    )


def test_an_expired_passkey_ceremony_is_refused(client: TestClient) -> None:
    fake = FakeTime()
    client.app.state.service.now = fake  # type: ignore[attr-defined]
    key = SoftKey()
    passkey_sign_up(client, key)
    client.cookies.clear()
    ceremony, options = passkey_begin(client)
    fake.move(301)  # KERALA_WEBAUTHN_TIMEOUT is 300 s
    r = passkey_finish(client, ceremony, key.assert_(options))
    assert r.status_code == 400 and r.json()["code"] == "passkey_refused"


def test_a_signed_in_account_adds_a_passkey_with_its_csrf_token(client: TestClient) -> None:
    body = sign_up(client)
    r = client.post("/api/account/passkeys/register/begin", json={})
    assert r.status_code == 403 and r.json()["code"] == "csrf"
    r = client.post("/api/account/passkeys/register/begin", json={}, headers=csrf(body))
    assert r.status_code == 200
    key = SoftKey()
    done = client.post(
        "/api/account/passkeys/register/finish",
        json={"ceremony": r.json()["ceremony"], "credential": key.register(r.json()["options"])},
    )
    assert done.status_code == 200, done.text
    assert me(client)["account"]["passkeys"] == 1
    client.cookies.clear()
    ceremony, options = passkey_begin(client)
    assert passkey_finish(client, ceremony, key.assert_(options)).status_code == 200
    assert me(client)["account"]["handle"] == "ada"


# -- seats held by account -----------------------------------------------------------------


def test_a_held_seat_opens_from_another_device_and_plays_there(
    db_url: str, make_client: AppFactory
) -> None:
    laptop = make_client(db=db_url)
    body = sign_up(laptop)
    created = create(laptop)
    game_id, tokens = created["id"], tokens_of(created)
    r = laptop.post(
        "/api/account/seats",
        json={"game_id": game_id, "seat": 0, "token": tokens[0]},
        headers=csrf(body),
    )
    assert r.status_code == 204, r.text
    phone = TestClient(laptop.app)
    assert phone.get(f"/api/account/games/{game_id}/seats").status_code == 401
    phone.post("/api/account/signin", json={"handle": "ada", "password": PASSWORD})
    seats = phone.get(f"/api/account/games/{game_id}/seats").json()["seats"]
    assert [s["seat"] for s in seats] == [0]
    token = seats[0]["token"]
    game = phone.get(f"/api/games/{game_id}", headers=auth(token)).json()
    assert game["seat"] == 0
    seat = game["to_move"]
    mover = token if seat == 0 else tokens[1]
    g = phone.get(f"/api/games/{game_id}", headers=auth(mover)).json()
    r = phone.post(
        f"/api/games/{game_id}/decisions",
        json={"decision": choose(g["legal"]), "expected": g["decision_number"]},
        headers=auth(mover),
    )
    assert r.status_code == 200, r.text


def test_a_seat_needs_its_token_and_one_account_holds_it(make_client: AppFactory) -> None:
    ada = make_client()
    ada_body = sign_up(ada)
    created = create(ada)
    game_id, tokens = created["id"], tokens_of(created)
    hold = {"game_id": game_id, "seat": 0}
    r = ada.post("/api/account/seats", json={**hold, "token": "guess"}, headers=csrf(ada_body))
    assert r.status_code == 403 and r.json()["code"] == "bad_token"
    r = ada.post("/api/account/seats", json={**hold, "token": tokens[1]}, headers=csrf(ada_body))
    assert r.status_code == 422  # that token plays seat 1
    r = ada.post("/api/account/seats", json={**hold, "token": tokens[0]}, headers=csrf(ada_body))
    assert r.status_code == 204
    bo = TestClient(ada.app)
    bo_body = sign_up(bo, "bob", "Bo")
    r = bo.post("/api/account/seats", json={**hold, "token": tokens[0]}, headers=csrf(bo_body))
    assert r.status_code == 409
    assert bo.get(f"/api/account/games/{game_id}/seats").json() == {"seats": []}
    r = ada.post("/api/account/seats", json={**hold, "token": tokens[0]})
    assert r.status_code == 403  # a change without the CSRF token


def test_my_games_list_my_turn_first_then_running_then_finished(client: TestClient) -> None:
    body = sign_up(client)
    games = {}
    for kind in ("finished", "waiting", "my_turn"):
        created = create(client)
        games[kind] = created["id"]
        tokens = tokens_of(created)
        to_move = created["game"]["to_move"]
        mine = to_move if kind == "my_turn" else 1 - to_move
        client.post(
            "/api/account/seats",
            json={"game_id": created["id"], "seat": mine, "token": tokens[mine]},
            headers=csrf(body),
        )
        if kind == "finished":
            play_to_end(client, created["id"], tokens)
    listed = client.get("/api/account/games").json()["games"]
    assert [g["id"] for g in listed] == [games["my_turn"], games["waiting"], games["finished"]]
    accounts = client.app.state.accounts  # type: ignore[attr-defined]
    account = accounts.account_by_handle("ADA")
    assert accounts.seat_holders(games["finished"]) == {listed[2]["seats"][0]: account.id}
    assert [g["group"] for g in listed] == ["your_turn", "running", "finished"]
    assert len(listed[0]["opponents"]) == 1
    assert listed[0]["opponents"][0] != listed[0]["players"][listed[0]["seats"][0]]["name"]
    assert listed[2]["rank"] in (1, 2) and listed[2]["ranks"] is not None
    assert listed[0]["time_left"] is None  # no clock


def test_time_left_is_my_clock(client: TestClient) -> None:
    body = sign_up(client)
    created = create(client, clock={"kind": "realtime", "minutes": 5, "increment": 0}, first=0)
    client.post(
        "/api/account/seats",
        json={"game_id": created["id"], "seat": 0, "token": tokens_of(created)[0]},
        headers=csrf(body),
    )
    (entry,) = client.get("/api/account/games").json()["games"]
    assert 0 < entry["time_left"] <= 300


# -- your data -------------------------------------------------------------------------------


def test_export_has_the_account_and_its_game_records(client: TestClient) -> None:
    body = sign_up(client)
    created = create(client)
    tokens = tokens_of(created)
    client.post(
        "/api/account/seats",
        json={"game_id": created["id"], "seat": 0, "token": tokens[0]},
        headers=csrf(body),
    )
    r = client.get("/api/account/export")
    assert r.status_code == 200
    assert "attachment" in r.headers["content-disposition"]
    doc = r.json()
    assert doc["account"]["handle"] == "ada"
    assert PASSWORD not in r.text and "argon2" not in r.text
    assert tokens[0] not in r.text  # the seat's token stays on the server
    (game,) = doc["games"]
    assert game["id"] == created["id"] and game["seats"] == [0]
    assert [p["name"] for p in game["record"]["players"]] == ["Ada", "Bo"]
    # The ratings too: per group, with their history (none yet: the game is not over).
    assert doc["ratings"]["ratings"]["2p"]["games"] == 0 and doc["ratings"]["history"] == []


def test_deleting_the_account_keeps_its_games_under_deleted_player(
    db_url: str, make_client: AppFactory
) -> None:
    client = make_client(db=db_url)
    body = sign_up(client)
    created = create(client)
    game_id, tokens = created["id"], tokens_of(created)
    client.post(
        "/api/account/seats",
        json={"game_id": game_id, "seat": 0, "token": tokens[0]},
        headers=csrf(body),
    )
    r = client.request("DELETE", "/api/account", json={"handle": "nope"}, headers=csrf(body))
    assert r.status_code == 422  # the handle must be typed again
    r = client.request("DELETE", "/api/account", json={"handle": "ADA"}, headers=csrf(body))
    assert r.status_code == 204, r.text
    assert me(client)["signed_in"] is False
    game = client.get(f"/api/games/{game_id}").json()
    assert [p["name"] for p in game["players"]] == ["deleted player", "Bo"]
    r = client.post("/api/account/signin", json={"handle": "ada", "password": PASSWORD})
    assert r.status_code == 401
    sign_up(client)  # the handle is free again


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/account/signout", None),
        ("POST", "/api/account/signout-everywhere", None),
        ("POST", "/api/account/seats", {"game_id": "g", "seat": 0, "token": "t"}),
        ("POST", "/api/account/passkeys/register/begin", {}),
        ("DELETE", "/api/account", {"handle": "ada"}),
        ("POST", "/api/account/password", {"password": "x" * 12, "current": PASSWORD}),
    ],
)
def test_every_change_a_session_makes_needs_its_csrf_token_and_origin(
    client: TestClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    session = sign_up(client)
    for headers in ({}, {"Origin": "http://evil.example", **csrf(session)}):
        r = client.request(method, path, json=body, headers=headers)
        assert r.status_code == 403 and r.json()["code"] == "csrf", (headers, r.text)
    assert me(client)["account"]["handle"] == "ada"  # still signed in, still there


def test_another_site_cannot_read_the_accounts_seats_or_data(client: TestClient) -> None:
    sign_up(client)
    created = create(client)
    for path in (
        f"/api/account/games/{created['id']}/seats",
        "/api/account/games",
        "/api/account/export",
    ):
        r = client.get(path, headers={"Sec-Fetch-Site": "cross-site"})
        assert r.status_code == 403 and r.json()["code"] == "csrf", path
        assert client.get(path, headers={"Sec-Fetch-Site": "same-origin"}).status_code == 200


# -- several processes of one world ------------------------------------------------------------

REDIS = "redis://127.0.0.1:6379/0"


def test_a_session_works_on_every_process_and_ends_on_all(make_client: AppFactory) -> None:
    one, two = make_client(), make_client()  # two server processes on one database
    body = sign_up(one)
    two.cookies.set(COOKIE, one.cookies[COOKIE])
    assert me(two)["account"]["handle"] == "ada"
    assert two.post("/api/account/signout", headers=csrf(body)).status_code == 204
    assert me(one)["signed_in"] is False


def test_the_lock_out_is_shared_by_the_processes_of_one_world(make_client: AppFactory) -> None:
    prefix = f"kerala-test-{secrets.token_hex(4)}"
    settings = {"redis": REDIS, "redis_prefix": prefix, "rate_signin_failures": "2/day"}
    one, two = make_client(**settings), make_client(**settings)
    sign_up(one)
    one.cookies.clear()
    for client in (one, two):
        r = client.post("/api/account/signin", json={"handle": "ada", "password": "x" * 9})
        assert r.status_code == 401
    for client in (one, two):
        r = client.post("/api/account/signin", json={"handle": "ada", "password": PASSWORD})
        assert r.status_code == 429 and r.json()["code"] == "locked_out"


@pytest.mark.parametrize(
    "credential",
    [
        {},
        {"id": 5, "response": []},
        {"id": "x", "response": {"userHandle": 7}},
        {"id": "x", "rawId": "x", "type": "public-key", "response": {"clientDataJSON": "%%"}},
    ],
)
def test_a_malformed_passkey_response_is_refused_in_one_line(
    client: TestClient, credential: dict[str, Any]
) -> None:
    key = SoftKey()
    passkey_sign_up(client, key)
    client.cookies.clear()
    ceremony, _ = passkey_begin(client)
    r = passkey_finish(client, ceremony, credential)
    assert r.status_code == 401 and "\n" not in r.json()["detail"]
    begin = client.post(
        "/api/account/passkeys/register/begin", json={"handle": "lea", "display_name": "Lea"}
    ).json()
    r = client.post(
        "/api/account/passkeys/register/finish",
        json={"ceremony": begin["ceremony"], "credential": credential},
    )
    assert r.status_code == 400 and "\n" not in r.json()["detail"]


def test_a_passkey_account_adds_a_password_and_changing_it_needs_the_current(
    client: TestClient,
) -> None:
    body = passkey_sign_up(client, SoftKey())
    r = client.post("/api/account/password", json={"password": PASSWORD}, headers=csrf(body))
    assert r.status_code == 204
    assert me(client)["account"]["password"] is True
    for wrong in ({}, {"current": "not it at all"}):
        r = client.post(
            "/api/account/password", json={"password": "x" * 12, **wrong}, headers=csrf(body)
        )
        assert r.status_code == 401 and r.json()["code"] == "signin_failed"
    r = client.post("/api/account/password", json={"password": "y" * 12}, headers={})
    assert r.status_code == 403  # no CSRF token
    client.cookies.clear()
    r = client.post("/api/account/signin", json={"handle": "kim", "password": PASSWORD})
    assert r.status_code == 200
