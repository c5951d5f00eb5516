"""The game server: live play against bots and friends over HTTP and WebSocket.

``app.py`` assembles the FastAPI app, ``routes/`` holds one router per area, ``store.py`` the
database (SQLAlchemy models, Alembic migrations), ``service.py`` the game logic that ties the
engine to the store, ``hub.py`` the live event fan-out and ``botrunner.py`` bot thinking in a
worker pool. ``kerala serve`` (``commands.py``) starts it. The API is described in docs/api.md.
"""
