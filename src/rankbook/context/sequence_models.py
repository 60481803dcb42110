"""Sequence encoders of a buyer's last clicks: Transformer and Perceiver-like (Sheng et al., 2024,
§2.3).

Both encoders map the embeddings of a session's last ``max_clicks = 5`` clicked items (and, for
the Perceiver, the current query) to one *historical embedding* ``E_seq`` in the item-embedding
space. A SERP item's score and contextual feature is the cosine

.. math::

    \\mathrm{CosSim}_{i,seq} = \\frac{E_{item_i} \\cdot E_{seq}}
        {\\lVert E_{item_i} \\rVert \\lVert E_{seq} \\rVert}.

Tensor interface (``B`` queries, ``d`` item-embedding size, ``n`` SERP width):

- ``click_embs`` ``(B, 5, d)`` and ``click_mask`` ``(B, 5)`` (True = a real click). Clicks are in
  chronological order; shorter histories are padded (anywhere: positions are counted from the most
  recent real click, so left- and right-padding give the same result).
- ``query_emb`` ``(B, d)``; ``serp_embs`` ``(B, n, d)``.

Readout (shared by both encoders; our design, since the paper gives no architecture details):
``E_seq = sum_j alpha_j E_click_j`` (+ ``W_out h`` when ``correction=True``): an attention-weighted
combination of the click embeddings themselves, the paper's "selectively emphasizing those clicks
that are more relevant ... while diminishing the influence of less pertinent clicks", with weights
``alpha`` computed by the encoder; optionally plus a learned correction ``W_out h`` from the pooled
hidden state. The readout's attention query (and ``W_out``) start at zero, so an untrained encoder
returns the plain mean of the click embeddings (the ``CosSim_l5c`` reference point of §2.1.2) and
training learns which clicks to emphasise. The correction is off by default here: with a few
thousand encoder-window sessions it lets the encoder memorise its training window (training NDCG
rises, validation NDCG falls). Chapter 12 turns it on, with an encoder window of its own that is
several times larger than the ranker's.

Zero-click queries (every position masked) have no context: the encoders return ``has_context =
False`` for them and a finite placeholder ``E_seq``; the feature is NaN for them (missing, as the
other contextual features) and the training loss masks them out.

References
----------
T. Sheng, S. Muthiah, A. Islam, J. Feng. *Progressive Refinement of E-commerce Search Ranking Based
on Short-Term Activities of the Buyer.* 2024 (§2.3).

A. Vaswani et al. *Attention Is All You Need.* NeurIPS 2017.

A. Jaegle, F. Gimeno, A. Brock, A. Zisserman, O. Vinyals, J. Carreira. *Perceiver: General
Perception with Iterative Attention.* ICML 2021.
"""

from __future__ import annotations

import math

from rankaudit._optional import require

torch = require("torch", purpose="rankbook.context.sequence_models")
nn = torch.nn

__all__ = [
    "PerceiverSeqEncoder",
    "SequenceEncoder",
    "TransformerSeqEncoder",
    "cosine_scores",
    "make_encoder",
    "recency_positions",
]

MAX_CLICKS = 5
#: Fixed gain on the Perceiver's learned query-click relevance weight, so that Adam-sized steps on
#: ``beta`` move the readout logits at a useful rate (a reparameterisation, not a hyperparameter).
QUERY_GAIN = 20.0
#: The same reparameterisation for the Transformer's learned last-click similarity weight ``gamma``.
LAST_CLICK_GAIN = 20.0


def recency_positions(click_mask: torch.Tensor) -> torch.Tensor:
    """Position of each click counted back from the most recent real click (0 = last click).

    ``pos_j = (number of real clicks at or after slot j) - 1``; padded slots get 0 (they are masked
    anyway).
    """
    m = click_mask.to(torch.long)
    after = m.flip(1).cumsum(1).flip(1)
    return torch.clamp(after - 1, min=0) * m


