"""Agent output copies: complete and in order once close() is done."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.providers.tee import FileTee


@settings(max_examples=40, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=30))
def test_everything_written_before_close_is_in_the_file_in_order(tmp_path_factory, chunks):
    path = tmp_path_factory.mktemp("tee") / "agent-stdout.txt"
    path.write_bytes(b"before\n")
    tee = FileTee(path)
    for chunk in chunks:
        tee.write(chunk)
    tee.flush()
    tee.close().result()
    assert path.read_bytes() == b"before\n" + b"".join(chunks)
    assert tee.error is None


class _FullDisk:
    def write(self, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_failing_write_is_recorded_not_raised(tmp_path: Path):
    tee = FileTee(tmp_path / "out.txt")
    tee._fh.close()
    tee._fh = _FullDisk()
    tee.write(b"x")
    tee.write(b"y")
    tee.close().result()
    assert isinstance(tee.error, OSError) and tee.error.errno == 28
