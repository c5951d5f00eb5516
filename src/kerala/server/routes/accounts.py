"""Account routes: sign up, sign in (password or passkey), sign out, the seats and games of an
account, its data, and deleting it (docs/accounts.md).

The session is the ``kerala_session`` cookie (HttpOnly, SameSite=Lax, Secure over HTTPS). Every
change a session makes passes the CSRF checks of :mod:`kerala.server.csrf`; sign-up and sign-in
pass their origin check. Sign-ins count against ``KERALA_RATE_SIGNIN`` per address and, when
they fail, against ``KERALA_RATE_SIGNIN_FAILURES`` per account (the lock-out).
"""

from __future__ import annotations

import json
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Header, Request, Response
from starlette.concurrency import run_in_threadpool

from kerala.server.accounts import AccountService, Current, SignedIn, Site
from kerala.server.csrf import check_origin, check_token, expected_origin
from kerala.server.domain import SignInFailed
from kerala.server.ratelimit import FailureCounter
from kerala.server.routes.deps import (
    AccountsDep,
    GameIdDep,
    SettingsDep,
    limiter_of,
    rate_limit,
)
from kerala.server.schemas import (
    ACCOUNT_ERRORS,
    AccountDelete,
    Ceremony,
    HeldSeats,
    Me,
    MyGames,
    PasskeyBegin,
    PasskeyFinish,
    PasswordSet,
    SeatHold,
    SignIn,
    SignUp,
)
from kerala.server.settings import Settings
from kerala.server.wire import dumpb

router = APIRouter(prefix="/api/account", tags=["accounts"])

#: The session cookie's name.
COOKIE = "kerala_session"
#: Longest session cookie looked up (ours are 43 characters).
MAX_COOKIE = 200


def _json(data: Any, status: int = 200) -> Response:
    # Account answers are private: no cache keeps them.
    return Response(
        dumpb(data),
        status_code=status,
        media_type="application/json",
        headers={"Cache-Control": "no-store"},
    )


def cookie_of(request: Request) -> str | None:
    value = request.cookies.get(COOKIE)
    return value if value and len(value) <= MAX_COOKIE else None


def site_of(request: Request, settings: Settings) -> Site:
    """The relying party of passkeys: the configured one, else this request's host."""
    origin = expected_origin(settings.public_url, request.headers.get("host"), request.url.scheme)
    rp_id = settings.webauthn_rp_id or urlsplit(origin).hostname or "localhost"
    return Site(rp_id=rp_id, origin=origin)


async def from_this_site(request: Request, settings: SettingsDep) -> None:
    """The origin check (Fetch Metadata and ``Origin``) of :mod:`kerala.server.csrf`."""
    check_origin(
        request.headers.get("sec-fetch-site"),
        request.headers.get("origin"),
        expected_origin(settings.public_url, request.headers.get("host"), request.url.scheme),
    )


async def current_session(request: Request, accounts: AccountsDep) -> Current | None:
    cookie = cookie_of(request)
    if cookie is None:
        return None
    return await run_in_threadpool(accounts.current, cookie)


CurrentDep = Annotated[Current | None, Depends(current_session)]


async def signed_in(current: CurrentDep, accounts: AccountsDep) -> Current:
    return accounts.require(None) if current is None else current


SignedInDep = Annotated[Current, Depends(signed_in)]


async def changing(
    current: SignedInDep,
    _: Annotated[None, Depends(from_this_site)],
    x_csrf_token: Annotated[str | None, Header(max_length=200)] = None,
) -> Current:
    """A change the session cookie authorises: both CSRF checks."""
    check_token(x_csrf_token, current.csrf)
    return current


ChangingDep = Annotated[Current, Depends(changing)]
FromThisSite = Depends(from_this_site)


def _set_cookie(response: Response, request: Request, settings: Settings, cookie: str) -> None:
    response.set_cookie(
        COOKIE,
        cookie,
        max_age=int(settings.session_days * 86400),
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def _clear_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
    )


async def _signed_in_answer(
    request: Request, accounts: AccountService, settings: Settings, signed: SignedIn, status: int
) -> Response:
    public = await run_in_threadpool(accounts.public, signed.account)
    response = _json({"signed_in": True, "account": public, "csrf": signed.csrf}, status)
    _set_cookie(response, request, settings, signed.cookie)
    return response


@router.get("", response_model=Me)
async def me(current: CurrentDep, accounts: AccountsDep) -> Response:
    """Who is signed in here, and the session's CSRF token (``signed_in: false``: nobody)."""
    if current is None:
        return _json({"signed_in": False, "account": None, "csrf": None})
    public = await run_in_threadpool(accounts.public, current.account)
    return _json({"signed_in": True, "account": public, "csrf": current.csrf})


