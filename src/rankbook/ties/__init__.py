"""Part I beside the library: other libraries' evaluators and their audit, Monte Carlo over
random tie orders, and the row re-storings of the tie audit's §6.

- :mod:`~rankbook.ties.peers` / :mod:`~rankbook.ties.recsys_peers`: adapters to other
  libraries' evaluators;
- :mod:`~rankbook.ties.peer_audit`: the audit of their tie behaviour;
- :mod:`~rankbook.ties.montecarlo`: Monte Carlo over random tie orders, seed spread;
- :mod:`~rankbook.ties.row_permutation`: the full-row permutation and its foils.
"""

__all__: list[str] = []
