"""The game server: live play against bots and friends over HTTP and WebSocket.

``app.py`` assembles the FastAPI app; ``routes/`` holds one router per area and turns domain
errors into responses (``errors.py``). Below them: ``service.py`` (the game cache, locks and
every operation on a game; domain errors from ``domain.py``, no HTTP), ``lobby.py`` (open seats,
rematch), ``reads.py`` (the game list, replays), ``setup.py`` and ``replay.py``; ``repository.py``
holds every query, ``store.py`` the models, migrations and group commit, ``wire.py`` the JSON
the clients get. ``fanout.py`` sends committed events to this process's sockets (``hub.py``) and
bots (``botrunner.py``) and, through Redis, to the other processes of one game world.
``kerala serve`` (``commands.py``) starts it. The API is described in docs/api.md, deployment in
docs/deploy.md.
"""
