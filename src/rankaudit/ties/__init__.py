"""Part I: tie rules and tie-aware evaluation of HR@k, NDCG@k and RR.

Modules (one job each):

- :mod:`~rankaudit.ties.metrics`: what HR@k, NDCG@k and RR are (reference definitions);
- :mod:`~rankaudit.ties.rules`: the tie rules and a sort-based reference ranking;
- :mod:`~rankaudit.ties.hashing`: the documented 64-bit tie hash and its collision count;
- :mod:`~rankaudit.ties.reference`: closed-form reference formulas the kernels are checked by;
- :mod:`~rankaudit.ties.montecarlo`: Monte Carlo over random tie orders, seed spread;
- :mod:`~rankaudit.ties.expected`: closed-form expectation and variance over random tie orders;
- :mod:`~rankaudit.ties.ordered` / :mod:`~rankaudit.ties.sampled`: kernels of the
  deterministic and random rules;
- :mod:`~rankaudit.ties.bruteforce`: enumeration of all tie orders (for tests);
- :mod:`~rankaudit.ties.validation` / :mod:`~rankaudit.ties.longformat`: input checks and layout;
- :mod:`~rankaudit.ties.evaluate`: the public :func:`evaluate` (and :func:`summarize`, its means);
- :mod:`~rankaudit.ties.prevalence`: tie diagnostics;
- :mod:`~rankaudit.ties.invariance`: permutation audit of any evaluator;
- :mod:`~rankaudit.ties.peers` / :mod:`~rankaudit.ties.peer_audit`: other libraries'
  evaluators, and the audit of their tie behaviour.
"""

from rankaudit.ties.evaluate import evaluate, metric_names, summarize
from rankaudit.ties.hashing import tie_hash
from rankaudit.ties.rules import TIE_RULES, rank_candidates

__all__ = ["TIE_RULES", "evaluate", "metric_names", "rank_candidates", "summarize", "tie_hash"]
