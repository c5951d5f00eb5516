"""The account service: sign-up, sign-in (password or passkey), sessions, the seats an account
holds, its games, its data, and deleting it (docs/accounts.md). No HTTP here: the routes
(:mod:`kerala.server.routes.accounts`) hand it what they read from requests, and it raises the
domain errors of :mod:`kerala.server.domain`.

Passwords are hashed with Argon2id (``argon2-cffi``); passkeys are checked by the ``webauthn``
package (py_webauthn). A session is a random secret in a cookie, stored only as its SHA-256 hash
beside the account it signs in and a CSRF token of its own, so that signing out deletes it
everywhere at once.

>>> clean_handle(" Ｊｏ_de ")  # NFKC folds full-width letters
('Jo_de', 'jo_de')
>>> clean_handle("a b")
Traceback (most recent call last):
...
kerala.server.accounts.BadHandle: a handle has letters, digits, '_', '-' and '.' only, not " "...
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import hmac
import json
import secrets
import unicodedata
from dataclasses import dataclass
from typing import Any

import webauthn
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from kerala.clocks import Clock
from kerala.names import BadName, clean_name
from kerala.notation import write_record
from kerala.server.accountrepo import Account, AccountRepository, Challenge, HeldGame, Passkey
from kerala.server.domain import (
    CeremonyFailed,
    Conflict,
    GameNotFound,
    HandleTaken,
    InvalidRequest,
    NotSignedIn,
    SignInFailed,
)
from kerala.server.mail import MailRepository
from kerala.server.ratingservice import RatingService
from kerala.server.service import GameService
from kerala.server.settings import Settings

#: Shortest and longest handle, in characters after normalisation.
HANDLE_MIN, HANDLE_MAX = 3, 24
#: Shortest and longest password: Argon2 costs the same for any length, but a huge password
#: still has to be read and hashed (the request body limit bounds it too).
PASSWORD_MIN, PASSWORD_MAX = 8, 256
#: The name a deleted account's seats get in every game it played.
DELETED_NAME = "deleted player"
#: The characters a handle may have besides letters and digits (of any script).
HANDLE_EXTRA = "_-."


class BadHandle(BadName):
    """A handle that cannot be used; the message says why and where."""


def clean_handle(text: str) -> tuple[str, str]:
    """``text`` as a handle, and the key that makes handles unique: the handle in Unicode
    normal form NFKC (full-width and compatibility forms folded) and that casefolded.
    :class:`BadHandle` (a ``ValueError``) if it cannot be one."""
    name = clean_name(text)  # controls, format and bidi characters refused; NFC; trimmed
    handle = unicodedata.normalize("NFKC", name)
    for i, c in enumerate(handle):
        if not (c.isalnum() or c in HANDLE_EXTRA):
            raise BadHandle(
                f"a handle has letters, digits, '_', '-' and '.' only, not {json.dumps(c)}"
                f" at character {i + 1}"
            )
    if not HANDLE_MIN <= len(handle) <= HANDLE_MAX:
        raise BadHandle(
            f"a handle has {HANDLE_MIN} to {HANDLE_MAX} characters, this one has {len(handle)}"
        )
    return handle, unicodedata.normalize("NFKC", handle.casefold())


def clean_display_name(text: str) -> str:
    """A display name: a player name (:func:`kerala.names.clean_name`)."""
    return clean_name(text)


def _response(credential: dict[str, Any]) -> dict[str, Any]:
    """The ``response`` part of a credential from outside (``{}`` if it is not an object)."""
    response = credential.get("response")
    return response if isinstance(response, dict) else {}


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Site:
    """Where a passkey ceremony happens: the relying party id (a domain) and the origin the
    browser reports (``https://kerala.example``)."""

    rp_id: str
    origin: str


@dataclass(frozen=True)
class SignedIn:
    """A new session: the account, the cookie's secret (shown once) and its CSRF token."""

    account: Account
    cookie: str
    csrf: str


@dataclass(frozen=True)
class Current:
    """The account of a request's session, and that session's CSRF token and cookie."""

    account: Account
    csrf: str
    cookie: str


class AccountService:
    """Accounts, their sessions, passkeys and seats."""

    def __init__(
        self,
        repo: AccountRepository,
        games: GameService,
        settings: Settings,
        ratings: RatingService | None = None,
        mail: MailRepository | None = None,
    ) -> None:
        self.repo = repo
        self.games = games
        self.settings = settings
        self.ratings = ratings
        self.mail = mail
        self.hasher = PasswordHasher()  # Argon2id with RFC 9106's low-memory parameters

    @functools.cached_property
    def _dummy_hash(self) -> str:
        """Checked against when the handle is unknown, so that a wrong handle costs as long
        as a wrong password (no account probing by timing). Made at the first sign-in, not
        when the app is built (a hash takes tens of milliseconds and 64 MiB)."""
        return self.hasher.hash(secrets.token_urlsafe(16))

    def now(self) -> dt.datetime:
        return self.games.now()

    # -- accounts and passwords -------------------------------------------------------

    @staticmethod
    def handle_key(handle: str) -> str | None:
        """The uniqueness key of ``handle``; ``None`` if it cannot be a handle."""
        try:
            return clean_handle(handle)[1]
        except BadName:
            return None

    def _new_account(self, handle: str, display_name: str, password: str | None) -> Account:
        try:
            h, key = clean_handle(handle)
        except BadName as e:
            raise InvalidRequest(f"handle: {e}") from None
        try:
            name = clean_display_name(display_name)
        except BadName as e:
            raise InvalidRequest(f"display_name: {e}") from None
        if password is not None and not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
            raise InvalidRequest(
                f"password: a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters"
            )
        return Account(
            id=secrets.token_urlsafe(16),
            handle=h,
            handle_key=key,
            display_name=name,
            password_hash=None if password is None else self.hasher.hash(password),
            created_at=self.now(),
        )

    def _store_account(self, account: Account) -> None:
        if not self.repo.insert_account(account):
            raise HandleTaken(f"the handle {json.dumps(account.handle)} is taken")

    def sign_up(
        self, handle: str, display_name: str, password: str, replaces: str | None
    ) -> SignedIn:
        """A new account with a password, signed in."""
        account = self._new_account(handle, display_name, password)
        self._store_account(account)
        return self._session(account, replaces)

    def sign_in(self, handle: str, password: str, replaces: str | None) -> SignedIn:
        """Sign in with handle and password: a new session (the browser's old one ends)."""
        key = self.handle_key(handle)
        account = None if key is None else self.repo.account_by_key(key)
        stored = account.password_hash if account is not None else None
        try:
            self.hasher.verify(stored or self._dummy_hash, password)
        except (VerificationError, InvalidHashError):
            raise SignInFailed("wrong handle or password") from None
        if account is None or stored is None:
            raise SignInFailed("wrong handle or password")
        if self.hasher.check_needs_rehash(stored):
            self.repo.set_password_hash(account.id, self.hasher.hash(password))
        return self._session(account, replaces)

    def set_password(self, account: Account, password: str, current: str | None) -> None:
        """Set the account's password (a passkey-only account adds one as a fallback); an
        account with a password must give it (``current``) to change it."""
        if account.password_hash is not None:
            try:
                self.hasher.verify(account.password_hash, current or "")
            except (VerificationError, InvalidHashError):
                raise SignInFailed("the current password is wrong") from None
        if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
            raise InvalidRequest(
                f"password: a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters"
            )
        self.repo.set_password_hash(account.id, self.hasher.hash(password))

    # -- sessions ----------------------------------------------------------------------

    def _session(self, account: Account, replaces: str | None) -> SignedIn:
        """A new session for ``account``; the browser's previous one (its cookie
        ``replaces``) is deleted: the session id changes at every sign-in."""
        cookie = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        now = self.now()
        self.repo.purge(now)  # expired sessions and challenges go at each sign-in
        self.repo.insert_session(
            _hash(cookie),
            account.id,
            csrf,
            now,
            now + dt.timedelta(days=self.settings.session_days),
            replaces=None if replaces is None else _hash(replaces),
        )
        return SignedIn(account, cookie, csrf)

    def current(self, cookie: str | None) -> Current | None:
        """The account a session cookie signs in, or ``None``."""
        if not cookie:
            return None
        found = self.repo.session(_hash(cookie), self.now())
        if found is None:
            return None
        return Current(found[0], found[1], cookie)

    def require(self, cookie: str | None) -> Current:
        current = self.current(cookie)
        if current is None:
            raise NotSignedIn("you are not signed in (or your session ended): sign in")
        return current

    def sign_out(self, cookie: str) -> None:
        self.repo.delete_session(_hash(cookie))

    def sign_out_everywhere(self, account: Account) -> int:
        return self.repo.delete_sessions(account.id)

    def purge(self) -> None:
        self.repo.purge(self.now())

    # -- passkeys ----------------------------------------------------------------------

    def _challenge(
        self, kind: str, challenge: bytes, account_id: str | None, data: dict[str, Any]
    ) -> str:
        ceremony = secrets.token_urlsafe(24)
        self.repo.insert_challenge(
            Challenge(
                id=ceremony,
                kind=kind,
                challenge=bytes_to_base64url(challenge),
                account_id=account_id,
                data=data,
                expires_at=self.now() + dt.timedelta(seconds=self.settings.webauthn_timeout),
            )
        )
        return ceremony

    def _take(self, ceremony: str, kind: str) -> Challenge:
        c = self.repo.take_challenge(ceremony, kind, self.now())
        if c is None:
            raise CeremonyFailed(
                "this passkey ceremony is unknown, expired or already used: start again"
            )
        return c

    def register_begin(
        self, site: Site, current: Account | None, handle: str | None, display_name: str | None
    ) -> tuple[str, dict[str, Any]]:
        """Start making a passkey: for the signed-in ``current`` account, or for a new account
        (``handle`` and ``display_name``, checked now, taken at the end). Returns the
        ceremony's id and the options for ``navigator.credentials.create``."""
        data: dict[str, Any] = {}
        exclude: list[PublicKeyCredentialDescriptor] = []
        if current is not None:
            account = current
            exclude = [
                PublicKeyCredentialDescriptor(id=webauthn.base64url_to_bytes(p.id))
                for p in self.repo.passkeys_of(account.id)
            ]
        else:
            if handle is None or display_name is None:
                raise InvalidRequest("a new account needs a handle and a display_name")
            account = self._new_account(handle, display_name, None)
            if self.repo.account_by_key(account.handle_key) is not None:
                raise HandleTaken(f"the handle {json.dumps(account.handle)} is taken")
            data = {
                "id": account.id,
                "handle": account.handle,
                "handle_key": account.handle_key,
                "display_name": account.display_name,
            }
        options = webauthn.generate_registration_options(
            rp_id=site.rp_id,
            rp_name=self.settings.webauthn_rp_name,
            user_id=account.id.encode(),
            user_name=account.handle,
            user_display_name=account.display_name,
            timeout=int(self.settings.webauthn_timeout * 1000),
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.REQUIRED,
            ),
            exclude_credentials=exclude,
        )
        ceremony = self._challenge(
            "register", options.challenge, None if current is None else current.id, data
        )
        return ceremony, json.loads(webauthn.options_to_json(options))

    def register_finish(
        self, site: Site, ceremony: str, credential: dict[str, Any], replaces: str | None
    ) -> tuple[Account, SignedIn | None]:
        """Check the new passkey and keep it; a sign-up also makes the account and signs in."""
        c = self._take(ceremony, "register")
        try:
            verified = webauthn.verify_registration_response(
                credential=credential,
                expected_challenge=webauthn.base64url_to_bytes(c.challenge),
                expected_rp_id=site.rp_id,
                expected_origin=site.origin,
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as e:
            raise CeremonyFailed(f"the passkey was refused: {e}") from None
        if c.account_id is not None:
            found = self.repo.account(c.account_id)
            if found is None:
                raise NotSignedIn("the account this passkey was for is gone")
            account, signed = found, None
        else:
            d = c.data
            account = Account(
                d["id"], d["handle"], d["handle_key"], d["display_name"], None, self.now()
            )
            self._store_account(account)
            signed = self._session(account, replaces)
        transports = _response(credential).get("transports") or []
        stored = self.repo.insert_passkey(
            Passkey(
                id=bytes_to_base64url(verified.credential_id),
                account_id=account.id,
                public_key=verified.credential_public_key,
                sign_count=verified.sign_count,
                transports=[str(t) for t in transports][:8] if isinstance(transports, list) else [],
                created_at=self.now(),
                last_used_at=None,
            )
        )
        if not stored:
            raise CeremonyFailed("this passkey is registered already")
        return account, signed

    def signin_begin(self, site: Site) -> tuple[str, dict[str, Any]]:
        """Start a passkey sign-in (any passkey of this site: the browser lets the person
        pick); the ceremony's id and the options for ``navigator.credentials.get``."""
        options = webauthn.generate_authentication_options(
            rp_id=site.rp_id,
            timeout=int(self.settings.webauthn_timeout * 1000),
            user_verification=UserVerificationRequirement.REQUIRED,
        )
        ceremony = self._challenge("signin", options.challenge, None, {})
        return ceremony, json.loads(webauthn.options_to_json(options))

    def signin_finish(
        self, site: Site, ceremony: str, credential: dict[str, Any], replaces: str | None
    ) -> SignedIn:
        """Check a passkey's assertion against the ceremony's challenge (used up by this
        call, whatever the outcome) and sign its account in."""
        c = self._take(ceremony, "signin")
        cred_id = credential.get("id")
        passkey = self.repo.passkey(cred_id) if isinstance(cred_id, str) else None
        if passkey is None:
            raise SignInFailed("this passkey is not known here")
        user_handle = _response(credential).get("userHandle")
        if user_handle and user_handle != bytes_to_base64url(passkey.account_id.encode()):
            raise SignInFailed("this passkey belongs to another account")
        try:
            verified = webauthn.verify_authentication_response(
                credential=credential,
                expected_challenge=webauthn.base64url_to_bytes(c.challenge),
                expected_rp_id=site.rp_id,
                expected_origin=site.origin,
                credential_public_key=passkey.public_key,
                credential_current_sign_count=passkey.sign_count,
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as e:
            raise SignInFailed(f"the passkey was refused: {e}") from None
        if not self.repo.passkey_used(
            passkey.id, passkey.sign_count, verified.new_sign_count, self.now()
        ):
            raise SignInFailed("this passkey was used at the same time elsewhere: try again")
        account = self.repo.account(passkey.account_id)
        if account is None:
            raise SignInFailed("this passkey's account is gone")
        return self._session(account, replaces)

    # -- seats and games ---------------------------------------------------------------

    def hold(self, account: Account, game_id: str, seat: int, token: str) -> None:
        """Let the account hold the seat its ``token`` plays (an invite link's, a tab's): the
        game then opens as that seat wherever the account is signed in. Refused if the token
        is not that seat's, or another account holds the seat (the token still plays it)."""
        _, plays = self.games.get(game_id, token)  # BadToken if it is none of the game's
        if plays != seat:
            raise InvalidRequest(f"this token plays seat {plays}, not seat {seat}")
        owner = self.repo.hold_seat(account.id, game_id, seat, token, self.now())
        if owner != account.id:
            raise Conflict(f"another account holds seat {seat} of this game")

    def seats_in(self, account: Account, game_id: str) -> list[dict[str, Any]]:
        """The seats the account holds in the game, with their tokens (for its browsers)."""
        held = self.repo.held_seats(account.id, game_id)
        if not held and self.games.repo.event_count(game_id) is None:
            raise GameNotFound(game_id)
        return [{"seat": s, "token": t} for s, t in held]

    def seat_holders(self, game_id: str) -> dict[int, str]:
        """Seat -> id of the account that holds it, for the held seats of a game (what a
        rating of games between accounts is computed from)."""
        return self.repo.seat_holders(game_id)

    def account_by_handle(self, handle: str) -> Account | None:
        """The account with this handle (any case or width), or ``None``."""
        key = self.handle_key(handle)
        return None if key is None else self.repo.account_by_key(key)

    def my_games(self, account: Account, limit: int = 200) -> list[dict[str, Any]]:
        """The account's games: those where it is to move first, then the others under way
        (and open ones), then the finished; each with opponents, time left and result."""
        now = self.now()
        out = [self._game_entry(g, now) for g in self.repo.held_games(account.id, limit)]
        order = {"your_turn": 0, "running": 1, "finished": 2}
        out.sort(key=lambda e: (order[e["group"]], -e["_t"]))
        for e in out:
            del e["_t"]
        return out

    @staticmethod
    def _game_entry(g: HeldGame, now: dt.datetime) -> dict[str, Any]:
        info = g.game
        mine = [s for s in g.seats if s.seat in g.held]
        active = [s.seat for s in mine if not s.handed_to_bot]
        if info.status == "over":
            group = "finished"
        elif info.status == "playing" and info.to_move in active:
            group = "your_turn"
        else:
            group = "running"
        left: float | None = None
        if info.clock is not None and info.status == "playing":
            clock = Clock.from_store(info.clock, info.clock_since)
            running = info.to_move if info.clock_since is not None else None
            seat = g.held[0] if info.to_move not in g.held else info.to_move
            if seat is not None:
                left = round(clock.left(seat, running, now), 1)
        ranks = info.result["ranks"] if info.result is not None else None
        return {
            "id": info.id,
            "status": info.status,
            "group": group,
            "seats": g.held,
            "to_move": info.to_move,
            "players": [s.to_json() for s in g.seats],
            "opponents": [s.name for s in g.seats if s.seat not in g.held],
            "time_left": left,
            "ranks": ranks,
            "rank": None if ranks is None else min(ranks[s] for s in g.held),
            "decision_number": info.decision_count,
            "updated_at": info.updated_at.isoformat(),
            "_t": info.updated_at.timestamp(),
        }

    # -- the account's data ------------------------------------------------------------

    def public(self, account: Account) -> dict[str, Any]:
        """What the account's own browser is told about it."""
        return {
            "id": account.id,
            "handle": account.handle,
            "display_name": account.display_name,
            "password": account.password_hash is not None,
            "passkeys": len(self.repo.passkeys_of(account.id)),
            "created_at": account.created_at.isoformat(),
        }

    def export(self, account: Account) -> dict[str, Any]:
        """Everything stored about the account, and the records of its games, as JSON."""
        games = []
        for g in self.repo.held_games(account.id, 100_000):
            state, players = self.games.record_parts(g.game.id)
            clock, times = self.games.record_clock(g.game.id)
            games.append(
                {
                    "id": g.game.id,
                    "status": g.game.status,
                    "seats": g.held,
                    "record": write_record(state, players, clock=clock, times=times),
                }
            )
        return {
            "format": "kerala-account-export",
            "version": 1,
            # Ratings per group, their history and results (docs/ratings.md).
            "ratings": self.ratings.profile(account) if self.ratings is not None else None,
            # The e-mail address and opt-in, if any (docs/server.md, "E-mail").
            "email": self.mail.settings_of(account.id) if self.mail is not None else None,
            "exported_at": self.now().isoformat(),
            "account": {
                "id": account.id,
                "handle": account.handle,
                "display_name": account.display_name,
                "created_at": account.created_at.isoformat(),
                "password": "set (stored as an Argon2id hash only)"
                if account.password_hash is not None
                else "none",
            },
            "passkeys": [
                {
                    "id": p.id,
                    "created_at": p.created_at.isoformat(),
                    "last_used_at": None if p.last_used_at is None else p.last_used_at.isoformat(),
                    "sign_count": p.sign_count,
                }
                for p in self.repo.passkeys_of(account.id)
            ],
            "games": games,
        }

    def delete(self, account: Account, confirm_handle: str) -> list[str]:
        """Delete the account, its sessions, passkeys and held seats; its games stay, with
        its seats' names replaced by :data:`DELETED_NAME`. ``confirm_handle`` must be the
        handle (a click alone never deletes an account)."""
        if not hmac.compare_digest(
            (self.handle_key(confirm_handle) or "").encode(), account.handle_key.encode()
        ):
            raise InvalidRequest("to delete the account, type its handle")
        renamed = self.repo.delete_account(account.id, DELETED_NAME)
        for game_id in renamed:
            self.games.forget(game_id)  # this process shows the new names at once
        return renamed
