"""Terminal play: ``kerala play`` (docs/terminal.md).

``render`` draws grounds, display and status with Rich; ``turn`` turns menu choices or typed
docs/notation.md turns into decisions (asking the engine for every legality question); ``session``
runs a game between humans at one keyboard and bots; ``commands`` adds the ``play`` command.
"""
