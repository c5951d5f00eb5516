"""Research environments for Kerala: PettingZoo, OpenSpiel and Gymnasium (``kerala[rl]``).

All three share one action encoding and one observation layout, defined and documented in
:mod:`kerala.envs.encoding`. Import the submodule you need; each needs its own optional
dependency and this package imports none of them:

- :mod:`kerala.envs.pettingzoo`: ``env(num_players=N)`` (wrapped) and ``raw_env(...)``, an AEC
  environment for 2–5 players;
- :mod:`kerala.envs.openspiel`: importing it registers the game ``python_kerala``;
- :mod:`kerala.envs.gymnasium`: importing it registers ``kerala/Kerala-v0``, one learner
  against built-in bots.
"""
