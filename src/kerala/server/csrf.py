"""Cross-site request forgery checks for the routes that a session cookie authorises
(docs/accounts.md, "CSRF").

Two independent checks, both on every state-changing request the cookie authorises:

1. **Where it comes from.** A browser says which site made a request: ``Sec-Fetch-Site``
   (Fetch Metadata) and ``Origin``. A request marked ``cross-site`` or ``same-site`` (another
   subdomain), or whose ``Origin`` is not this site's, is refused. Programs that are not
   browsers send neither header; they cannot be made to send a victim's cookie anyway.
2. **A token only this site's pages can read.** Each session has its own random CSRF token,
   stored with it on the server and handed to the page by ``GET /api/account``; a change must
   send it back in ``X-CSRF-Token`` (the synchronizer token pattern). Another site can make the
   browser send the cookie, never read the token (the same-origin policy).

The sign-in and sign-up routes, which no cookie authorises yet, get the first check (a forged
sign-in into the attacker's account is refused too).

>>> expected_origin("https://kerala.example/play", "ignored:1", "http")
'https://kerala.example'
>>> expected_origin(None, "127.0.0.1:8000", "http")
'http://127.0.0.1:8000'
"""

from __future__ import annotations

import hmac
from urllib.parse import urlsplit

from kerala.server.domain import CsrfRefused

#: ``Sec-Fetch-Site`` values of requests this site's own pages make (``none``: typed or
#: bookmarked by the person, never a script of another site).
OWN = frozenset({"same-origin", "none"})


def expected_origin(public_url: str | None, host: str | None, scheme: str) -> str:
    """This site's origin: that of ``KERALA_PUBLIC_URL`` if set, else the one the browser
    asked for (scheme and ``Host``; a forged Host only fools its own sender)."""
    if public_url:
        u = urlsplit(public_url)
        return f"{u.scheme}://{u.netloc}"
    return f"{scheme}://{host or ''}"


def check_origin(sec_fetch_site: str | None, origin: str | None, expected: str) -> None:
    """Refuse a request that a browser says another site made."""
    if sec_fetch_site is not None and sec_fetch_site.lower() not in OWN:
        raise CsrfRefused(f"refused: a request from another site ({sec_fetch_site})")
    if origin is not None and origin != expected:
        raise CsrfRefused(f"refused: a request from another origin ({origin[:100]})")


def check_token(sent: str | None, session_token: str) -> None:
    """Refuse a change without the session's CSRF token in ``X-CSRF-Token``."""
    if not sent or not hmac.compare_digest(sent.encode(), session_token.encode()):
        raise CsrfRefused(
            "refused: this change needs the session's X-CSRF-Token (GET /api/account gives it)"
        )
