"""A stream read with the wrong ``--provider`` is refused by ``import`` (and noted by
``normalize``), naming the provider whose reader recognises it."""

import argparse
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.cli import import_run, normalize

FIXTURES = Path(__file__).parents[1] / "providers" / "fixtures"
PROVIDERS = ("claude", "codex", "gemini")
STREAMS = sorted(FIXTURES.glob("*.jsonl"))


def run_cmd(module, argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    module.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.handler(args)


def runs_in(data: Path) -> list[str]:
    runs = data / "runs"
    return sorted(p.name for p in runs.iterdir()) if runs.is_dir() else []


@pytest.mark.parametrize("stream", STREAMS, ids=lambda p: p.stem)
@pytest.mark.parametrize("provider", PROVIDERS)
def test_import_of_another_agents_stream_is_refused(stream: Path, provider: str,
                                                    tmp_path: Path, capsys):
    real = stream.stem.split("-")[0]
    data = tmp_path / "data"
    rc = run_cmd(import_run, ["import", "--provider", provider, str(stream),
                              "--data-dir", str(data)])
    out = capsys.readouterr()
    if provider == real:
        assert rc == 0 and len(runs_in(data)) == 1
        return
    events, _ = normalize.normalize(provider, normalize.read_lines(stream))
    if any(e["type"] not in ("agent.raw", "node.log") for e in events):
        pytest.skip(f"the {provider} reader maps a line of {stream.name}")
    assert rc == 2
    assert runs_in(data) == []
    assert f"try --provider {real}" in out.err
    assert "no run was made" in out.err and str(stream) in out.err


def test_normalize_notes_the_provider_that_recognises_the_stream(capsys):
    stream = FIXTURES / "claude-tool.jsonl"
    assert run_cmd(normalize, ["normalize", "--provider", "codex", str(stream)]) == 0
    out = capsys.readouterr()
    assert out.out.count("\n") == 25
    assert "try --provider claude" in out.err


UNKNOWN_LINES = st.lists(
    st.fixed_dictionaries({"type": st.text(alphabet="abcxyz_.", min_size=1, max_size=12)
                           .filter(lambda t: t not in ("error", "result", "message", "init"))},
                          optional={"data": st.integers() | st.text(max_size=20)}),
    min_size=1, max_size=8)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=UNKNOWN_LINES, provider=st.sampled_from(PROVIDERS))
def test_a_stream_no_reader_knows_makes_no_run(lines, provider, capsys):
    with tempfile.TemporaryDirectory() as tmp:
        stream = Path(tmp) / "s.jsonl"
        stream.write_text("".join(json.dumps(line) + "\n" for line in lines))
        events, _ = normalize.normalize(provider, normalize.read_lines(stream))
        if any(e["type"] not in ("agent.raw", "node.log") for e in events):
            return  # a type this reader knows after all
        data = Path(tmp) / "data"
        rc = run_cmd(import_run, ["import", "--provider", provider, str(stream),
                                  "--data-dir", str(data)])
        err = capsys.readouterr().err
        assert rc == 2
        assert runs_in(data) == []
        assert f"not a {provider} event" in err or f"is a {provider} event" in err
