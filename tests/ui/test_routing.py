"""Edge routes keep clear of nodes, and labels go where nothing covers them (geometry only)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.ui.canvas.routing import Box, crossings, label_spot, polyline, route

W, H = 184.0, 72.0
GROW = (10.0, 10.0, 10.0, 41.0)  # what the scene adds: pill above, status and summary below


def card(col: int, row: int, dx: float = 300.0, dy: float = 200.0) -> Box:
    x, y = col * dx, row * dy
    return Box(x, y, x + W, y + H).grown(*GROW)


def ports(src: Box, dst: Box) -> tuple[tuple[float, float], tuple[float, float]]:
    out = (src.right - GROW[2], (src.top + GROW[1] + src.bottom - GROW[3]) / 2)
    into = (dst.left + GROW[0], (dst.top + GROW[1] + dst.bottom - GROW[3]) / 2)
    return out, into


def test_a_forward_edge_over_a_node_in_between_goes_around_it():
    a, b, c = card(0, 0), card(1, 0), card(2, 0)
    start, end = ports(a, c)
    r = route(start, end, [b], a, c)
    assert not r.curved and r.crossings == 0
    assert crossings(polyline(r), [b]) == 0
    assert route(*ports(a, b), [c], a, b).curved  # nothing in the way: a plain S-curve


def test_a_backward_edge_keeps_clear_of_both_ends_and_their_status_lines():
    a, b = card(0, 0), card(1, 0)
    r = route(*ports(b, a), [], b, a)
    assert r.crossings == 0
    points = polyline(r)
    lane = [y for _, y in points[1:-1]]
    assert all(y <= a.top or y >= a.bottom for y in lane[1:-1])


def test_the_label_sits_where_no_node_covers_it():
    a, b, c = card(0, 0), card(1, 0), card(2, 0)
    r = route(*ports(a, c), [b], a, c)
    x, y = label_spot(r, (60, 18), [a, b, c])
    label = Box(x - 30, y - 9, x + 30, y + 9)
    assert not any(label.overlaps(n) for n in (a, b, c))


cells = st.sets(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=2, max_size=12)


@settings(max_examples=150, deadline=None)
@given(cells, st.data())
def test_on_a_grid_every_edge_finds_a_way_around_every_other_node(taken, data):
    taken = sorted(taken)
    src_cell = data.draw(st.sampled_from(taken))
    dst_cell = data.draw(st.sampled_from([c for c in taken if c != src_cell]))
    boxes = {cell: card(*cell) for cell in taken}
    others = [box for cell, box in boxes.items() if cell not in (src_cell, dst_cell)]
    src, dst = boxes[src_cell], boxes[dst_cell]
    r = route(*ports(src, dst), others, src, dst)
    assert r.crossings == 0
    assert crossings(polyline(r), others) == 0
