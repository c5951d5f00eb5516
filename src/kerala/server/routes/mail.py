"""Correspondence e-mail for accounts (docs/server.md, "E-mail"): the address and the opt-in,
and the one-click unsubscribe link that every e-mail carries."""

from __future__ import annotations

from typing import Annotated, Any

from email_validator import EmailNotValidError, validate_email
from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from kerala.server.domain import Conflict, InvalidRequest
from kerala.server.mail import MailRepository
from kerala.server.routes.accounts import ChangingDep, FromThisSite, SignedInDep
from kerala.server.routes.deps import SettingsDep, mail_repo_of
from kerala.server.schemas import ACCOUNT_ERRORS, ERRORS, MailIn, MailOut
from kerala.server.store import utcnow
from kerala.server.wire import dumpb

router = APIRouter(prefix="/api/account", tags=["accounts"])

PAGE = """<!doctype html><html lang="en"><meta charset="utf-8"><title>Kerala</title>
<body><p>{text}</p><p><a href="/">Kerala</a></p></body></html>"""


def _repo(request: Request) -> MailRepository:
    return mail_repo_of(request)


@router.get("/email", response_model=MailOut, responses=ACCOUNT_ERRORS, dependencies=[FromThisSite])
async def get_mail(request: Request, current: SignedInDep, settings: SettingsDep) -> Response:
    """Your address, whether you get correspondence e-mail, and whether this server sends any."""
    got = await run_in_threadpool(_repo(request).settings_of, current.account.id)
    body = {"offered": settings.smtp_url is not None, **(got or {"email": None, "notify": False})}
    return Response(dumpb(body), media_type="application/json")


@router.put("/email", status_code=204, responses=ACCOUNT_ERRORS)
async def set_mail(
    body: MailIn, request: Request, current: ChangingDep, settings: SettingsDep
) -> Response:
    """Set your address and whether you want e-mail when it is your turn in a correspondence
    game and when one ends (one digest at most every ``KERALA_MAIL_DIGEST`` seconds)."""
    if settings.smtp_url is None:
        raise Conflict("this server sends no e-mail (no KERALA_SMTP_URL)")
    try:
        email = validate_email(body.email, check_deliverability=False).normalized
    except EmailNotValidError as e:
        raise InvalidRequest(f"email: {e}") from None
    await run_in_threadpool(
        _repo(request).set_mail, current.account.id, email, body.notify, utcnow()
    )
    return Response(status_code=204)


#: The unsubscribe link answers with a small page (it is opened from an e-mail), its refusals
#: of a malformed link in the house JSON.
PAGE_ANSWERS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    200: {"description": "a page saying it is done", "content": {"text/html": {}}},
    404: {"description": "a page saying the link is unknown", "content": {"text/html": {}}},
}


@router.get("/unsubscribe", responses=PAGE_ANSWERS)
async def unsubscribe(
    request: Request, token: Annotated[str, Query(min_length=8, max_length=100)]
) -> HTMLResponse:
    """The link in every e-mail: no more e-mail, no sign-in needed."""
    done = await run_in_threadpool(_repo(request).unsubscribe, token)
    text = (
        "You will get no more e-mail from Kerala. Turn it on again on your account page."
        if done
        else "This unsubscribe link is not known (it may belong to a deleted account)."
    )
    return HTMLResponse(PAGE.format(text=text), status_code=200 if done else 404)


@router.post("/unsubscribe", responses=PAGE_ANSWERS)
async def unsubscribe_one_click(
    request: Request, token: Annotated[str, Query(min_length=8, max_length=100)]
) -> HTMLResponse:
    """The same, as mail programs send it (``List-Unsubscribe-Post``, RFC 8058)."""
    return await unsubscribe(request, token)
