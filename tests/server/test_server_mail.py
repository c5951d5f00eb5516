"""Correspondence e-mail (docs/server.md, "E-mail"), received by a real SMTP server
(``aiosmtpd``): one digest when it becomes an opted-in player's turn, none more within the
digest time, an unsubscribe link that works, and nothing without ``KERALA_SMTP_URL``."""

from __future__ import annotations

import email.policy
import socket
import time
from collections.abc import Iterator
from email import message_from_bytes
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from fastapi.testclient import TestClient
from pydantic import ValidationError
from serverlib import AppFactory, auth, create, tokens_of
from test_server_accounts import csrf, sign_up

from kerala.server.settings import Settings

SITE = "http://kerala.test"


class Inbox:
    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content, policy=email.policy.default))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    controller.stop()


def wait(pred: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)


def move(client: TestClient, gid: str, token: str) -> None:
    me = client.get(f"/api/games/{gid}", headers=auth(token)).json()
    legal = [d for d in me["legal"] if "take" in d and ":move-" not in d["take"]] or me["legal"]
    r = client.post(
        f"/api/games/{gid}/decisions",
        json={"decision": legal[0], "expected": me["decision_number"]},
        headers=auth(token),
    )
    assert r.status_code == 200, r.text


def play_until_turn_of(client: TestClient, gid: str, tokens: dict[int, str], seat: int) -> None:
    while (g := client.get(f"/api/games/{gid}").json())["to_move"] != seat:
        move(client, gid, tokens[g["to_move"]])


def test_a_correspondence_turn_sends_one_digest_with_an_unsubscribe_link(
    make_client: AppFactory, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    client = make_client(
        smtp_url=f"smtp://127.0.0.1:{port}",
        public_url=SITE,
        mail_check=0.05,
        mail_digest=3600,
        mail_from="Kerala <games@kerala.test>",
    )
    body = sign_up(client)
    r = client.put(
        "/api/account/email",
        json={"email": "Ada@Example.com", "notify": True},
        headers=csrf(body),
    )
    assert r.status_code == 204, r.text
    assert client.get("/api/account/email").json() == {
        "offered": True,
        "email": "Ada@example.com",
        "notify": True,
    }
    created = create(client, first=1, clock={"kind": "correspondence", "hours": 24})
    gid, tokens = created["id"], tokens_of(created)
    ada = next(i["seat"] for i in created["invites"] if i["name"] == "Ada")
    # Held once the game is under way (a start seen by the mailer would be its own digest).
    play_until_turn_of(client, gid, tokens, ada)
    hold = {"game_id": gid, "seat": ada, "token": tokens[ada]}
    assert client.post("/api/account/seats", json=hold, headers=csrf(body)).status_code == 204
    wait(lambda: len(inbox.messages) == 1)
    (mail,) = inbox.messages
    assert mail["To"] == "Ada@example.com" and mail["From"] == "Kerala <games@kerala.test>"
    assert mail["Subject"] == "Kerala: your turn in 1 game(s)"
    text = mail.get_content()
    assert f"{SITE}/?game={gid}" in text
    unsubscribe = mail["List-Unsubscribe"].strip("<>")
    assert unsubscribe.startswith(f"{SITE}/api/account/unsubscribe?token=") and unsubscribe in text
    # The next turn is noticed, but waits for the digest: no second e-mail now.
    move(client, gid, tokens[ada])
    play_until_turn_of(client, gid, tokens, ada)
    repo = client.app.state.mail_repo  # type: ignore[attr-defined]
    wait(lambda: len(repo.due(repo_now(), 0)) == 1)  # noticed, not sent
    assert len(inbox.messages) == 1
    # One click on the link: no more e-mail.
    r = client.get(unsubscribe.removeprefix(SITE))
    assert r.status_code == 200 and "no more e-mail" in r.text
    assert client.get("/api/account/email").json()["notify"] is False
    assert client.get("/api/account/unsubscribe?token=not-a-token-at-all").status_code == 404


def repo_now() -> Any:
    import datetime as dt

    return dt.datetime.now(dt.UTC)


def test_no_smtp_no_email(client: TestClient) -> None:
    body = sign_up(client)
    r = client.put(
        "/api/account/email", json={"email": "ada@example.com", "notify": True}, headers=csrf(body)
    )
    assert r.status_code == 409 and "sends no e-mail" in r.json()["detail"]
    assert client.get("/api/account/email").json() == {
        "offered": False,
        "email": None,
        "notify": False,
    }


def test_a_bad_address_is_refused_in_one_line(
    make_client: AppFactory, smtp: tuple[Inbox, int]
) -> None:
    _, port = smtp
    client = make_client(smtp_url=f"smtp://127.0.0.1:{port}", public_url=SITE)
    body = sign_up(client)
    r = client.put(
        "/api/account/email", json={"email": "not an address", "notify": True}, headers=csrf(body)
    )
    assert r.status_code == 422 and r.json()["detail"].startswith("email: ")
    assert client.get("/api/account/email").json()["email"] is None


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"smtp_url": "http://mail.example"}, "starts with smtp:// or smtps://"),
        ({"smtp_url": "smtp://mail.example:99999", "public_url": SITE}, "port must be a number"),
        ({"smtp_url": "smtp://mail.example"}, "needs KERALA_PUBLIC_URL"),
    ],
)
def test_bad_mail_settings_are_refused(settings: dict[str, Any], words: str) -> None:
    with pytest.raises(ValidationError, match=words):
        Settings.model_validate(settings)


def test_what_a_seat_hears_of() -> None:
    """A game's start, each turn, a turn whose time runs low, and the end."""
    import datetime as dt
    from types import SimpleNamespace

    from kerala.server.mail import kinds_of

    now = dt.datetime.now(dt.UTC)
    day = {"kind": "correspondence", "hours": 24}

    def row(**kw: Any) -> Any:
        base = {"status": "playing", "decision_count": 5, "to_move": 0, "seat": 0}
        return SimpleNamespace(**{**base, "clock_deadline": now + dt.timedelta(hours=20), **kw})

    assert kinds_of(row(), day, now) == [("your_turn", 5)]
    assert kinds_of(row(to_move=1), day, now) == []
    assert kinds_of(row(decision_count=0, to_move=1), day, now) == [("started", -1)]
    low = row(clock_deadline=now + dt.timedelta(hours=4))
    assert kinds_of(low, day, now) == [("your_turn", 5), ("time_low", 5)]
    assert kinds_of(row(status="over"), day, now) == [("over", -1)]
