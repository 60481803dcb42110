"""Part III contextual features: NCD (``ncd``), embedders (``embed``), the feature table
(``features``),
sequence encoders and LambdaRank loss (``sequence_models``, ``sequence_training``, ``losses``)."""

__all__: list[str] = []
