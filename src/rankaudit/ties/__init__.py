"""Part I: tie rules and tie-aware evaluation of HR@k, NDCG@k and RR.

Modules (one job each); the measures, the rules and their kernels live in the core,
:mod:`rankaudit.measures`, of which this package is the rectangular adapter:

- :mod:`~rankaudit.ties.ranking`: a sort-based reference ranking under a deterministic rule;
- :mod:`~rankaudit.ties.bruteforce`: enumeration of all tie orders (for tests);
- :mod:`~rankaudit.ties.validation` / :mod:`~rankaudit.ties.longformat`: input checks and layout;
- :mod:`~rankaudit.ties.evaluate`: the public :func:`evaluate`;
- :mod:`~rankaudit.ties.summary`: :func:`summarize`, its aggregates;
- :mod:`~rankaudit.ties.prevalence`: tie diagnostics;
- :mod:`~rankaudit.ties.invariance`: permutation audit of any evaluator.
"""

from rankaudit.measures.hashing import tie_hash
from rankaudit.measures.rules import TIE_RULES
from rankaudit.ties.evaluate import evaluate
from rankaudit.ties.fast_path import metric_names
from rankaudit.ties.ranking import rank_candidates
from rankaudit.ties.summary import summarize

__all__ = ["TIE_RULES", "evaluate", "metric_names", "rank_candidates", "summarize", "tie_hash"]
