"""Accounts in Chromium (docs/accounts.md): passkeys through Chromium's virtual WebAuthn
authenticator (DevTools protocol), a seat that follows its account to a second browser, a guest
who claims their seat by signing up, password sign-in and sign-out, CSRF and a stolen cookie
refused, and the account pages in German.

Passkeys need a domain (an IP address cannot be a WebAuthn relying party), so these tests use
the server as ``http://localhost:PORT``; ``http://127.0.0.1:PORT`` is then another origin.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from playwright.sync_api import Browser, BrowserContext, CDPSession, Page
from test_web_i18n import PAGE_WORDS, english_fragments
from webplay import api_game, api_play, ids_of, play_turn, wait_turn_or_end
from webserver import DESKTOP, Server, free_port, shot

PASSWORD = "elephants of Kerala"


def local(server: Server) -> str:
    return server.url.replace("127.0.0.1", "localhost")


def authenticator(context: BrowserContext, page: Page) -> tuple[CDPSession, str]:
    """A virtual platform authenticator for ``page`` (a passkey store with user verification)."""
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    added = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return cdp, str(added["authenticatorId"])


def me(page: Page, base: str) -> dict[str, Any]:
    r = page.request.get(f"{base}/api/account")
    assert r.ok
    body: dict[str, Any] = json.loads(r.text())
    return body


def new_page(browser: Browser, locale: str = "en-US") -> tuple[BrowserContext, Page]:
    ctx = browser.new_context(viewport=DESKTOP, locale=locale)
    ctx.set_default_timeout(20000)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    setattr(page, "js_errors", errors)  # noqa: B010 (checked at the end of each test)
    return ctx, page


def no_js_errors(*pages: Page) -> None:
    for p in pages:
        assert getattr(p, "js_errors") == [], getattr(p, "js_errors")  # noqa: B009


def password_sign_up(page: Page, base: str, handle: str, name: str) -> None:
    page.goto(f"{base}/#/account")
    page.fill("#signup-handle", handle)
    page.fill("#signup-name", name)
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-submit")
    page.wait_for_selector("#whoami")


def test_passkey_account_plays_on_and_moves_from_a_second_browser(
    server: Server, browser: Browser
) -> None:
    base = local(server)
    ctx1, laptop = new_page(browser)
    ctx2, phone = new_page(browser)
    try:
        cdp1, auth1 = authenticator(ctx1, laptop)
        laptop.goto(f"{base}/#/account")
        laptop.fill("#signup-handle", "kim")
        laptop.fill("#signup-name", "Kim")
        laptop.click("#signup-passkey")
        laptop.wait_for_selector("#whoami")
        assert "Kim (@kim)" in laptop.inner_text("#whoami")
        assert laptop.inner_text("#account-link") == "Kim"
        laptop.fill("#new-password", PASSWORD)  # a password as the fallback
        laptop.click("#password-submit")
        laptop.wait_for_selector("#password #current-password")
        assert me(laptop, base)["account"]["password"] is True
        (credential,) = cdp1.send("WebAuthn.getCredentials", {"authenticatorId": auth1})[
            "credentials"
        ]
        assert credential["isResidentCredential"] and credential["rpId"] == "localhost"

        # A game against a friend (a guest who plays by invite link, over the API here).
        r = laptop.request.post(
            f"{base}/api/games",
            data={
                "seats": [
                    {"name": "Kim", "color": "blue", "kind": "human"},
                    {"name": "Friend", "color": "red", "kind": "human"},
                ],
                "first": 0,
            },
        )
        assert r.status == 201, r.text()
        created = json.loads(r.text())
        gid = created["id"]
        friend = next(i["token"] for i in created["invites"] if i["seat"] == 1)
        kim_path = next(i["path"] for i in created["invites"] if i["seat"] == 0)

        laptop.goto(base + kim_path)  # signed in: the seat is now held by the account
        used: set[str] = set()
        assert not wait_turn_or_end(laptop)
        play_turn(laptop, used)
        g = api_play(laptop, base, gid, friend, lambda g: g["to_move"] == 0)
        assert g["status"] == "playing"

        # The same passkey on a second device (as a synced passkey would be).
        cdp2, auth2 = authenticator(ctx2, phone)
        cdp2.send("WebAuthn.addCredential", {"authenticatorId": auth2, "credential": credential})
        phone.goto(f"{base}/#/account")
        phone.click("#signin-passkey")
        phone.wait_for_selector("#whoami")
        phone.click("#my-games-link")
        mine = phone.locator(f'[data-game="{gid}"][data-group="your_turn"] a')
        assert "Friend" in mine.inner_text()
        mine.click()
        phone.wait_for_url(f"**/?game={gid}&seat=0")
        assert ids_of(phone)[1] is not None  # the seat's token came from the account
        before = g["decision_number"]
        assert not wait_turn_or_end(phone)
        play_turn(phone, used)
        after = api_game(phone, base, gid, friend)
        assert after["decision_number"] > before
        shot(phone, "account-second-device", full_page=False)
        no_js_errors(laptop, phone)
    finally:
        ctx1.close()
        ctx2.close()


def test_a_guest_plays_signs_up_and_finds_the_finished_game_in_my_games(
    server: Server, browser: Browser
) -> None:
    base = local(server)
    ctx, page = new_page(browser)
    try:
        page.goto(f"{base}/")
        page.click("#quick-play")
        page.wait_for_selector("#game")
        gid, token = ids_of(page)
        assert token is not None
        game = api_game(page, base, gid, token)
        assert game["players"][game["seat"]]["name"] == "Player 1"  # never "You"
        page.goto(f"{base}/?game={gid}")  # back from the game list: the tab's seat, not a watcher
        page.wait_for_url(f"**/?game={gid}&seat={game['seat']}")
        page.wait_for_selector("#game")
        assert api_play(page, base, gid, token, lambda g: False, timeout=120)["status"] == "over"

        password_sign_up(page, base, "guest1", "Guest One")  # the same tab: its seats
        page.wait_for_selector("#toasts .toast.info")
        assert "1 seat" in page.inner_text("#toasts")
        page.click("#my-games-link")
        finished = page.locator(f'#games-finished [data-game="{gid}"]')
        finished.wait_for()
        text = finished.inner_text()
        assert "won" in text or "place" in text
        # A game against a bot is rated by default: the claimed seat moved the new rating.
        page.click("#my-profile")
        page.wait_for_function(
            "() => (document.querySelector('#rating-2p') || {}).textContent?.includes(': 1')"
        )
        assert page.locator("#plot-2p circle").count() == 1
        assert "?" in page.inner_text("#rating-2p .rating")  # provisional after one game
        assert page.locator(f'#recent a[href="#/replay?game={gid}"]').count() == 1
        # The leaderboard lists settled ratings only: once the uncertainty is below the
        # provisional bound (as after about ten games; set in the database here), the rating this
        # game gave is on the 2-player board, with the number the profile shows, and links back.
        shown = page.inner_text("#rating-2p .rating").rstrip("?")
        settle_uncertainty(server, "guest1", "2p")
        page.goto(f"{base}/#/leaderboard?group=2p")
        row = page.locator("#leaderboard tr", has_text="Guest One")
        row.wait_for()
        assert shown in row.inner_text() and "?" not in row.inner_text()
        row.locator('a[href="#/player/guest1"]').click()
        page.wait_for_selector("#rating-2p")
        assert page.inner_text("#rating-2p .rating") == shown
        no_js_errors(page)
    finally:
        ctx.close()


def settle_uncertainty(server: Server, handle: str, group: str) -> None:
    """Make an account's rating in ``group`` settled (sigma below the provisional bound),
    keeping its mean: what many more games would do, without playing them."""
    engine = sa.create_engine(server.db_url)
    try:
        with engine.begin() as conn:
            account = conn.execute(
                sa.text("SELECT id FROM accounts WHERE handle_key = :h"), {"h": handle}
            ).scalar_one()
            done = conn.execute(
                sa.text("UPDATE ratings SET sigma = 4.0 WHERE account_id = :a AND grp = :g"),
                {"a": account, "g": group},
            )
            assert done.rowcount == 1
    finally:
        engine.dispose()


def test_password_sign_in_sign_out_and_the_refusals(server: Server, browser: Browser) -> None:
    base = local(server)
    ctx, page = new_page(browser)
    thief_ctx, thief = new_page(browser)
    other_ctx, other = new_page(browser)
    try:
        password_sign_up(page, base, "pat", "Pat")
        stolen = ctx.cookies()
        assert any(c["name"] == "kerala_session" and c["httpOnly"] for c in stolen)
        assert page.evaluate("document.cookie") == ""  # HttpOnly: no script reads it

        # A change without the session's CSRF token, from this very origin: refused.
        status = page.evaluate(
            "fetch('/api/account/signout', {method: 'POST'}).then(r => r.status)"
        )
        assert status == 403
        # A page of another origin (127.0.0.1 is not localhost) posts a form to the account.
        evil = f"{server.url}/evil.html"
        other.route(
            evil,
            lambda route: route.fulfill(
                content_type="text/html",
                body=f'<form method="post" action="{base}/api/account/signout"></form>'
                "<script>document.forms[0].submit()</script>",
            ),
        )
        other.goto(evil)
        other.wait_for_url(f"{base}/api/account/signout")
        refusal = json.loads(other.inner_text("body"))
        assert refusal["code"] in {"csrf", "not_signed_in"}, refusal
        assert me(page, base)["signed_in"] is True

        page.click("#signout")
        page.wait_for_selector("#signin")
        assert page.inner_text("#account-link") == "Sign in"
        thief_ctx.add_cookies(  # the cookie copied before signing out
            [{"name": c["name"], "value": c["value"], "url": base} for c in stolen]
        )
        assert me(thief, base)["signed_in"] is False

        page.fill("#signin-handle", "pat")
        page.fill("#signin-password", "not the password")
        page.click("#signin-submit")
        page.wait_for_selector("#toasts .toast.error")
        assert "wrong handle or password" in page.inner_text("#toasts")
        assert me(page, base)["signed_in"] is False

        page.fill("#signin-password", PASSWORD)
        page.click("#signin-submit")
        page.wait_for_selector("#whoami")
        assert me(page, base)["account"]["handle"] == "pat"
        no_js_errors(page, other)
    finally:
        for c in (ctx, thief_ctx, other_ctx):
            c.close()


def test_the_account_pages_in_german_show_no_english(server: Server, browser: Browser) -> None:
    base = local(server)
    ctx, page = new_page(browser, locale="de-DE")
    try:
        english = english_fragments()

        def no_english(name: str, path: str, ready: str) -> None:
            page.goto(base + path)
            page.wait_for_selector(ready)
            assert page.get_attribute("html", "lang") == "de"
            text = page.evaluate(PAGE_WORDS)
            found = sorted(f for f in english if f in text)
            assert found == [], f"English on the {name} page: {found}"

        no_english("signed-out account", "/#/account", "#signup")
        no_english("signed-out games", "/#/games", "#games-signin")
        password_sign_up(page, base, "grete", "Grete")
        no_english("signed-in account", "/#/account", "#whoami")
        r = page.request.post(
            f"{base}/api/games",
            data={"seats": [{"name": "Grete", "color": "blue"}, {"name": "Hans", "color": "red"}]},
        )
        created = json.loads(r.text())
        page.goto(base + created["invites"][0]["path"])
        page.wait_for_selector("#game")
        no_english("my games", "/#/games", "#games-running, #games-your_turn")
        no_english("profile", "/#/player/grete", "#rating-2p")
        no_english("leaderboard", "/#/leaderboard", "#leaderboard-empty, #leaderboard")
        assert page.inner_text("#my-games-link") == "Meine Partien"
        no_js_errors(page)
    finally:
        ctx.close()


def test_download_my_data_and_delete_the_account(server: Server, browser: Browser) -> None:
    base = local(server)
    ctx, page = new_page(browser)
    try:
        password_sign_up(page, base, "dora", "Dora")
        r = page.request.post(
            f"{base}/api/games",
            data={"seats": [{"name": "Dora", "color": "blue"}, {"name": "Emil", "color": "red"}]},
        )
        created = json.loads(r.text())
        gid = created["id"]
        page.goto(base + created["invites"][0]["path"])  # held by the account from here
        page.wait_for_selector("#game")
        page.goto(f"{base}/#/account")
        with page.expect_download() as d:
            page.click("#export")
        doc = json.loads(Path(d.value.path()).read_text(encoding="utf-8"))
        assert doc["account"]["handle"] == "dora"
        assert [g["id"] for g in doc["games"]] == [gid]

        page.fill("#delete-handle", "DORA")
        page.click("#delete-account")
        page.wait_for_selector("#signup")
        assert me(page, base)["signed_in"] is False
        game = api_game(page, base, gid, None)
        assert [p["name"] for p in game["players"]] == ["deleted player", "Emil"]
        no_js_errors(page)
    finally:
        ctx.close()


def test_the_setup_says_whether_a_game_is_rated(server: Server, browser: Browser) -> None:
    base = local(server)
    ctx, page = new_page(browser)
    try:
        page.goto(f"{base}/")
        box = page.locator("#rated")
        assert box.is_checked()  # one person against a bot: rated by default
        box.uncheck()
        page.click("#create")
        page.wait_for_selector("#created")
        watch = page.input_value("#watch-link")
        gid = watch.split("game=")[1].split("&")[0]
        r = page.request.get(f"{base}/api/games/{gid}")
        assert json.loads(r.text())["rated"] is False
        # Shown to all: the game's status line, and the lobby's listing of an open game.
        page.goto(watch)
        mark = page.locator("#rated-mark")
        mark.wait_for()
        assert mark.inner_text() == "Casual" and mark.get_attribute("data-rated") == "false"
        seats = [{"name": "Ada", "color": "blue"}, {"color": "red", "kind": "open"}]
        r = page.request.post(f"{base}/api/games", data={"seats": seats, "rated": True})
        assert r.ok, r.text()
        open_id = json.loads(r.text())["id"]
        page.goto(f"{base}/#/lobby")
        listed = page.locator(f'.lobby-game[data-game="{open_id}"] .rated')
        listed.wait_for()
        assert listed.inner_text() == "rated"
        no_js_errors(page)
    finally:
        ctx.close()


def test_the_account_page_sets_correspondence_email(tmp_path: Path, browser: Browser) -> None:
    """Offered only when the server sends e-mail; the address and the opt-in are saved; then
    a correspondence game sends the player one e-mail (received by aiosmtpd) when it becomes
    their turn, with the link to the game."""
    from email import message_from_bytes
    from email.policy import default

    from aiosmtpd.controller import Controller

    received: list[Any] = []

    class Inbox:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            received.append(message_from_bytes(envelope.content, policy=default))
            return "250 OK"

    port = free_port()
    smtp = Controller(Inbox(), hostname="127.0.0.1", port=port)
    smtp.start()
    srv = Server(tmp_path / "mail.sqlite3")
    site = local(srv)  # the address the page is opened at is the public one
    srv.extra_env.update(
        {
            "KERALA_SMTP_URL": f"smtp://127.0.0.1:{port}",
            "KERALA_PUBLIC_URL": site,
            "KERALA_MAIL_CHECK": "0.2",
        }
    )
    srv.start()
    ctx, page = new_page(browser)
    try:
        password_sign_up(page, site, "mira", "Mira")
        page.wait_for_selector("#mail:not([hidden])")
        page.fill("#mail-address", "mira@example.com")
        page.check("#mail-notify")
        page.click("#mail-save")
        page.wait_for_selector("#toasts .toast.info")
        got = page.evaluate("fetch('/api/account/email').then(r => r.json())")
        assert got == {"offered": True, "email": "mira@example.com", "notify": True}
        # A correspondence game against Bo, who holds the bag first; Mira opens her seat
        # (signed in: the account holds it) and leaves; Bo plays until it is her turn.
        r = page.request.post(
            f"{site}/api/games",
            data={
                "seats": [{"name": "Mira", "color": "blue"}, {"name": "Bo", "color": "red"}],
                "first": 1,
                "clock": {"kind": "correspondence", "hours": 24},
            },
        )
        created = json.loads(r.text())
        gid = created["id"]
        mira = next(i for i in created["invites"] if i["name"] == "Mira")
        bo = next(i for i in created["invites"] if i["name"] == "Bo")
        page.goto(site + mira["path"])
        page.wait_for_selector("#game")
        page.goto(site + "/#/games")
        page.wait_for_selector(f'[data-game="{gid}"]')
        while True:
            g = api_game(page, site, gid, bo["token"])
            if g["to_move"] == mira["seat"]:
                break
            legal = [d for d in g["legal"] if "take" in d and ":move-" not in d["take"]]
            page.request.post(
                f"{site}/api/games/{gid}/decisions",
                data={"decision": (legal or g["legal"])[0], "expected": g["decision_number"]},
                headers={"Authorization": f"Bearer {bo['token']}"},
            )
        deadline = time.monotonic() + 30
        while not received:
            assert time.monotonic() < deadline, "no e-mail arrived"
            page.wait_for_timeout(100)
        (mail,) = received
        assert mail["To"] == "mira@example.com"
        assert f"{site}/?game={gid}" in mail.get_content()
        no_js_errors(page)
    finally:
        ctx.close()
        srv.stop()
        smtp.stop()
