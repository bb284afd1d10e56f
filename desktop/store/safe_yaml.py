"""The one YAML reader: safe tags only, bounded size, depth and alias expansion.

Every YAML file the program reads (workflows, suites, role templates,
run-info.yaml) goes through here, because a few hostile bytes can otherwise
exhaust memory or the stack:

- size: a file above ``MAX_YAML_BYTES`` (5 MiB) is refused before it is read, and
  one of more than ``MAX_NODES`` (100,000) values while it is parsed;
- depth: collections nested deeper than ``MAX_DEPTH`` (64) are refused (the
  composer recurses once per level, so 5,000 ``[`` would end in RecursionError);
  libyaml's scanner has a nesting limit of its own (1,000 levels since PyYAML
  6.0.4's wheels) that may refuse a file before our composer sees it, and that
  refusal is reported as the same ``depth`` error;
- aliases: every ``*alias`` counts the nodes it stands for; past
  ``MAX_ALIAS_NODES`` (10,000) the document is refused ("billion laughs": nine
  aliases of nine aliases ... stand for a billion nodes), and an alias to the
  collection that contains it (a cycle) is refused outright;
- tags: only the plain YAML types (``!!python/...`` and custom tags are refused);
- duplicate keys are refused (YAML would silently keep the last).

Each refusal is a :class:`YamlError` naming the file, the line and the fix.
It lives in ``store/`` because that is the lowest layer that does I/O
(``contract/`` does none) and both ``graph/`` and ``store/`` import it.
"""

import os
import stat
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

MAX_YAML_BYTES = 5 * 1024 * 1024
MAX_DEPTH = 64
MAX_ALIAS_NODES = 10_000
MAX_NODES = 100_000

SAFE_TAG_PREFIX = "tag:yaml.org,2002:"
SAFE_TAGS = frozenset(
    SAFE_TAG_PREFIX + t
    for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "binary",
              "omap", "pairs", "set", "merge", "value")
)


class YamlError(ValueError, yaml.YAMLError):
    """YAML that can not be read safely: where (file, line), what, and the fix.

    Also a ``yaml.YAMLError``, so code that catches PyYAML's errors catches these.
    """

    def __init__(self, file: str, message: str, hint: str = "", line: int | None = None,
                 kind: str = "malformed"):
        self.file, self.message, self.hint, self.line, self.kind = file, message, hint, line, kind
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {message}" + (f" — {hint}" if hint else ""))


def _line(mark: Any) -> int | None:
    return mark.line + 1 if mark is not None else None


try:  # libyaml scans about 50 times faster; the composer below stays in Python either way
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml.parser import Parser as _PyParser
    from yaml.reader import Reader as _Reader
    from yaml.scanner import Scanner as _Scanner

    class _Parser(_Reader, _Scanner, _PyParser):  # type: ignore[no-redef]
        def __init__(self, text: str) -> None:
            _Reader.__init__(self, text)
            _Scanner.__init__(self)
            _PyParser.__init__(self)


class _BoundedLoader(_Parser, Composer, SafeConstructor, Resolver):
    """A safe loader whose composer counts depth, nodes, and the nodes aliases stand for."""

    # The C parser brings its own composer; these are the Python one, which we bound.
    get_single_node = Composer.get_single_node
    compose_document = Composer.compose_document
    compose_scalar_node = Composer.compose_scalar_node
    compose_sequence_node = Composer.compose_sequence_node

    def __init__(self, text: str, source: str, strict: bool):
        _Parser.__init__(self, text)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        self.source, self.strict = source, strict
        self.depth = 0
        self.nodes = 0
        self.alias_nodes = 0
        # Nodes an alias may stand for, with the number of nodes each expands to; a node
        # not in here yet is still being composed, so an alias to it would be a cycle.
        self.sizes: dict[yaml.Node, int] = {}

    def refuse(self, mark: Any, message: str, hint: str, kind: str) -> YamlError:
        return YamlError(self.source, message, hint, _line(mark), kind)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            target = self.anchors.get(event.anchor)
            if target is not None:
                if target not in self.sizes:
                    raise self.refuse(
                        event.start_mark, f"alias *{event.anchor} refers to a collection "
                        "that contains it", "remove the alias; a document can not contain "
                        "itself", "alias")
                self.alias_nodes += self.sizes[target]
                if self.alias_nodes > MAX_ALIAS_NODES:
                    raise self.refuse(
                        event.start_mark, f"aliases expand to more than {MAX_ALIAS_NODES:,} "
                        "nodes", "write the values out, or use fewer nested aliases", "alias")
            return Composer.compose_node(self, parent, index)
        self.depth += 1
        self.nodes += 1
        try:
            if self.depth > MAX_DEPTH:
                raise _too_deep(self.source, _line(self.peek_event().start_mark))
            if self.nodes > MAX_NODES:
                raise self.refuse(
                    self.peek_event().start_mark, f"more than {MAX_NODES:,} values",
                    "split the file", "size")
            node = Composer.compose_node(self, parent, index)
        finally:
            self.depth -= 1
        if self.strict and node.tag not in SAFE_TAGS:
            shown = node.tag.replace(SAFE_TAG_PREFIX, "!!")
            raise self.refuse(node.start_mark, f"YAML tag {shown!r} is not allowed",
                              "this file is plain data; remove the tag", "tag")
        self.sizes[node] = 1 + sum(self.sizes.get(child, 1) for child in _children(node))
        return node

    def compose_mapping_node(self, anchor: str | None) -> yaml.MappingNode:
        node = Composer.compose_mapping_node(self, anchor)
        if self.strict:
            seen: set[Any] = set()
            for key, _ in node.value:
                name = key.value if isinstance(key, yaml.ScalarNode) else id(key)
                if name in seen and name != "<<":
                    raise self.refuse(key.start_mark, f"duplicate key {name!r}",
                                      "keep one of them; YAML would silently use the last",
                                      "duplicate")
                seen.add(name)
        return node


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def as_yaml_error(exc: yaml.YAMLError, source: str) -> YamlError:
    """PyYAML's error as a YamlError naming ``source`` and the line."""
    if isinstance(exc, YamlError):
        return exc
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if isinstance(exc, yaml.constructor.ConstructorError):
        return YamlError(source, f"YAML tag not allowed: {problem}",
                         "this file is plain data; remove the tag", _line(mark), "tag")
    context = getattr(exc, "context", None)
    if _is_nesting_limit(problem, context):
        return _too_deep(source, _line(mark))
    return YamlError(source, f"malformed YAML: {problem}" + (f" ({context})" if context else ""),
                     "check indentation, colons and quotes on this line", _line(mark))