@router.post(
    "/signup",
    status_code=201,
    response_model=Me,
    responses=ACCOUNT_ERRORS,
    dependencies=[rate_limit("signup"), FromThisSite],
)
async def sign_up(
    body: SignUp, request: Request, accounts: AccountsDep, settings: SettingsDep
) -> Response:
    """Make an account with a handle, a display name and a password; signed in at once."""
    signed = await run_in_threadpool(
        accounts.sign_up, body.handle, body.display_name, body.password, cookie_of(request)
    )
    return await _signed_in_answer(request, accounts, settings, signed, 201)


def _failures(request: Request) -> FailureCounter:
    return FailureCounter(limiter_of(request), "signin_failures")


@router.post(
    "/signin",
    response_model=Me,
    responses=ACCOUNT_ERRORS,
    dependencies=[rate_limit("signin"), FromThisSite],
)
async def sign_in(
    body: SignIn, request: Request, accounts: AccountsDep, settings: SettingsDep
) -> Response:
    """Sign in with handle and password: a new session id (the browser's old one ends).

    After ``KERALA_RATE_SIGNIN_FAILURES`` failures the account is locked for a while (429
    ``locked_out`` with ``Retry-After``), whatever the address."""
    failures = _failures(request)
    key = accounts.handle_key(body.handle) or json.dumps(body.handle)
    await failures.check(key)
    try:
        signed = await run_in_threadpool(
            accounts.sign_in, body.handle, body.password, cookie_of(request)
        )
    except SignInFailed:
        await failures.fail(key)
        raise
    await failures.clear(key)
    return await _signed_in_answer(request, accounts, settings, signed, 200)


@router.post("/signout", status_code=204, responses=ACCOUNT_ERRORS)
async def sign_out(request: Request, current: ChangingDep, accounts: AccountsDep) -> Response:
    """End this session: its cookie stops working everywhere at once."""
    await run_in_threadpool(accounts.sign_out, current.cookie)
    response = Response(status_code=204, headers={"Cache-Control": "no-store"})
    _clear_cookie(response, request)
    return response


@router.post("/signout-everywhere", status_code=204, responses=ACCOUNT_ERRORS)
async def sign_out_everywhere(
    request: Request, current: ChangingDep, accounts: AccountsDep
) -> Response:
    """End every session of the account, on every device."""
    await run_in_threadpool(accounts.sign_out_everywhere, current.account)
    response = Response(status_code=204, headers={"Cache-Control": "no-store"})
    _clear_cookie(response, request)
    return response


@router.post("/password", status_code=204, responses=ACCOUNT_ERRORS)
async def set_password(
    body: PasswordSet, request: Request, current: ChangingDep, accounts: AccountsDep
) -> Response:
    """Set a password (a passkey-only account adds one), or change it (``current`` needed).
    A wrong ``current`` counts as a failed sign-in of the account (the lock-out)."""
    failures = _failures(request)
    key = current.account.handle_key
    await failures.check(key)
    try:
        await run_in_threadpool(accounts.set_password, current.account, body.password, body.current)
    except SignInFailed:
        await failures.fail(key)
        raise
    return Response(status_code=204, headers={"Cache-Control": "no-store"})


# -- passkeys --------------------------------------------------------------------------


@router.post(
    "/passkeys/register/begin",
    response_model=Ceremony,
    responses=ACCOUNT_ERRORS,
    dependencies=[rate_limit("signup"), FromThisSite],
)
async def passkey_register_begin(
    request: Request,
    accounts: AccountsDep,
    settings: SettingsDep,
    current: CurrentDep,
    x_csrf_token: Annotated[str | None, Header(max_length=200)] = None,
    body: PasskeyBegin | None = None,
) -> Response:
    """Start making a passkey: signed in, for your account (with ``X-CSRF-Token``); else for a
    new account (``handle``, ``display_name``). Pass ``options`` to
    ``PublicKeyCredential.parseCreationOptionsFromJSON``."""
    body = body or PasskeyBegin(handle=None, display_name=None)
    if current is not None:
        check_token(x_csrf_token, current.csrf)
    ceremony, options = await run_in_threadpool(
        accounts.register_begin,
        site_of(request, settings),
        None if current is None else current.account,
        body.handle,
        body.display_name,
    )
    return _json({"ceremony": ceremony, "options": options})


