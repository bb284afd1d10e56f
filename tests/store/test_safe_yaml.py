"""The one YAML reader refuses expansion, depth, size, unsafe tags and duplicate keys."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from desktop.graph.roles import RoleFileError, load_role
from desktop.store import safe_yaml
from desktop.store.run_info import RunInfoError, read_run_info
from desktop.store.safe_yaml import YamlError, load_yaml, load_yaml_file

HOSTILE = Path(__file__).parents[1] / "data" / "hostile"


def refusal(path: Path) -> YamlError:
    with pytest.raises(YamlError) as info:
        load_yaml_file(path)
    assert str(path) in str(info.value)
    return info.value


def test_billion_laughs_is_refused_at_the_alias_that_passes_the_budget() -> None:
    err = refusal(HOSTILE / "billion-laughs.flow.yaml")
    assert err.kind == "alias" and err.line is not None and 5 < err.line < 15
    assert f"{safe_yaml.MAX_ALIAS_NODES:,}" in err.message


def test_a_few_aliases_and_merge_keys_still_load() -> None:
    text = "base: &b {timeout: 30, retries: 2}\nnode: {<<: *b, retries: 5}\nagain: *b\n"
    assert load_yaml(text) == {"base": {"timeout": 30, "retries": 2},
                               "node": {"timeout": 30, "retries": 5},
                               "again": {"timeout": 30, "retries": 2}}


def test_an_alias_to_its_own_container_is_refused() -> None:
    err = refusal(HOSTILE / "recursive-alias.flow.yaml")
    assert err.kind == "alias" and err.line == 5 and "contains it" in err.message


@pytest.mark.parametrize("name", ["deep-brackets.flow.yaml", "deep-maps.flow.yaml"])
def test_deep_nesting_is_refused_without_recursion_error(name: str) -> None:
    err = refusal(HOSTILE / name)
    assert err.kind == "depth" and err.line == 3 and str(safe_yaml.MAX_DEPTH) in err.message


@pytest.mark.parametrize(("text", "line"), [
    ("a:\n  b:\n" + "[" * 5000 + "]" * 5000, 3),         # libyaml: "flow level"
    ("- " * 3000 + "x\n", 1),                             # libyaml: "block level"
    ("{a: " * 3000 + "1" + "}" * 3000, 1),
])
def test_nesting_the_scanner_refuses_is_a_depth_refusal_with_our_limit(text: str,
                                                                       line: int) -> None:
    with pytest.raises(YamlError) as info:
        load_yaml(text, "deep.flow.yaml")
    err = info.value
    assert (err.kind, err.file, err.line) == ("depth", "deep.flow.yaml", line)
    assert f"nested deeper than {safe_yaml.MAX_DEPTH} levels" in str(err)


@pytest.mark.parametrize("context", ["while increasing flow level",
                                     "while increasing block level"])
def test_pyyamls_own_nesting_error_becomes_a_depth_refusal(context: str) -> None:
    """Whatever PyYAML version is installed: its scanner's refusal, as it words it."""
    mark = yaml.Mark("deep.flow.yaml", 0, 6, 999, "", 0)
    scanner_error = yaml.scanner.ScannerError(context, None, "exceeded maximum nesting depth",
                                              mark)
    err = safe_yaml.as_yaml_error(scanner_error, "deep.flow.yaml")
    assert (err.kind, err.line) == ("depth", 7)
    assert str(err).startswith(f"deep.flow.yaml:7: nested deeper than {safe_yaml.MAX_DEPTH}")


def test_other_scanner_errors_stay_malformed() -> None:
    with pytest.raises(YamlError) as info:
        load_yaml("a: [1, 2\nb: 3\n", "bad.yaml")
    assert info.value.kind == "malformed" and info.value.line is not None


def test_our_depth_check_refuses_before_the_scanner_limit() -> None:
    """100 levels: far below libyaml's limit, so only our composer can refuse it."""
    with pytest.raises(YamlError) as info:
        load_yaml("x: " + "[" * 100 + "]" * 100, "deep.yaml")
    assert info.value.kind == "depth" and info.value.line == 1
    assert str(safe_yaml.MAX_DEPTH) in info.value.message


