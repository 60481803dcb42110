"""Part III ranking: LambdaMART (``lambdamart``), MRR of the sold item (``sale_metrics``), paired
significance (``significance``), the progressive ablation (``ablation``), experiment helpers
(``experiment``), the paper's reported figures (``paper``) and tables built from an ablation
(``summaries``)."""

__all__: list[str] = []
