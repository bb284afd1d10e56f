"""Export a workflow as Mermaid or Graphviz DOT text."""

import os

from desktop.contract.enums import EdgeType
from desktop.disk.atomic import atomic_write_text
from desktop.graph.document import WorkflowDocument
from desktop.graph.mermaid import from_mermaid, to_mermaid

__all__ = ["FORMATS", "export", "from_mermaid", "to_dot", "to_mermaid", "write_export"]


def dot_quote(text: str) -> str:
    """``text`` as a double-quoted DOT string."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def to_dot(doc: WorkflowDocument) -> str:
    """A Graphviz digraph: handoffs solid, reports dashed, bidirectional ``dir=both``."""
    entry = doc.entry_node()
    lines = [f"digraph {dot_quote(doc.name)} {{", "  rankdir=LR;",
             '  node [shape=box, style="rounded"];']
    for node in doc.nodes:
        label = f"{node.label or node.id}\n{node.role_template} · {node.provider}"
        attrs = [f"label={dot_quote(label)}"]
        if entry is not None and node.id == entry.id:
            attrs.append("penwidth=2")
        lines.append(f"  {dot_quote(node.id)} [{', '.join(attrs)}];")
    for edge in doc.edges:
        attrs = []
        if edge.type == EdgeType.REPORT:
            attrs.append("style=dashed")
        if edge.bidirectional:
            attrs.append("dir=both")
        if edge.label is not None:
            attrs.append(f"label={dot_quote(edge.label)}")
        tail = f" [{', '.join(attrs)}]" if attrs else ""
        lines.append(f"  {dot_quote(edge.from_)} -> {dot_quote(edge.to)}{tail};")
    lines.append("}")
    return "\n".join(lines) + "\n"


FORMATS = {"mermaid": to_mermaid, "dot": to_dot}


def export(doc: WorkflowDocument, fmt: str) -> str:
    """The document in format ``fmt`` (one of FORMATS); ValueError otherwise."""
    try:
        return FORMATS[fmt](doc)
    except KeyError:
        raise ValueError(f"unknown format {fmt!r}; use one of: {', '.join(FORMATS)}") from None


def write_export(doc: WorkflowDocument, fmt: str, path: str | os.PathLike[str]) -> None:
    """Write the document in format ``fmt`` to ``path`` (atomically: a reader never sees
    half a file); ValueError for an unknown format, OSError when it cannot be written."""
    atomic_write_text(path, export(doc, fmt), keep_mode=True)
