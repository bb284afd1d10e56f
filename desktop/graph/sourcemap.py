"""Map field paths like ``nodes[3].provider`` to line numbers in YAML text."""

import yaml

from desktop.graph.errors import Problem, format_path
from desktop.store.safe_yaml import SAFE_TAG_PREFIX, compose_yaml
from desktop.store.safe_yaml import SAFE_TAGS as _SAFE_TAGS


class SourceMap:
    """Line numbers (1-based) of every key and sequence item in a YAML document."""

    def __init__(self, lines: dict[str, int] | None = None):
        self.lines: dict[str, int] = dict(lines or {})

    def line(self, path: str) -> int | None:
        """The line of ``path``, or of its nearest ancestor that has one."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = _parent(path)
        return None


def _parent(path: str) -> str:
    cut = max(path.rfind("."), path.rfind("["))
    return path[:cut] if cut > 0 else ""


def compose_map(text: str, file: str | None) -> tuple[SourceMap, list[Problem]]:
    """Compose ``text`` with the safe loader's limits into a map of lines and structural
    problems (see :func:`map_lines`); a YamlError (a ``yaml.YAMLError``) when it is bad."""
    root, _ = compose_yaml(text, file or "<string>", strict=False)
    return map_lines(root, file)


def map_lines(root: yaml.Node | None, file: str | None) -> tuple[SourceMap, list[Problem]]:
    """A composed YAML tree (see store/safe_yaml.py) as a map of lines, plus structural
    problems: unsafe or unknown tags and duplicate keys, each with its field path.
    """
    smap = SourceMap()
    problems: list[Problem] = []
    if root is not None:
        _walk(root, (), smap, problems, file)
    return smap, problems


def _walk(node: yaml.Node, path: tuple, smap: SourceMap, problems: list[Problem],
          file: str | None) -> None:
    line = node.start_mark.line + 1
    if node.tag not in _SAFE_TAGS:
        shown = node.tag.replace(SAFE_TAG_PREFIX, "!!")
        problems.append(Problem(
            format_path(path), f"YAML tag {shown!r} is not allowed",
            "workflow files are plain data; remove the tag", "error", line, file))
        return
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node)
            child = (*path, key)
            key_line = key_node.start_mark.line + 1
            if key in seen:
                problems.append(Problem(
                    format_path(child), f"duplicate key {key!r}",
                    "keep one of them; YAML would silently use the last", "error", key_line, file))
            seen.add(key)
            smap.lines.setdefault(format_path(child), key_line)
            _walk(value_node, child, smap, problems, file)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            child = (*path, i)
            smap.lines.setdefault(format_path(child), item.start_mark.line + 1)
            _walk(item, child, smap, problems, file)
