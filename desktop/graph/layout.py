"""Automatic node placement: layers left to right, or a force layout for tangles."""

import math
import random
from typing import Literal

import networkx as nx

from desktop.contract.enums import EdgeType
from desktop.graph.document import Position, WorkflowDocument
from desktop.graph.topology import flow_graph

LAYER_SPACING = 260.0
ROW_SPACING = 180.0  # room under each card for its run status, and a lane for edges
Method = Literal["auto", "layered", "force"]


def auto_layout(doc: WorkflowDocument, method: Method = "auto") -> WorkflowDocument:
    """A copy of ``doc`` with every node given a position.

    ``auto`` lays out in layers (topological generations of the handoff graph) when
    handoffs form no cycle, or when an entry node lets loops be cut at their back
    edges; otherwise it uses a seeded force-directed layout, so the result is repeatable.
    """
    if not doc.nodes:
        return doc.model_copy(deep=True)
    layers = None if method == "force" else _layers(doc, force_cut=method == "layered")
    coords = _layered(layers) if layers is not None else _spring(doc)
    out = doc.model_copy(deep=True)
    for node in out.nodes:
        x, y = coords[node.id]
        node.position = Position(x=round(x), y=round(y))
    return out


def _layers(doc: WorkflowDocument, force_cut: bool) -> list[list[str]] | None:
    graph = flow_graph(doc, EdgeType.HANDOFF)
    if not nx.is_directed_acyclic_graph(graph):
        entry = doc.entry_node()
        if entry is None and not force_cut:
            return None
        graph = _without_back_edges(graph, [entry.id] if entry else [])
    order = {n.id: i for i, n in enumerate(doc.nodes)}
    return [sorted(gen, key=order.__getitem__) for gen in nx.topological_generations(graph)]


def _without_back_edges(graph: nx.DiGraph, roots: list[str]) -> nx.DiGraph:
    """The graph minus the edges that close a cycle in a depth-first walk from ``roots``."""
    dag = graph.copy()
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    starts = roots + [n for n in graph.nodes if n not in roots]
    for start in starts:
        if start in state:
            continue
        stack = [(start, iter(list(graph.successors(start))))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                dag.remove_edge(node, child)
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(list(graph.successors(child)))))
    return dag


def _layered(layers: list[list[str]]) -> dict[str, tuple[float, float]]:
    coords: dict[str, tuple[float, float]] = {}
    for col, layer in enumerate(layers):
        middle = (len(layer) - 1) / 2
        for row, node_id in enumerate(layer):
            coords[node_id] = (col * LAYER_SPACING, (row - middle) * ROW_SPACING)
    return coords


def _spring(doc: WorkflowDocument) -> dict[str, tuple[float, float]]:
    graph = flow_graph(doc).to_undirected()
    scale = LAYER_SPACING * max(1.0, math.sqrt(len(doc.nodes)))
    raw = force_directed(graph, seed=7, iterations=200)
    coords = {node: (x * scale, y * scale) for node, (x, y) in raw.items()}
    return _spread(coords)


def force_directed(graph: nx.Graph, seed: int = 7,
                   iterations: int = 200) -> dict[str, tuple[float, float]]:
    """Fruchterman-Reingold positions in [-1, 1], seeded so the result repeats.

    Pure Python (networkx's spring_layout needs numpy, which we do not ship);
    workflows have tens of nodes, so O(n^2) per iteration is fine.
    """
    rng = random.Random(seed)
    nodes = list(graph.nodes)
    if len(nodes) == 1:
        return {nodes[0]: (0.0, 0.0)}
    pos = {n: [rng.uniform(-1, 1), rng.uniform(-1, 1)] for n in nodes}
    k = math.sqrt(4.0 / max(len(nodes), 1))
    temp = 0.2
    for _ in range(iterations):
        disp = {n: [0.0, 0.0] for n in nodes}
        for i, a in enumerate(nodes):
            for b in nodes[i + 1:]:
                dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
                dist = max(math.hypot(dx, dy), 1e-6)
                push = k * k / dist
                disp[a][0] += dx / dist * push
                disp[a][1] += dy / dist * push
                disp[b][0] -= dx / dist * push
                disp[b][1] -= dy / dist * push
        for a, b in graph.edges:
            dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
            dist = max(math.hypot(dx, dy), 1e-6)
            pull = dist * dist / k
            disp[a][0] -= dx / dist * pull
            disp[a][1] -= dy / dist * pull
            disp[b][0] += dx / dist * pull
            disp[b][1] += dy / dist * pull
        for n in nodes:
            length = max(math.hypot(*disp[n]), 1e-6)
            step = min(length, temp)
            pos[n][0] += disp[n][0] / length * step
            pos[n][1] += disp[n][1] / length * step
        temp = max(temp * 0.97, 0.005)
    return _normalise({n: (p[0], p[1]) for n, p in pos.items()})


def _normalise(pos: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    cx = sum(p[0] for p in pos.values()) / len(pos)
    cy = sum(p[1] for p in pos.values()) / len(pos)
    span = max(max(abs(p[0] - cx), abs(p[1] - cy)) for p in pos.values()) or 1.0
    return {n: ((p[0] - cx) / span, (p[1] - cy) / span) for n, p in pos.items()}


def _spread(coords: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """Nudge nodes that landed on the same rounded spot so none overlap exactly."""
    taken: set[tuple[int, int]] = set()
    out = {}
    for node, (x, y) in coords.items():
        while (round(x), round(y)) in taken:
            y += ROW_SPACING / 2
        taken.add((round(x), round(y)))
        out[node] = (x, y)
    return out
