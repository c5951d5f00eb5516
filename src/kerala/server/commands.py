"""``kerala serve``: start the game server (FastAPI + uvicorn), added to the ``kerala`` CLI.

The database (and Redis, when given) must answer before the server says where it listens: a
missing folder, a refused or silent PostgreSQL, a file that is not a database or an unsupported
scheme ends the command with one line on stderr and exit status 2.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from kerala.server.settings import Settings


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def safe_redis_url(url: str) -> str:
    """``url`` with any password masked.

    >>> safe_redis_url("redis://:secret@cache:6379/0")
    'redis://:***@cache:6379/0'
    """
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    netloc = f"{user}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _check_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    try:
        client.ping()
    except (redis.RedisError, OSError) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise _fail(f"Redis {safe_redis_url(url)}: {reason}") from None
    finally:
        client.close()


#: Every line of the server's log starts with its time (docs/server.md, "Logs").
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_config() -> dict[str, Any]:
    """The logging of ``kerala serve`` (each worker process applies it too): the server's
    warnings and uvicorn's, with their times, on stderr; no access log."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"timed": {"format": LOG_FORMAT}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "timed",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            name: {"handlers": ["stderr"], "level": "WARNING", "propagate": False}
            for name in ("kerala", "uvicorn", "uvicorn.error")
        },
    }


def bounds(settings: Settings) -> dict[str, Any]:
    """uvicorn's options that bound what one client can make the server hold
    (docs/security.md, "Bounded input and memory").

    The WebSocket protocol refuses a message over ``ws_max_message`` from its frame header, with
    close code 1009, before reading it (uvicorn's default is 16 MiB); a socket's queue of read
    messages is short. The HTTP protocol is uvicorn's with a header deadline and size
    (:mod:`kerala.server.protocol`)."""
    from kerala.server.protocol import BoundedHttpProtocol

    return {
        "http": BoundedHttpProtocol,
        "ws": "websockets-sansio",
        "ws_max_size": settings.ws_max_message,
        "ws_max_queue": 4,
        "limit_concurrency": settings.max_connections,
        "timeout_keep_alive": settings.keep_alive_timeout,
        "h11_max_incomplete_event_size": settings.max_header_bytes,
    }


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``kerala`` command.

    Long because the command declares each of its options (one per server setting) inline,
    as Typer reads them.
    """

    @app.command()
    def serve(
        host: Annotated[
            str | None, typer.Option(help="address to listen on [KERALA_HOST; 127.0.0.1]")
        ] = None,
        port: Annotated[
            int | None,
            typer.Option(min=0, max=65535, help="port, 0: any free [KERALA_PORT; 8000]"),
        ] = None,
        db: Annotated[
            str | None,
            typer.Option(
                help="database URL: sqlite:///file.sqlite3 or postgresql://user@host/db "
                "[KERALA_DB; sqlite:///kerala.sqlite3]"
            ),
        ] = None,
        redis: Annotated[
            str | None,
            typer.Option(
                help="Redis URL (redis://127.0.0.1:6379/0): several processes on one database "
                "form one game world through it [KERALA_REDIS]"
            ),
        ] = None,
        workers: Annotated[
            int | None,
            typer.Option(
                min=1, max=64, help="server processes behind this port (>1 needs --redis)"
            ),
        ] = None,
        open_browser: Annotated[
            bool, typer.Option("--open", help="open the browser on the server's page")
        ] = False,
    ) -> None:
        """Run the game server: play in the browser against bots and friends.

        \f
        Long because each option is declared in its signature and checked in one place.
        """
        import socket

        import pydantic
        import uvicorn

        from kerala.server.settings import Settings
        from kerala.server.store import DatabaseUnavailable, check_database, safe_url

        overrides: dict[str, object] = {}
        for name, value in (("host", host), ("port", port), ("db", db), ("redis", redis)):
            if value is not None:
                overrides[name] = value
        try:
            settings = Settings(**overrides)  # type: ignore[arg-type]
        except pydantic.ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            given = "--" + where if where in overrides else "KERALA_" + where.upper()
            msg = str(err["msg"]).removeprefix("Value error, ")
            raise _fail(f"{given}: {msg}") from None
        n = workers if workers is not None else int(os.environ.get("KERALA_WORKERS", "1") or 1)
        if n < 1:
            raise _fail(f"--workers must be 1 or more, not {n}")
        if n > 1 and settings.redis is None:
            raise _fail("--workers above 1 needs --redis (the processes share events through it)")
        try:
            check_database(settings.db, settings.migrate)
        except DatabaseUnavailable as e:
            raise _fail(f"database {safe_url(settings.db)}: {e}") from None
        if settings.redis is not None:
            _check_redis(settings.redis)
        # Bind first, so that port 0 gets a real port and the address we print is the true one.
        family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((settings.host, settings.port))
        except OSError as e:
            raise _fail(f"cannot listen on {settings.host}:{settings.port}: {e.strerror}") from None
        real_port = sock.getsockname()[1]
        shown = f"[{settings.host}]" if ":" in settings.host else settings.host
        url = f"http://{shown}:{real_port}/"
        extra = f", {n} processes" if n > 1 else ""
        extra += ", Redis" if settings.redis else ""
        # No access log: old invite links carry seat tokens in their query strings. No server
        # banner (docs/security.md). No per-message compression: on a small machine the CPU it
        # costs matters more than the bytes it saves.
        if n == 1:
            from kerala.server.app import create_app

            config = uvicorn.Config(
                create_app(settings.model_copy(update={"migrate": False})),
                log_level="warning",
                log_config=log_config(),
                access_log=False,
                server_header=False,
                ws_per_message_deflate=False,
                timeout_graceful_shutdown=settings.shutdown_grace,
                forwarded_allow_ips=settings.forwarded_allow_ips,
                **bounds(settings),
            )
        else:
            # The workers read their settings from the environment (they are new processes).
            for name in ("db", "redis"):
                value = getattr(settings, name)
                if value is not None:
                    os.environ[f"KERALA_{name.upper()}"] = str(value)
            os.environ["KERALA_MIGRATE"] = "false"  # done above, once
            config = uvicorn.Config(
                "kerala.server.app:create_app",
                factory=True,
                workers=n,
                log_level="warning",
                log_config=log_config(),
                access_log=False,
                server_header=False,
                ws_per_message_deflate=False,
                timeout_graceful_shutdown=settings.shutdown_grace,
                forwarded_allow_ips=settings.forwarded_allow_ips,
                **bounds(settings),
            )
        typer.echo(f"Kerala server: {url}  (database {safe_url(settings.db)}{extra})", err=False)
        if open_browser:
            import threading
            import webbrowser

            threading.Timer(1.0, webbrowser.open, args=(url,)).start()
        if n == 1:
            uvicorn.Server(config).run(sockets=[sock])
        else:
            from uvicorn.supervisors import Multiprocess

            Multiprocess(config, sockets=[sock]).run()
