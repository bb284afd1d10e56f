"""Lines split from whole reads match a line-at-a-time reading, wherever the reads end."""

import asyncio
import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.providers.process import TRUNCATED, AgentProcess

PIECES = st.sampled_from([b"a", b"{\"x\": 1}", b"\n", b"\r", b"\r\n", b"\xff", b"\xc3",
                          b"\xc3\xa9", b"\xe2\x82", b" "])


class _Reads:
    """A stream that hands out the given reads one by one."""

    def __init__(self, chunks: list[bytes]):
        self._chunks = list(chunks)

    async def read(self, _n: int) -> bytes:
        return self._chunks.pop(0) if self._chunks else b""


def _pump(chunks: list[bytes], max_line: int = 1 << 20) -> tuple[list[list[str]], bytes]:
    proc = AgentProcess(["true"], cwd=Path("."), env={}, max_line_bytes=max_line)
    batches: list[list[str]] = []
    sink = io.BytesIO()
    sink.close = lambda: None  # type: ignore[method-assign]
    asyncio.run(proc._pump(_Reads(chunks), sink, batches.append))  # type: ignore[arg-type]
    return batches, sink.getvalue()


def _expected(data: bytes) -> list[str]:
    parts = data.split(b"\n")
    lines = [p.decode("utf-8", "replace").rstrip("\r\n") for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1].decode("utf-8", "replace").rstrip("\r\n"))
    return lines


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(PIECES, min_size=1, max_size=12).map(b"".join), max_size=10))
def test_batches_equal_line_by_line_reading(chunks: list[bytes]):
    batches, kept = _pump(chunks)
    assert [line for batch in batches for line in batch] == _expected(b"".join(chunks))
    assert kept == b"".join(chunks)
    assert all(batches)  # no empty hand-overs


def test_long_line_is_cut_once_and_the_next_lines_follow():
    batches, _ = _pump([b"x" * 50, b"y" * 60, b"z" * 10 + b"\nnext\n", b"last"], max_line=100)
    lines = [line for batch in batches for line in batch]
    assert lines == ["x" * 50 + "y" * 60 + TRUNCATED, "next", "last"]
