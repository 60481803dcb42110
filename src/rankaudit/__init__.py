"""rankaudit: tie-aware ranking evaluation.

The public face of the library:

- :func:`evaluate`: HR@k, NDCG@k and RR per row under an explicit tie rule
  (``input_order``, ``hash``, ``random``, ``expected``, ``pessimistic``, ``optimistic``), and
  any measure of the registry with ``measures=`` (a long-format table's column names in
  :class:`LongColumns`);
- :func:`read_trec_run` / :func:`read_trec_qrels`, :func:`evaluate_run` and :func:`audit_run`:
  a run and its qrels, under trec_eval's definitions and every tie rule;
- :func:`compare_runs` / :func:`compare_measures`: two runs paired over their queries, with
  the paired tests (options in :class:`ResamplingOptions`);
- :func:`leaderboard` (runs and qrels) / :func:`build_leaderboard` (audits already made): many
  runs on one qrels, with what the tie order decides;
- :func:`checklist` / :func:`run_checklist`: the reporting checklist, from rows or from a run
  (the rows' permutation audit and sensitivity analysis in :class:`PermutationOptions` and
  :class:`SensitivityOptions`);
- :func:`tie_prevalence`: how often exact ties can change a metric;
- :func:`audit_row_order`: a permutation audit of any evaluator callable;
- :class:`InputFileError`: the one error raised for a file that cannot be read as declared
  (a ``ValueError`` whose message is ``path:line: reason``).

References
----------
.. code-block:: bibtex

    @inproceedings{mcsherry2008ties,
      author    = {McSherry, Frank and Najork, Marc},
      title     = {Computing Information Retrieval Performance Measures
                   Efficiently in the Presence of Tied Scores},
      booktitle = {Advances in Information Retrieval (ECIR 2008)},
      series    = {LNCS}, volume = {4956}, pages = {414--421}, year = {2008}
    }
    @article{jarvelin2002cumulated,
      author  = {J{\\"a}rvelin, Kalervo and Kek{\\"a}l{\\"a}inen, Jaana},
      title   = {Cumulated Gain-Based Evaluation of {IR} Techniques},
      journal = {ACM Transactions on Information Systems},
      volume  = {20}, number = {4}, pages = {422--446}, year = {2002}
    }
    @inproceedings{voorhees1999trec8qa,
      author    = {Voorhees, Ellen M.},
      title     = {The {TREC}-8 Question Answering Track Report},
      booktitle = {Proceedings of the Eighth Text REtrieval Conference (TREC-8)},
      pages     = {77--82}, year = {1999}
    }
    @misc{guo2026tiehandling,
      author        = {Guo, Chengkun and Chen, Han and Zhu, Yilin and Li, Yingrui},
      title         = {Tie Handling Is Part of the Evaluation Protocol: An
                       Order-Invariance Audit for Tie-Heavy Recommender Scores},
      eprint        = {2609.26977},
      archivePrefix = {arXiv}
    }
"""

from rankaudit._version import __version__
from rankaudit.checklists.from_rows import checklist
from rankaudit.checklists.from_run import run_checklist
from rankaudit.errors import InputFileError
from rankaudit.options import (
    LongColumns,
    PermutationOptions,
    ResamplingOptions,
    SensitivityOptions,
)
from rankaudit.runs.compare import compare_measures, compare_runs
from rankaudit.runs.evaluate import audit_run, evaluate_run
from rankaudit.runs.leaderboard import build_leaderboard, leaderboard
from rankaudit.runs.trec import read_trec_qrels, read_trec_run
from rankaudit.ties.evaluate import evaluate
from rankaudit.ties.invariance import audit_row_order
from rankaudit.ties.prevalence import tie_prevalence

__all__ = [
    "InputFileError",
    "LongColumns",
    "PermutationOptions",
    "ResamplingOptions",
    "SensitivityOptions",
    "__version__",
    "audit_row_order",
    "audit_run",
    "build_leaderboard",
    "checklist",
    "compare_measures",
    "compare_runs",
    "evaluate",
    "evaluate_run",
    "leaderboard",
    "read_trec_qrels",
    "read_trec_run",
    "run_checklist",
    "tie_prevalence",
]
