"""The evaluation core: every measure and every tie rule declared once, and their kernels.

Below both input shapes (the rectangular rows of :mod:`rankaudit.ties` and the ragged runs of
:mod:`rankaudit.runs`, which are adapters onto this package):

- :mod:`~rankaudit.measures.registry` / :mod:`~rankaudit.measures.families`: the measures
  (definitions, ir_measures' spelling and parameters, each family declared once);
- :mod:`~rankaudit.measures.rules`: the tie rules, each one declaration that carries its
  behaviour (order, sort key, row-kernel mode, checklist description, flags);
- :mod:`~rankaudit.measures.expectations`: the block expectations of HR/Success and RR under
  random ties, derived once for both kernel families;
- :mod:`~rankaudit.measures.kernel_cache`: numba's cache kept in step with every source a
  kernel compiles in;
- :mod:`~rankaudit.measures.hashing`: the documented 64-bit tie hash;
- :mod:`~rankaudit.measures.list_kernels` (with :mod:`~rankaudit.measures.list_support`) /
  :mod:`~rankaudit.measures.list_reference`: every measure over ranked lists (any rule, exact
  expectation), fast and plainly; :mod:`~rankaudit.measures.list_evaluate` is their one entry
  point (and where each measure's bounds are ordered by its own utility);
- :mod:`~rankaudit.measures.row_expected`, :mod:`~rankaudit.measures.row_ordered`,
  :mod:`~rankaudit.measures.row_sampled` (with :mod:`~rankaudit.measures.row_support` and the
  definitions in :mod:`~rankaudit.measures.row_metrics`): the specialised kernels of HR@k,
  nDCG@k and RR over rectangular rows, which read only the relevant candidates, check the
  input in the same pass and give exact variances; tests hold them equal to the list kernels.
"""

from rankaudit.measures.aggregation import aggregate_value
from rankaudit.measures.registry import FAMILIES, Measure, parse_measure, parse_measures
from rankaudit.measures.rules import RULES, RUN_TIE_RULES, TIE_RULES, check_rule

__all__ = [
    "FAMILIES",
    "RULES",
    "RUN_TIE_RULES",
    "TIE_RULES",
    "Measure",
    "aggregate_value",
    "check_rule",
    "parse_measure",
    "parse_measures",
]
