"""``kerala serve``: start the game server (FastAPI + uvicorn), added to the ``kerala`` CLI."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``kerala`` command."""

    @app.command()
    def serve(
        host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
        port: Annotated[int, typer.Option(min=0, max=65535, help="port (0: any free)")] = 8000,
        db: Annotated[
            str | None,
            typer.Option(
                help="database URL: sqlite:///file.sqlite3 (default kerala.sqlite3) or "
                "postgresql+psycopg://user@host/db"
            ),
        ] = None,
        open_browser: Annotated[
            bool, typer.Option("--open", help="open the browser on the server's page")
        ] = False,
    ) -> None:
        """Run the game server: play in the browser against bots and friends."""
        import socket

        import sqlalchemy as sa
        import uvicorn

        from kerala.server.app import create_app
        from kerala.server.settings import Settings
        from kerala.server.store import safe_url

        overrides: dict[str, object] = {"host": host, "port": port}
        if db is not None:
            try:
                sa.make_url(db)
            except sa.exc.ArgumentError:
                typer.echo(f"error: --db {db!r} is not a database URL", err=True)
                raise typer.Exit(2) from None
            overrides["db"] = db
        settings = Settings(**overrides)  # type: ignore[arg-type]
        # Bind first, so that port 0 gets a real port and the address we print is the true one.
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as e:
            typer.echo(f"error: cannot listen on {host}:{port}: {e.strerror}", err=True)
            raise typer.Exit(2) from None
        real_port = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{real_port}/"
        app = create_app(settings)
        typer.echo(f"Kerala server: {url}  (database {safe_url(settings.db)})", err=False)
        if open_browser:
            import threading
            import webbrowser

            threading.Timer(1.0, webbrowser.open, args=(url,)).start()
        # No access log: invite links carry seat tokens in their query strings. No per-message
        # compression: on a small machine the CPU it costs matters more than the bytes it saves.
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, ws_per_message_deflate=False
        )
        server = uvicorn.Server(config)
        server.run(sockets=[sock])