def test_deep_block_maps_are_refused_at_the_line_past_the_limit() -> None:
    text = "\n".join(" " * i + f"k{i}:" for i in range(3000)) + " 1\n"
    with pytest.raises(YamlError) as info:
        load_yaml(text, "deep.yaml")
    assert info.value.kind == "depth" and info.value.line == safe_yaml.MAX_DEPTH


def test_nesting_up_to_the_limit_loads() -> None:
    depth = safe_yaml.MAX_DEPTH
    assert load_yaml("[" * depth + "]" * depth) is not None


def test_too_many_values_are_refused() -> None:
    text = "[" + ", ".join(["1"] * (safe_yaml.MAX_NODES + 1)) + "]"
    with pytest.raises(YamlError) as info:
        load_yaml(text, "many.yaml")
    assert info.value.kind == "size"


def test_a_big_file_is_refused_before_it_is_read(tmp_path: Path, monkeypatch) -> None:
    big = tmp_path / "big.flow.yaml"
    with open(big, "wb") as handle:  # sparse: 50 MB on paper, nothing on disk
        handle.truncate(50 * 1024 * 1024)
    reads: list[int] = []
    real_fdopen = os.fdopen

    def spying_fdopen(fd: int, *args, **kwargs):
        handle = real_fdopen(fd, *args, **kwargs)
        real_read = handle.read
        handle.read = lambda *a: reads.append(1) or real_read(*a)  # type: ignore[method-assign]
        return handle

    monkeypatch.setattr(safe_yaml.os, "fdopen", spying_fdopen)
    err = refusal(big)
    assert err.kind == "size" and "5 MB" in str(err) and not reads


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    assert refusal(fifo).kind == "type"


@pytest.mark.parametrize("text, kind, line", [
    ("a: 1\nb: !!python/object/apply:os.system [x]\n", "tag", 2),
    ("a: !custom 1\n", "tag", 1),
    ("a: 1\nb: 2\na: 3\n", "duplicate", 3),
    ("a: 1\nb: c: d\n", "malformed", 2),
])
def test_unsafe_tags_duplicates_and_bad_syntax_name_the_line(text: str, kind: str, line: int
                                                             ) -> None:
    with pytest.raises(YamlError) as info:
        load_yaml(text, "f.yaml")
    assert info.value.kind == kind and info.value.line == line
    assert str(info.value).startswith(f"f.yaml:{line}: ")


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"a: 1\nb: \xff\n")
    err = refusal(bad)
    assert err.kind == "encoding" and err.line == 2


plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20)
    | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=30,
)


@given(plain)
def test_plain_data_loads_as_the_standard_safe_loader_does(data: object) -> None:
    text = yaml.safe_dump(data)
    assert load_yaml(text) == yaml.safe_load(text)


def test_the_pure_python_parser_enforces_the_same_limits() -> None:
    # Without libyaml the loader falls back to PyYAML's own scanner and parser.
    code = (
        "import sys; sys.modules['yaml._yaml'] = None\n"
        "from desktop.store.safe_yaml import YamlError, load_yaml_file, _Parser\n"
        "assert _Parser.__module__ == 'desktop.store.safe_yaml', _Parser\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        load_yaml_file(name)\n"
        "    except YamlError as exc:\n"
        "        print(exc.kind)\n"
    )
    names = ["billion-laughs.flow.yaml", "recursive-alias.flow.yaml", "deep-brackets.flow.yaml"]
    out = subprocess.run([sys.executable, "-c", code, *(str(HOSTILE / n) for n in names)],
                         capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["alias", "alias", "depth"]


def test_role_templates_and_run_info_use_the_same_limits(tmp_path: Path) -> None:
    laughs = (HOSTILE / "billion-laughs.flow.yaml").read_text()
    (tmp_path / "lol.yaml").write_text(laughs)
    with pytest.raises(RoleFileError, match="aliases expand"):
        load_role("lol", tmp_path)
    (tmp_path / "run-info.yaml").write_text(laughs)
    with pytest.raises(RunInfoError, match="aliases expand"):
        read_run_info(tmp_path / "run-info.yaml")
    (tmp_path / "run-info.yaml").write_text("version: 1\nversion: 1\n")
    with pytest.raises(RunInfoError, match="duplicate key"):
        read_run_info(tmp_path / "run-info.yaml")
