"""Mermaid flowcharts: write a workflow as one, and read one back into a workflow."""

import re

from desktop.contract.enums import EdgeType, Provider
from desktop.graph.document import SLUG_PATTERN, WorkflowDocument, WorkflowEdge, WorkflowNode

_SAFE_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_RESERVED = {"end", "graph", "flowchart", "subgraph", "click", "style", "class", "classdef",
             "linkstyle", "default", "direction", "call", "href"}
_ID_COMMENT = re.compile(r"^%%\s*node\s+(\S+)\s*=\s*(\S+)\s*$")
_ENTITIES = {"quot": '"', "lt": "<", "gt": ">", "amp": "&", "nbsp": " "}
_DETAIL_SEP = " · "


def escape_label(text: str) -> str:
    """Text safe inside a quoted Mermaid label (entity codes for ``"#<>|``)."""
    return (text.replace("#", "#35;").replace('"', "#quot;").replace("|", "#124;")
            .replace("<", "#lt;").replace(">", "#gt;").replace("\n", " "))


def unescape_label(text: str) -> str:
    """Mermaid entity codes (``#quot;``, ``#35;``) back to characters."""
    def sub(match: re.Match) -> str:
        code = match.group(1)
        if code.isdigit():
            return chr(int(code))
        return _ENTITIES.get(code, match.group(0))

    return re.sub(r"#(\w+);", sub, text)


def _mermaid_ids(doc: WorkflowDocument) -> dict[str, str]:
    ids: dict[str, str] = {}
    for i, node in enumerate(doc.nodes):
        safe = _SAFE_ID.match(node.id) and node.id.lower() not in _RESERVED
        ids.setdefault(node.id, node.id if safe else f"n{i}_")
    return ids


def to_mermaid(doc: WorkflowDocument) -> str:
    """A Mermaid ``flowchart LR``: handoffs solid, reports dotted, ``<-->`` both ways."""
    ids = _mermaid_ids(doc)
    lines = ["---", f"title: {escape_label(doc.name)}", "---", "flowchart LR"]
    lines += [f"  %% node {mid} = {nid}" for nid, mid in ids.items() if mid != nid]
    for node in doc.nodes:
        detail = f"{node.role_template}{_DETAIL_SEP}{node.provider}"
        text = f"{escape_label(node.label or node.id)}<br/><small>{escape_label(detail)}</small>"
        lines.append(f'  {ids[node.id]}["{text}"]')
    for edge in doc.edges:
        dotted = edge.type == EdgeType.REPORT
        arrow = ("<" if edge.bidirectional else "") + ("-.->" if dotted else "-->")
        label = f'|"{escape_label(edge.label)}"|' if edge.label is not None else ""
        src, dst = ids.get(edge.from_, edge.from_), ids.get(edge.to, edge.to)
        lines.append(f"  {src} {arrow}{label} {dst}")
    entry = doc.entry_node()
    if entry is not None:
        lines.append("  classDef entry stroke-width:3px")
        lines.append(f"  class {ids[entry.id]} entry")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- reading

_SHAPE = (r'\[\[[^\]]*\]\]|\[\([^)]*\)\]|\(\[[^\]]*\]\)|\(\([^)]*\)\)|\{\{[^}]*\}\}'
          r'|\["[^"]*"\]|\("[^"]*"\)|\{"[^"]*"\}|\[[^\]]*\]|\([^)]*\)|\{[^}]*\}|>[^\]]*\]')
_NODE = re.compile(rf"\s*(?P<id>[A-Za-z0-9_][\w.-]*?)\s*(?P<shape>{_SHAPE})?(?=\s|$|&|<|-|=)")
_ARROW = re.compile(
    r"\s*(?P<arrow>(?P<lt><)?(?P<body>-\.+-|-\.+|-{2,}|={2,})(?P<head>>|o|x)?)"
    r"(?:\|(?P<label>[^|]*)\|)?"
)
_TEXT_ARROW = re.compile(
    r"\s*(?P<lt><)?(?P<open>--|-\.|==)\s+(?P<label>[^-=.>][^>]*?)\s+"
    r"(?P<close>-{2,}>|\.->|={2,}>|-{3}|\.-|={3})"
)
_SKIP = re.compile(r"^(flowchart|graph|classDef|style|linkStyle|click|subgraph|end\b|direction)")


