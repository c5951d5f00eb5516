"""Research environments for Kerala: PettingZoo, OpenSpiel and Gymnasium (``kerala[rl]``).

All three share one action encoding (:mod:`kerala.envs.encoding`) and the observation
layouts of :mod:`kerala.envs.observations` (``compact`` by default, ``flat``, ``graph``,
``full``). Import the submodule you need; each needs its own optional
dependency and this package imports none of them:

- :mod:`kerala.envs.pettingzoo`: ``env(num_players=N)`` (wrapped) and ``raw_env(...)``, an AEC
  environment for 2–5 players, and ``parallel_env(...)``, the parallel API;
- :mod:`kerala.envs.openspiel`: importing it registers the game ``python_kerala``;
- :mod:`kerala.envs.gymnasium`: importing it registers ``kerala/Kerala-v0``, one learner
  against built-in bots, bot objects or policies;
- :mod:`kerala.envs.selfplay`: ``SelfPlay`` and ``SnapshotPool``, a policy against its own
  snapshots;
- :mod:`kerala.envs.render`: the ``rgb_array`` picture (Pillow).
"""