def _is_nesting_limit(problem: str, context: str | None) -> bool:
    """Whether PyYAML refused the text for its nesting, whatever its own limit is.

    libyaml says "exceeded maximum nesting depth" ("while increasing flow level" or
    "block level"); the words are matched loosely so a reworded limit still counts.
    """
    text = f"{problem} {context or ''}".lower()
    return "nesting" in text and ("depth" in text or "level" in text)


def _too_deep(source: str, line: int | None) -> YamlError:
    return YamlError(source, f"nested deeper than {MAX_DEPTH} levels", "flatten the structure",
                     line, "depth")


def compose_yaml(text: str, source: str = "<string>", *, strict: bool = True
                 ) -> tuple[yaml.Node | None, _BoundedLoader]:
    """The node tree of ``text`` (no objects built) and the loader that can construct it.

    ``strict`` refuses unsafe tags and duplicate keys here; a caller that reports those
    itself, with field paths (the workflow loader), passes ``strict=False``.
    """
    loader = _BoundedLoader(text, source, strict)
    try:
        return loader.get_single_node(), loader
    except yaml.YAMLError as exc:
        raise as_yaml_error(exc, source) from None
    except RecursionError:  # MAX_DEPTH is far below the stack; this is a last line of defence
        raise _too_deep(source, None) from None


def construct_yaml(root: yaml.Node | None, loader: _BoundedLoader) -> Any:
    """Python data for a tree made by :func:`compose_yaml` (safe types only)."""
    if root is None:
        return None
    try:
        return loader.construct_document(root)
    except yaml.YAMLError as exc:
        raise as_yaml_error(exc, loader.source) from None


def load_yaml(text: str, source: str = "<string>") -> Any:
    """Parse YAML text safely within the limits of this module; YamlError if it is bad."""
    return construct_yaml(*compose_yaml(text.removeprefix("\ufeff"), source))


def read_yaml_text(path: str | os.PathLike[str], limit: int = MAX_YAML_BYTES) -> str:
    """The UTF-8 text of a YAML file, refused before reading when above ``limit`` bytes.

    OSError when it can not be opened; YamlError when too big or not UTF-8.
    """
    file = str(path)
    # Non-blocking, so a FIFO in place of the file can not hang the reader.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise YamlError(file, "is not a regular file", "give the path of a YAML file",
                            kind="type")
        size = info.st_size
        if size > limit:
            raise YamlError(file, f"is {size / 1048576:.1f} MB; YAML files above "
                            f"{limit / 1048576:g} MB are refused", "split it or trim it",
                            kind="size")
        data = handle.read(limit + 1)
    if len(data) > limit:  # grew while being read, or a file fstat can not size (a FIFO)
        raise YamlError(file, f"YAML files above {limit / 1048576:g} MB are refused",
                        "split it or trim it", kind="size")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise YamlError(file, f"not valid UTF-8 (byte {exc.start})", "save the file as UTF-8",
                        line, "encoding") from None


def load_yaml_file(path: str | os.PathLike[str], limit: int = MAX_YAML_BYTES) -> Any:
    """Read and parse a YAML file within the limits; OSError or YamlError."""
    return load_yaml(read_yaml_text(path, limit), str(Path(path)))
