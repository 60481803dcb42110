"""Part III ranking: LambdaMART (``lambdamart``), sale-MRR metrics (``metrics``), paired significance
(``significance``), the progressive ablation (``ablation``) and experiment helpers (``experiment``)."""