def cosine_scores(e_seq: torch.Tensor, serp_embs: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """``cos(E_item_i, E_seq)`` for every SERP item: ``(B, d), (B, n, d) -> (B, n)``."""
    a = e_seq / e_seq.norm(dim=-1, keepdim=True).clamp_min(eps)
    b = serp_embs / serp_embs.norm(dim=-1, keepdim=True).clamp_min(eps)
    return torch.einsum("bd,bnd->bn", a, b)


def _masked_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    logits = logits.masked_fill(~mask, float("-inf"))
    return torch.softmax(logits, dim=-1)


class SequenceEncoder(nn.Module):
    """Shared parts: input projection, recency embeddings, item-space readout, temperature.

    Subclasses implement :meth:`hidden` returning ``(h_pool (B, d_model), read_query (B, d_model),
    click_keys (B, 5, d_model))``: the readout logits are ``<read_query, click_keys_j> / sqrt(d)``.
    """

    kind = "base"

    def __init__(
        self,
        item_dim: int,
        d_model: int = 64,
        n_heads: int = 4,
        n_layers: int = 1,
        dropout: float = 0.1,
        max_clicks: int = MAX_CLICKS,
        correction: bool = False,
    ) -> None:
        super().__init__()
        if item_dim < 1 or d_model < 1 or n_layers < 1 or max_clicks < 1:
            raise ValueError(
                f"item_dim, d_model, n_layers and max_clicks must be >= 1; got "
                f"{item_dim}, {d_model}, {n_layers}, {max_clicks}"
            )
        if d_model % n_heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1); got {dropout}")
        self.item_dim, self.d_model, self.max_clicks = item_dim, d_model, max_clicks
        self.config = dict(
            item_dim=item_dim,
            d_model=d_model,
            n_heads=n_heads,
            n_layers=n_layers,
            dropout=dropout,
            max_clicks=max_clicks,
            correction=correction,
        )
        self.correction = correction
        self.in_proj = nn.Linear(item_dim, d_model)
        self.pos_emb = nn.Embedding(max_clicks, d_model)
        self.out_proj = nn.Linear(d_model, item_dim)
        nn.init.zeros_(self.out_proj.weight)
        nn.init.zeros_(self.out_proj.bias)
        # learnable inverse temperature for the training scores (CLIP-style log scale)
        self.log_scale = nn.Parameter(torch.tensor(math.log(10.0)))

    def _check(self, click_embs: torch.Tensor, click_mask: torch.Tensor) -> None:
        if click_embs.ndim != 3 or click_embs.shape[1] != self.max_clicks:
            raise ValueError(
                f"click_embs must have shape (B, {self.max_clicks}, {self.item_dim}); "
                f"got {tuple(click_embs.shape)}"
            )
        if click_embs.shape[2] != self.item_dim:
            raise ValueError(
                f"click_embs last dimension {click_embs.shape[2]} != item_dim {self.item_dim}"
            )
        if click_mask.shape != click_embs.shape[:2]:
            raise ValueError(
                f"click_mask shape {tuple(click_mask.shape)} != {tuple(click_embs.shape[:2])}"
            )

    def hidden(self, x, key_mask, query_emb):  # pragma: no cover - abstract
        raise NotImplementedError

    def query_click_logits(
        self, embs: torch.Tensor, query_emb: torch.Tensor | None
    ) -> torch.Tensor | float:
        """Extra readout logits per click: none here; the Perceiver adds query-click relevance, the
        Transformer similarity to the latest click."""
        return 0.0

    def forward(
        self,
        click_embs: torch.Tensor,
        click_mask: torch.Tensor,
        query_emb: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return ``(E_seq (B, item_dim), has_context (B,) bool)``.

        Rows without any real click get a finite placeholder ``E_seq`` (computed as if slot 0 were
        a click of a zero vector) and ``has_context = False``; never use them as features.
        """
        self._check(click_embs, click_mask)
        click_mask = click_mask.to(torch.bool)
        has_context = click_mask.any(dim=1)
        # attention over an all-masked row is a softmax over -inf only (NaN); unmask slot 0 there
        safe_mask = click_mask.clone()
        safe_mask[~has_context, 0] = True
        embs = click_embs * click_mask.unsqueeze(-1).to(click_embs.dtype)
        x = self.in_proj(embs) + self.pos_emb(recency_positions(safe_mask))
        pooled, read_query, click_hidden = self.hidden(x, safe_mask, query_emb)
        logits = torch.einsum("bd,bkd->bk", read_query, click_hidden) / math.sqrt(self.d_model)
        logits = logits + self.query_click_logits(embs, query_emb)
        alpha = _masked_softmax(logits, safe_mask)
        e_seq = torch.einsum("bk,bkd->bd", alpha, embs)
        if self.correction:
            e_seq = e_seq + self.out_proj(pooled)
        return e_seq, has_context

    def scores(
        self,
        click_embs: torch.Tensor,
        click_mask: torch.Tensor,
        query_emb: torch.Tensor | None,
        serp_embs: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(cosine (B, n), has_context (B,))``: the feature ``CosSim_seq`` before NaN-masking."""
        e_seq, has_context = self(click_embs, click_mask, query_emb)
        return cosine_scores(e_seq, serp_embs), has_context

    @property
    def scale(self) -> torch.Tensor:
        """Inverse temperature used on cosines in the training loss (clamped to [1, 100])."""
        return self.log_scale.clamp(0.0, math.log(100.0)).exp()


class TransformerSeqEncoder(SequenceEncoder):
    """``E_seq:trans = Transformer(E_item^{n-5}, ..., E_item^{n-1})`` (Sheng et al., 2024, §2.3.1).

    Clicks -> linear projection + learned recency embeddings -> ``n_layers`` pre-norm Transformer
    encoder layers (Vaswani et al., NeurIPS 2017) with a key-padding mask -> item-space readout
    (module docstring) whose attention query is the hidden state at the **most recent click**, as
    sequential recommenders read a sequence out at its last position (Kang & McAuley, 2018,
    "Self-attentive sequential recommendation", ICDM). The query is not an input, as in the paper,
    so the latest click stands in for the current intent: besides the learned query-key logits,
    the readout can weight each click by ``LAST_CLICK_GAIN * gamma * cos(E_last, E_click_j)``
    (``gamma`` learned from 0), i.e. "clicks like the latest one belong to the current intent".
    """

    kind = "trans"

    def __init__(
        self,
        item_dim: int,
        d_model: int = 64,
        n_heads: int = 4,
        n_layers: int = 1,
        dropout: float = 0.1,
        max_clicks: int = MAX_CLICKS,
        correction: bool = False,
    ) -> None:
        super().__init__(item_dim, d_model, n_heads, n_layers, dropout, max_clicks, correction)
        layer = nn.TransformerEncoderLayer(
            d_model,
            n_heads,
            dim_feedforward=2 * d_model,
            dropout=dropout,
            batch_first=True,
            norm_first=True,
        )
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.read_q = nn.Linear(d_model, d_model)
        self.read_k = nn.Linear(d_model, d_model)
        nn.init.zeros_(self.read_q.weight)  # start from the plain mean of the clicks
        nn.init.zeros_(self.read_q.bias)
        self.gamma = nn.Parameter(torch.zeros(()))

    @staticmethod
    def _last_index(key_mask: torch.Tensor) -> torch.Tensor:
        """Slot of the most recent real click per row (recency position 0)."""
        is_last = (recency_positions(key_mask) == 0) & key_mask
        slots = torch.arange(key_mask.shape[1], device=key_mask.device).expand_as(key_mask)
        return torch.where(is_last, slots, -1).amax(dim=1).clamp_min(0)

    def hidden(self, x, key_mask, query_emb):
        h = self.norm(self.encoder(x, src_key_padding_mask=~key_mask))
        w = key_mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * w).sum(1) / w.sum(1).clamp_min(1.0)
        last = h[torch.arange(h.shape[0], device=h.device), self._last_index(key_mask)]
        return pooled, self.read_q(last), self.read_k(h)

    def query_click_logits(self, embs, query_emb):
        """``LAST_CLICK_GAIN * gamma * cos(E_last, E_click_j)`` (class docstring); the query is
        unused."""
        present = embs.abs().sum(-1) > 0
        last = embs[torch.arange(embs.shape[0], device=embs.device), self._last_index(present)]
        return LAST_CLICK_GAIN * self.gamma * cosine_scores(last, embs)


