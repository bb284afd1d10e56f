"""Edge routes keep clear of nodes, and labels go where nothing covers them (geometry only)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.ui.canvas.routing import (
    GAP,
    SPREAD,
    STUB,
    Box,
    Lanes,
    Lines,
    _simplify,
    crossings,
    label_spot,
    overlaps,
    polyline,
    route,
)

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


_coord = st.sampled_from([0.0, 10.0, 14.0, 26.0, 40.0, 40.5, 52.0, 80.0, 100.0, 120.0])


@st.composite
def _boxes(draw) -> list[Box]:
    out = []
    for _ in range(draw(st.integers(0, 12))):
        x, y = draw(_coord), draw(_coord)
        out.append(Box(x, y, x + draw(st.sampled_from([0.4, 12.0, 30.0, 60.0])),
                       y + draw(st.sampled_from([0.4, 12.0, 30.0, 60.0]))))
    return out


@st.composite
def _orthogonal(draw) -> list[tuple[float, float]]:
    points = [(draw(_coord), draw(_coord))]
    for i in range(draw(st.integers(1, 5))):
        x, y = points[-1]
        points.append((draw(_coord), y) if i % 2 == 0 else (x, draw(_coord)))
    if draw(st.booleans()):  # now and then a slanted one (a curve's samples are)
        points.append((draw(_coord) + 3.0, draw(_coord) + 7.0))
    return points


def _plain_crossings(points, boxes) -> int:
    return sum(box.hits(points[i], points[i + 1])
               for i in range(len(points) - 1) for box in boxes)


def _plain_overlaps(points, taken) -> int:
    count = 0
    for i in range(len(points) - 1):
        (x0, y0), (x1, y1) = points[i], points[i + 1]
        for (u0, v0), (u1, v1) in taken:
            if abs(y0 - y1) < 0.5 and abs(v0 - v1) < 0.5 and abs(y0 - v0) < SPREAD - 1:
                span = min(max(x0, x1), max(u0, u1)) - max(min(x0, x1), min(u0, u1))
            elif abs(x0 - x1) < 0.5 and abs(u0 - u1) < 0.5 and abs(x0 - u0) < SPREAD - 1:
                span = min(max(y0, y1), max(v0, v1)) - max(min(y0, y1), min(v0, v1))
            else:
                continue
            count += span > 20
    return count


@settings(max_examples=300, deadline=None)
@given(points=_orthogonal(), boxes=_boxes(), limit=st.none() | st.integers(0, 4))
def test_indexed_obstacles_count_what_each_box_says(points, boxes, limit):
    """Lines finds obstacles by bisection and flat segments skip the general clipping: the
    counts are still each box's own ``hits``, on a cut, a thin box or a slanted segment
    too (past ``limit`` a count only says "more")."""
    plain = _plain_crossings(points, boxes)
    for found in (crossings(points, Lines(boxes), limit=limit),
                  crossings(points, boxes, limit=limit)):
        if limit is not None and plain > limit:
            assert found > limit
        else:
            assert found == plain


@settings(max_examples=300, deadline=None)
@given(points=_orthogonal(), others=st.lists(_orthogonal(), max_size=6))
def test_indexed_lanes_find_every_overlap(points, others):
    taken = [(p[i], p[i + 1]) for p in others for i in range(len(p) - 1)]
    assert overlaps(tuple(points), Lanes(taken)) == _plain_overlaps(points, taken)


def test_a_flat_segment_ending_half_a_pixel_inside_counts_as_the_clipping_does() -> None:
    box = Box(40.0, 0.0, 52.0, 12.0)
    points = [(0.0, 10.0), (40.5, 10.0)]
    assert crossings(points, [box]) == crossings(points, Lines([box])) == int(
        box.hits(*points))


@settings(max_examples=200, deadline=None)
@given(cells=st.sets(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=2,
                     max_size=14),
       spacing=st.sampled_from([(300.0, 200.0), (260.0, 140.0), (210.0, 120.0)]),
       data=st.data())
def test_a_route_says_how_many_nodes_it_crosses_and_no_lane_crosses_fewer(cells, spacing,
                                                                          data):
    """Lane candidates share their two stubs, whose crossings are counted once: the count a
    route carries is still its own, ends' boxes included, and no other lane does better
    (on grids too tight for a lane between rows, too, where every lane crosses some)."""
    cells = sorted(cells)
    src_cell = data.draw(st.sampled_from(cells))
    dst_cell = data.draw(st.sampled_from([c for c in cells if c != src_cell]))
    boxes = {cell: card(*cell, *spacing) for cell in cells}
    others = [box for cell, box in boxes.items() if cell not in (src_cell, dst_cell)]
    src, dst = boxes[src_cell], boxes[dst_cell]
    start, end = ports(src, dst)
    r = route(start, end, others, src, dst)
    if r.curved:
        return
    assert r.crossings == _with_ends(r.points, others, src, dst)
    lanes = {start[1], end[1]} | {y for b in [*others, src, dst]
                                   for y in (b.top - GAP, b.bottom + GAP)}
    out, into = (start[0] + STUB, start[1]), (end[0] - STUB, end[1])
    fewest = min(_with_ends([start, *_simplify([out, (out[0], y), (into[0], y), into]), end],
                            others, src, dst) for y in lanes)
    assert r.crossings <= fewest


def _with_ends(points, others, source: Box, target: Box) -> int:
    """Crossings the plain way: the first segment may leave ``source``, the last may enter
    ``target``, every other one counts against both."""
    last = len(points) - 2
    return sum(_plain_crossings([points[i], points[i + 1]], others)
               + (i > 0 and source.hits(points[i], points[i + 1]))
               + (i < last and target.hits(points[i], points[i + 1]))
               for i in range(len(points) - 1))


@settings(max_examples=150, deadline=None)
@given(columns=st.integers(2, 6), rows=st.integers(2, 5), dx=st.floats(230.0, 320.0),
       dy=st.floats(H + GROW[1] + GROW[3] + 1, 200.0), data=st.data())
def test_an_edge_from_a_rows_end_to_the_next_rows_start_runs_between_the_two_rows(
        columns, rows, dx, dy, data):
    """However little room the rows leave between them (less than two GAPs, too), the edge
    wrapping from one row's last node to the next row's first keeps between those two rows
    and crosses no node."""
    row = data.draw(st.integers(0, rows - 2))
    boxes = {(c, r): card(c, r, dx, dy) for c in range(columns) for r in range(rows)}
    src, dst = boxes[(columns - 1, row)], boxes[(0, row + 1)]
    others = [b for cell, b in boxes.items() if cell not in ((columns - 1, row), (0, row + 1))]
    start, end = ports(src, dst)
    r = route(start, end, others, src, dst)
    assert r.crossings == 0 == _with_ends(r.points, others, src, dst)
    assert all(src.top <= y <= dst.bottom for _x, y in r.points)
