"""Part III ranking: LambdaMART (``lambdamart``), MRR of the sold item (``sale_metrics``), paired
significance (``significance``), the progressive ablation (``ablation``), experiment helpers
(``experiment``), the paper's reported figures (``paper``), tables built from an ablation
(``summaries``), and many runs as one leaderboard (``leaderboard``; its rank correlations and
rank intervals are :mod:`rankaudit.runs.rank_agreement`, below the recommender audits too)."""

__all__: list[str] = []