def _strip_quotes(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        text = text[1:-1]
    return text


def _shape_text(shape: str) -> str:
    inner = re.sub(r"^[\[\(\{>]+|[\]\)\}]+$", "", shape)
    return _strip_quotes(inner)


class _Builder:
    def __init__(self) -> None:
        self.nodes: dict[str, WorkflowNode] = {}
        self.edges: list[WorkflowEdge] = []
        self.aliases: dict[str, str] = {}
        self.entries: set[str] = set()

    def slug(self, mid: str) -> str:
        if mid in self.aliases:
            return self.aliases[mid]
        if re.match(SLUG_PATTERN, mid):
            return mid
        return "n" + re.sub(r"[^A-Za-z0-9_.-]", "_", mid)[:63]

    def node(self, mid: str, shape: str | None) -> str:
        nid = self.slug(mid)
        node = self.nodes.get(nid) or WorkflowNode(id=nid, label=nid)
        self.nodes[nid] = node
        if shape:
            self._apply_label(node, _shape_text(shape))
        return nid

    @staticmethod
    def _apply_label(node: WorkflowNode, text: str) -> None:
        label, _, detail = text.partition("<br/>")
        node.label = unescape_label(re.sub(r"<[^>]+>", "", label)).strip() or node.id
        detail = unescape_label(re.sub(r"<[^>]+>", "", detail)).strip()
        if _DETAIL_SEP.strip() in detail:
            role, _, provider = (p.strip() for p in detail.partition(_DETAIL_SEP.strip()))
            if re.match(r"^[A-Za-z0-9_.-]+$", role):
                node.role_template = role
            if provider in {p.value for p in Provider}:
                node.provider = provider


def _group(line: str, pos: int, b: _Builder) -> tuple[list[str], int] | None:
    found = []
    while True:
        m = _NODE.match(line, pos)
        if not m:
            return None
        found.append(b.node(m.group("id"), m.group("shape")))
        pos = m.end()
        amp = re.match(r"\s*&", line[pos:])
        if not amp:
            return found, pos
        pos += amp.end()


def _parse_line(line: str, b: _Builder) -> None:
    first = _group(line, 0, b)
    if first is None:
        return
    left, pos = first
    while pos < len(line) and line[pos:].strip():
        m = _TEXT_ARROW.match(line, pos) or _ARROW.match(line, pos)
        if not m:
            return
        groups = m.groupdict()
        body = groups.get("body") or groups.get("open", "") + groups.get("close", "")
        dotted = "." in body
        both = bool(groups.get("lt"))
        label = groups.get("label")
        right = _group(line, m.end(), b)
        if right is None:
            return
        targets, pos = right
        for src in left:
            for dst in targets:
                b.edges.append(WorkflowEdge(
                    **{"from": src}, to=dst, bidirectional=both,
                    type=EdgeType.REPORT if dotted else EdgeType.HANDOFF,
                    label=unescape_label(_strip_quotes(label)) if label is not None else None))
        left = targets


def from_mermaid(text: str, name: str | None = None) -> WorkflowDocument:
    """A workflow from a Mermaid flowchart (as written by to_mermaid, or hand-written).

    Node ids, labels, ``role · provider`` details, edge types (dotted = report),
    edge labels, ``<-->`` and the ``entry`` class survive; positions come from
    auto_layout.
    """
    from desktop.graph.layout import auto_layout

    b = _Builder()
    title = None
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        for meta in lines[1:end]:
            if meta.strip().startswith("title:"):
                title = unescape_label(meta.split(":", 1)[1].strip().strip('"'))
        lines = lines[end + 1:]
    for raw in lines:
        line = raw.strip().rstrip(";")
        alias = _ID_COMMENT.match(line)
        if alias:
            b.aliases[alias.group(1)] = alias.group(2)
            continue
        if not line or line.startswith("%%"):
            continue
        cls = re.match(r"^class\s+([\w.,-]+)\s+entry\b", line)
        if cls:
            b.entries.update(b.slug(x) for x in cls.group(1).split(","))
            continue
        if _SKIP.match(line):
            continue
        _parse_line(line, b)
    for nid in b.entries:
        if nid in b.nodes:
            b.nodes[nid].entry = True
    doc = WorkflowDocument(name=name or title or "Imported flowchart",
                           nodes=list(b.nodes.values()), edges=b.edges)
    return auto_layout(doc)