class PerceiverSeqEncoder(SequenceEncoder):
    """``E_seq:perc = SelfAttention(CrossAttention(Q, clicks))`` (Sheng et al., 2024, §2.3.2).

    Perceiver-like (Jaegle et al., ICML 2021): ``n_latents`` attention queries, each the projected
    query embedding plus a learned latent, cross-attend over the projected clicks (+ recency
    embeddings, key-padding mask); the latents plus the attention output (a query-weighted
    combination of the clicks, without a residual of the query itself) then pass ``n_layers``
    self-attention layers. Their mean is the pooled state; it also forms the readout query that
    weights the clicks in item space (module docstring). The query embedding is required.
    """

    kind = "perc"

    def __init__(
        self,
        item_dim: int,
        d_model: int = 64,
        n_heads: int = 4,
        n_layers: int = 1,
        dropout: float = 0.1,
        max_clicks: int = MAX_CLICKS,
        correction: bool = False,
        n_latents: int = 4,
    ) -> None:
        super().__init__(item_dim, d_model, n_heads, n_layers, dropout, max_clicks, correction)
        if n_latents < 1:
            raise ValueError(f"n_latents must be >= 1; got {n_latents}")
        self.config["n_latents"] = n_latents
        self.q_proj = nn.Linear(item_dim, d_model)
        self.latents = nn.Parameter(torch.randn(n_latents, d_model) * 0.02)
        self.norm_q = nn.LayerNorm(d_model)
        self.norm_kv = nn.LayerNorm(d_model)
        self.cross = nn.MultiheadAttention(d_model, n_heads, dropout=dropout, batch_first=True)
        self.cross_ff = nn.Sequential(
            nn.LayerNorm(d_model),
            nn.Linear(d_model, 2 * d_model),
            nn.GELU(),
            nn.Linear(2 * d_model, d_model),
        )
        layer = nn.TransformerEncoderLayer(
            d_model,
            n_heads,
            dim_feedforward=2 * d_model,
            dropout=dropout,
            batch_first=True,
            norm_first=True,
        )
        self.self_attn = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.read_q = nn.Linear(d_model, d_model)
        self.read_k = nn.Linear(d_model, d_model)
        nn.init.zeros_(self.read_q.weight)  # start from the plain mean of the clicks
        nn.init.zeros_(self.read_q.bias)
        # query-click relevance in the raw item space, weight QUERY_GAIN * beta, beta learned from 0
        self.beta = nn.Parameter(torch.zeros(()))

    def hidden(self, x, key_mask, query_emb):
        if query_emb is None:
            raise ValueError("query_emb is required by the Perceiver-like encoder")
        if query_emb.shape != (x.shape[0], self.item_dim):
            raise ValueError(
                f"query_emb must have shape ({x.shape[0]}, {self.item_dim}); got "
                f"{tuple(query_emb.shape)}"
            )
        queries = self.q_proj(query_emb).unsqueeze(1) + self.latents.unsqueeze(0)
        kv = self.norm_kv(x)
        attn, _ = self.cross(
            self.norm_q(queries), kv, kv, key_padding_mask=~key_mask, need_weights=False
        )
        # E_seq:cross = CrossAttention(Q, clicks): the query steers the attention and the values
        # are the clicks', so no residual of the query itself: E_seq is built from the clicks
        lat = self.latents.unsqueeze(0) + attn
        lat = lat + self.cross_ff(lat)
        lat = self.norm(self.self_attn(lat))
        pooled = lat.mean(1)
        return pooled, self.read_q(pooled), self.read_k(kv)

    def query_click_logits(self, embs, query_emb):
        """``QUERY_GAIN * beta * cos(E_Q, E_click_j)``: the readout can also select clicks by raw
        relevance
        to the query (the intent-aware ``Ref_emb`` idea of §2.2.2, made soft and learned)."""
        return QUERY_GAIN * self.beta * cosine_scores(query_emb, embs)


def make_encoder(kind: str, item_dim: int, **kwargs) -> SequenceEncoder:
    """``"trans"`` -> :class:`TransformerSeqEncoder`, ``"perc"`` -> :class:`PerceiverSeqEncoder`."""
    if kind == "trans":
        return TransformerSeqEncoder(item_dim, **kwargs)
    if kind == "perc":
        return PerceiverSeqEncoder(item_dim, **kwargs)
    raise ValueError(f"kind must be 'trans' or 'perc'; got {kind!r}")
