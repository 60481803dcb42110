"""The TREC readers' two paths give one verdict: a label or score token that pyarrow's block
parser reads is read to the same value by the exact line parser, and a token the exact parser
refuses is refused whichever path meets it, with the same one-line error naming file and
line (differential, token by token, on generated and hand-picked tokens)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankaudit.runs.errors import RunFileError
from rankaudit.runs.trec import _label, _score, read_trec_qrels, read_trec_run

SETTINGS = settings(
    max_examples=250,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

#: Tokens on either side of what the two parsers accept: signs, hex, octal and binary
#: prefixes, separators, exponents, non-finite words, digits beyond int64, non-ASCII digits.
TRICKY = [  # fmt: skip
    "0", "-0", "+0", "1", "+1", "-1", "01", "007", "0x10", "0X10", "0xFFFFFFFFFFFFFFFF",
    "0x7fffffffffffffff", "-0x10", "0b1", "0o7", "1_0", "1,5", "1.", ".5", "-.5", "+.5", ".",
    "1e3", "1E3", "1e+3", "1e-3", "1e", "e3", "1.e5", "0x1p3", "inf", "-inf", "Infinity",
    "nan", "NaN", "1e400", "-1e400", "1e-400", "4.9e-324", "1.7976931348623157e308",
    "1.8e308", "9007199254740991", "9007199254740992", "-9007199254740991",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "18446744073709551615", "0" * 30 + "1", "1" + "0" * 30, "9" * 5000, "١", "１", "1d3",
    "1.5f", "++1", "+-1", "--1", "true",
    "0.1000000000000000055511151231257827021181583404541015625",
]

TOKENS = st.one_of(
    st.sampled_from(TRICKY),
    st.text(alphabet="0123456789+-.eExXabcdfinIN_", min_size=1, max_size=8),
    st.builds(
        lambda sign, digits, frac, exp: f"{sign}{digits}{frac}{exp}",
        st.sampled_from(["", "+", "-"]),
        st.text(alphabet="0123456789", min_size=0, max_size=25),
        st.sampled_from(["", ".", ".5", ".125", ".0001"]),
        st.sampled_from(["", "e5", "e-5", "E+300", "e-320", "e309"]),
    ).filter(bool),  # a token, not an empty field
)


def _verdict(convert, token: str) -> tuple[str, object]:
    try:
        value = convert(token.encode())
    except ValueError:
        return "refused", None
    return "read", value


def _file_verdict(read, path) -> tuple[str, object]:
    try:
        table = read(path)
    except RunFileError as exc:
        return "refused", str(exc)
    return "read", table


def _same_bits(a: float, b: float) -> bool:
    return np.float64(a).tobytes() == np.float64(b).tobytes()


def _check_label(tmp_path, token: str) -> None:
    # the token alone (one block: pyarrow first), and after a line only the exact parser
    # reads ("+1" made pyarrow's integer parser give up on the whole block before)
    expect, value = _verdict(_label, token)
    for lines in ([f"q1 0 d1 {token}"], ["q1 0 d0 +1", f"q1 0 d1 {token}"]):
        path = tmp_path / "q.qrels"
        path.write_text("\n".join(lines) + "\n")
        got, table = _file_verdict(read_trec_qrels, path)
        assert got == expect, (token, lines, table)
        if got == "read":
            assert int(table.relevance[-1]) == value, (token, lines)
        else:
            assert str(table).startswith(f"{path}:{len(lines)}: relevance "), table


def _check_score(tmp_path, token: str) -> None:
    expect, value = _verdict(_score, token)
    for lines in ([f"q1 Q0 d1 1 {token} t"], ["q1 Q0 d0 1 inf0 t", f"q1 Q0 d1 2 {token} t"]):
        path = tmp_path / "r.run"
        path.write_text("\n".join(lines) + "\n")
        got, table = _file_verdict(read_trec_run, path)
        if len(lines) == 2:  # the first line is refused by both paths, whatever the token
            assert got == "refused" and str(table).startswith(f"{path}:1: score "), table
            continue
        assert got == expect, (token, table)
        if got == "read":
            assert math.isfinite(value) and _same_bits(float(table.score[-1]), value), token
        else:
            assert str(table).startswith(f"{path}:1: score "), table


@pytest.mark.parametrize("token", TRICKY)
def test_hand_picked_tokens_get_one_verdict(tmp_path, token):
    _check_label(tmp_path, token)
    _check_score(tmp_path, token)


@SETTINGS
@given(token=TOKENS)
def test_generated_tokens_get_one_verdict(tmp_path, token):
    _check_label(tmp_path, token)
    _check_score(tmp_path, token)


def test_hex_labels_are_refused_with_or_without_an_exact_line(tmp_path):
    """The reproducer: ``0x10`` was 16 and ``0xFFFFFFFFFFFFFFFF`` was -1 on the fast path,
    while a ``+1`` elsewhere in the file sent the block to the exact parser, which refused."""
    for other in ("q1 0 d2 0xFFFFFFFFFFFFFFFF", "q1 0 d2 +1"):
        path = tmp_path / "hex.qrels"
        path.write_text(f"q1 0 d1 0x10\n{other}\n")
        with pytest.raises(RunFileError, match=r"hex\.qrels:1: relevance '0x10' is not an integer"):
            read_trec_qrels(path)


def test_plus_signed_labels_are_read_on_the_fast_path(tmp_path):
    path = tmp_path / "plus.qrels"
    path.write_text("q1 0 d1 +2\nq1 0 d2 -1\nq1 0 d3 0\n")
    assert read_trec_qrels(path).relevance.tolist() == [2, -1, 0]