@router.post(
    "/passkeys/register/finish",
    responses=ACCOUNT_ERRORS,
    dependencies=[FromThisSite],
)
async def passkey_register_finish(
    body: PasskeyFinish, request: Request, accounts: AccountsDep, settings: SettingsDep
) -> Response:
    """Finish making a passkey with the browser's credential (``toJSON()``): kept for the
    account; a new account is made and signed in (201)."""
    account, signed = await run_in_threadpool(
        accounts.register_finish,
        site_of(request, settings),
        body.ceremony,
        body.credential,
        cookie_of(request),
    )
    if signed is not None:
        return await _signed_in_answer(request, accounts, settings, signed, 201)
    public = await run_in_threadpool(accounts.public, account)
    return _json({"signed_in": True, "account": public, "csrf": None})


@router.post(
    "/passkeys/signin/begin",
    response_model=Ceremony,
    responses=ACCOUNT_ERRORS,
    dependencies=[rate_limit("signin"), FromThisSite],
)
async def passkey_signin_begin(
    request: Request, accounts: AccountsDep, settings: SettingsDep
) -> Response:
    """Start a passkey sign-in: pass ``options`` to
    ``PublicKeyCredential.parseRequestOptionsFromJSON``."""
    ceremony, options = await run_in_threadpool(accounts.signin_begin, site_of(request, settings))
    return _json({"ceremony": ceremony, "options": options})


@router.post(
    "/passkeys/signin/finish",
    response_model=Me,
    responses=ACCOUNT_ERRORS,
    dependencies=[rate_limit("signin"), FromThisSite],
)
async def passkey_signin_finish(
    body: PasskeyFinish, request: Request, accounts: AccountsDep, settings: SettingsDep
) -> Response:
    """Finish a passkey sign-in with the browser's assertion (``toJSON()``): a new session.
    Each ceremony's challenge is good for one try, within ``KERALA_WEBAUTHN_TIMEOUT``."""
    signed = await run_in_threadpool(
        accounts.signin_finish,
        site_of(request, settings),
        body.ceremony,
        body.credential,
        cookie_of(request),
    )
    return await _signed_in_answer(request, accounts, settings, signed, 200)


# -- seats, games, data ------------------------------------------------------------------


@router.post("/seats", status_code=204, responses=ACCOUNT_ERRORS)
async def hold_seat(body: SeatHold, current: ChangingDep, accounts: AccountsDep) -> Response:
    """Hold a seat by account, with the seat's token (an invite link's, or this tab's): the
    game then opens as that seat wherever you are signed in."""
    await run_in_threadpool(accounts.hold, current.account, body.game_id, body.seat, body.token)
    return Response(status_code=204)


@router.get("/games", response_model=MyGames, responses=ACCOUNT_ERRORS, dependencies=[FromThisSite])
async def my_games(current: SignedInDep, accounts: AccountsDep) -> Response:
    """Your games: your turn first, then those under way, then the finished."""
    games = await run_in_threadpool(accounts.my_games, current.account)
    return _json({"games": games})


@router.get(
    "/games/{game_id}/seats",
    response_model=HeldSeats,
    responses=ACCOUNT_ERRORS,
    dependencies=[FromThisSite],
)
async def held_seats(game_id: GameIdDep, current: SignedInDep, accounts: AccountsDep) -> Response:
    """The seats you hold in this game, with their tokens (empty: you hold none).

    Like every read of your data, refused when a browser says another site asked for it."""
    seats = await run_in_threadpool(accounts.seats_in, current.account, game_id)
    return _json({"seats": seats})


@router.get("/export", responses=ACCOUNT_ERRORS, dependencies=[FromThisSite])
async def export(current: SignedInDep, accounts: AccountsDep) -> Response:
    """Everything stored about your account, and the records of your games, as one JSON file."""
    doc = await run_in_threadpool(accounts.export, current.account)
    return Response(
        json.dumps(doc, indent=1, ensure_ascii=False),
        media_type="application/json",
        headers={
            "Content-Disposition": 'attachment; filename="kerala-account.json"',
            "Cache-Control": "no-store",
        },
    )


@router.delete("", status_code=204, responses=ACCOUNT_ERRORS)
async def delete_account(
    body: AccountDelete, request: Request, current: ChangingDep, accounts: AccountsDep
) -> Response:
    """Delete your account (type its handle to confirm): sessions, passkeys and held seats go;
    your games stay, your name in them replaced by "deleted player"."""
    await run_in_threadpool(accounts.delete, current.account, body.handle)
    response = Response(status_code=204, headers={"Cache-Control": "no-store"})
    _clear_cookie(response, request)
    return response
