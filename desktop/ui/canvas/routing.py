"""Edge routes that go around nodes, and a free place for the edge's label (no Qt).

A forward edge is a smooth S-curve from the source's output port (right side) to the
target's input port (left side) when that curve touches no other node. Otherwise, and
for every edge that runs backwards, the route is orthogonal: out of the port to the
right, along a free horizontal lane (or a free vertical channel), into the target's port
from the left. Candidates are scored by crossings first, then length and bends.

Obstacles are node boxes already grown by the caller to cover what is drawn around a
card (the ENTRY pill above, the run status and summary below), so routes and labels keep
clear of text too.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from typing import NamedTuple

Point = tuple[float, float]

STUB = 24.0  # straight run out of a port before the first bend
GAP = 14.0  # distance kept from an obstacle by a lane or a channel
SPREAD = 12.0  # distance between two edges' lanes that would otherwise overlap
CURVE_SAMPLES = 24
BEND_COST = 30.0


class Box(NamedTuple):
    """An axis-aligned rectangle (a tuple: cheap to make in the thousands)."""

    left: float
    top: float
    right: float
    bottom: float

    def grown(self, left: float, top: float, right: float, bottom: float) -> Box:
        """This box grown by the given amounts on each side."""
        return Box(self.left - left, self.top - top, self.right + right, self.bottom + bottom)

    def hits(self, a: Point, b: Point) -> bool:
        """Whether the segment from ``a`` to ``b`` passes through the box's inside."""
        return _clip(a, b, self) is not None

    def overlaps(self, other: Box) -> bool:
        """Whether two boxes share some inside."""
        return (self.left < other.right and other.left < self.right
                and self.top < other.bottom and other.top < self.bottom)


class Route(NamedTuple):
    """A curve (``controls`` set) or a polyline through ``points``."""

    points: tuple[Point, ...]
    controls: tuple[Point, Point] | None = None
    crossings: int = 0

    @property
    def curved(self) -> bool:
        """True for an S-curve (cubic from the first point to the last)."""
        return self.controls is not None


def _clip(a: Point, b: Point, box: Box) -> tuple[float, float] | None:
    """Liang-Barsky: the parameter span of segment a-b strictly inside ``box``."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - box.left), (dx, box.right - a[0]),
                 (-dy, a[1] - box.top), (dy, box.bottom - a[1])):
        if p == 0:
            if q <= 0:
                return None
            continue
        r = q / p
        if p < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 >= t1:
            return None
    length = math.hypot(dx, dy)
    return (t0, t1) if (t1 - t0) * length > 0.5 else None


def s_controls(a: Point, b: Point) -> tuple[Point, Point]:
    """Control points of the horizontal S from output port ``a`` to input port ``b``."""
    pull = max(25.0, (b[0] - a[0]) * 0.5)
    return (a[0] + pull, a[1]), (b[0] - pull, b[1])


def cubic_point(a: Point, c1: Point, c2: Point, b: Point, t: float) -> Point:
    """The point at ``t`` of the cubic Bezier a-c1-c2-b."""
    u = 1 - t
    return (u ** 3 * a[0] + 3 * u * u * t * c1[0] + 3 * u * t * t * c2[0] + t ** 3 * b[0],
            u ** 3 * a[1] + 3 * u * u * t * c1[1] + 3 * u * t * t * c2[1] + t ** 3 * b[1])


def _curve_samples(a: Point, c1: Point, c2: Point, b: Point) -> list[Point]:
    return [cubic_point(a, c1, c2, b, i / CURVE_SAMPLES) for i in range(CURVE_SAMPLES + 1)]


def crossings(points: list[Point] | tuple[Point, ...], obstacles: list[Box] | Lines,
              source: Box | None = None, target: Box | None = None,
              limit: int | None = None) -> int:
    """How many (segment, obstacle) pairs cross; the first segment may leave ``source``
    and the last may enter ``target``. Counting stops past ``limit``."""
    stop = (1 << 62) if limit is None else limit + 1
    return _count(points, obstacles, source, target, stop, 1, len(points) - 2)


def _count(points: list[Point] | tuple[Point, ...], obstacles: list[Box] | Lines,
           source: Box | None, target: Box | None, stop: int, first: int, last: int) -> int:
    """``crossings`` up to ``stop``, segment i counted against ``source`` from ``first`` on
    and against ``target`` below ``last``."""
    count = 0
    for i in range(len(points) - 1):
        a, b = points[i], points[i + 1]
        count += _through(a, b, obstacles, stop - count)
        if source is not None and i >= first and source.hits(a, b):
            count += 1
        if target is not None and i < last and target.hits(a, b):
            count += 1
        if count >= stop:
            return count
    return count


def _through(a: Point, b: Point, obstacles: list[Box] | Lines, stop: int) -> int:
    """How many of ``obstacles`` the segment a-b passes through, counting up to ``stop``."""
    x0, x1 = (a[0], b[0]) if a[0] <= b[0] else (b[0], a[0])
    y0, y1 = (a[1], b[1]) if a[1] <= b[1] else (b[1], a[1])
    near = obstacles.along(a, b) if isinstance(obstacles, Lines) else obstacles
    count = 0
    if y0 == y1:  # flat: Box.hits comes down to the length inside, without clipping
        for o in near:
            if o.left < x1 and x0 < o.right and o.top < y0 < o.bottom:
                inside = min(x1, o.right) - max(x0, o.left)
                # at the edge of the threshold, the clipping's own rounding decides
                if inside > 0.5 + 1e-6 or (inside > 0.5 - 1e-6 and o.hits(a, b)):
                    count += 1
                    if count >= stop:
                        break
        return count
    for o in near:
        # a cheap look first: most boxes are nowhere near the segment
        if o.left < x1 and x0 < o.right and o.top < y1 and y0 < o.bottom and o.hits(a, b):
            count += 1
            if count >= stop:
                break
    return count


class Lines:
    """The obstacles a horizontal or a vertical segment can pass through, found by bisection
    instead of by looking at every obstacle: an orthogonal route's candidates are all
    such segments, and a long edge has hundreds of obstacles around it."""

    SCANS = 8  # segments looked up by scanning every obstacle before an axis is indexed

    def __init__(self, obstacles: list[Box]) -> None:
        self.everything = obstacles
        self._rows: _Slabs | None = None  # each built when asked for the SCANS-th time:
        self._columns: _Slabs | None = None  # a route found at once needs no index
        self._asked = [0, 0]

    def along(self, a: Point, b: Point) -> list[Box]:
        """A superset of the obstacles the segment a-b passes through."""
        if a[1] == b[1]:
            if self._rows is None:
                if self._ask(0):
                    return self.everything
                self._rows = _Slabs(self.everything, 1, 3)
            return self._rows.at(a[1])
        if a[0] == b[0]:
            if self._columns is None:
                if self._ask(1):
                    return self.everything
                self._columns = _Slabs(self.everything, 0, 2)
            return self._columns.at(a[0])
        return self.everything

    def _ask(self, axis: int) -> bool:
        """Count a look-up on ``axis``; True while a scan still costs less than an index."""
        self._asked[axis] += 1
        return self._asked[axis] < self.SCANS


class _Slabs:
    """Boxes by the open intervals between their sorted edges on one axis (``low`` and
    ``high``: the indexes of a box's two edges on that axis)."""

    def __init__(self, boxes: list[Box], low: int, high: int) -> None:
        self.high = high
        spans: dict[tuple[float, float], list[Box]] = {}
        for box in boxes:  # in a laid-out graph many boxes share a row's or column's span
            spans.setdefault((box[low], box[high]), []).append(box)
        self.cuts = sorted({v for span in spans for v in span})
        self.slabs: list[list[Box]] = [[] for _ in self.cuts]
        for (start, end), group in spans.items():
            for i in range(bisect_left(self.cuts, start), bisect_left(self.cuts, end)):
                self.slabs[i] += group  # slab i runs from cuts[i] to cuts[i + 1]

    def at(self, v: float) -> list[Box]:
        """The boxes whose open interval can hold ``v``."""
        i = bisect_right(self.cuts, v) - 1
        if i < 0:
            return []
        if self.cuts[i] == v:  # on a cut: the boxes that reach across it
            return [b for b in self.slabs[i - 1] if b[self.high] > v] if i > 0 else []
        return self.slabs[i]


def _length(points: tuple[Point, ...]) -> float:
    return sum(abs(points[i + 1][0] - points[i][0]) + abs(points[i + 1][1] - points[i][1])
               for i in range(len(points) - 1))


def _simplify(points: list[Point]) -> tuple[Point, ...]:
    """Drop repeated points and points in the middle of a straight run."""
    out: list[Point] = []
    for p in points:
        if out and abs(out[-1][0] - p[0]) < 0.01 and abs(out[-1][1] - p[1]) < 0.01:
            continue
        if len(out) >= 2:
            (x0, y0), (x1, y1) = out[-2], out[-1]
            if (abs(x0 - x1) < 0.01 and abs(x1 - p[0]) < 0.01) or \
                    (abs(y0 - y1) < 0.01 and abs(y1 - p[1]) < 0.01):
                out[-1] = p
                continue
        out.append(p)
    return tuple(out)


def overlaps(points: tuple[Point, ...], taken: list[tuple[Point, Point]] | Lanes) -> int:
    """How many of the route's straight segments run along one of ``taken`` (other edges'
    segments): drawn on top of each other, two edges would read as one."""
    lanes = taken if isinstance(taken, Lanes) else Lanes(taken)
    count = 0
    for i in range(len(points) - 1):
        (x0, y0), (x1, y1) = points[i], points[i + 1]
        flat, upright = abs(y0 - y1) < 0.5, abs(x0 - x1) < 0.5
        if flat and upright:  # a dot: either way, as the rule reads for each pair
            near = lanes.everything
        elif flat:
            near = lanes.flat_near(y0)
        elif upright:
            near = lanes.upright_near(x0)
        else:
            continue
        for (u0, v0), (u1, v1) in near:
            if flat and abs(v0 - v1) < 0.5 and abs(y0 - v0) < SPREAD - 1:
                span = min(max(x0, x1), max(u0, u1)) - max(min(x0, x1), min(u0, u1))
            elif upright and abs(u0 - u1) < 0.5 and abs(x0 - u0) < SPREAD - 1:
                span = min(max(y0, y1), max(v0, v1)) - max(min(y0, y1), min(v0, v1))
            else:
                continue
            count += span > 20
    return count


class Lanes:
    """Other edges' straight segments, the flat ones by their height and the upright ones
    by their x, so that a segment meets only those it could run along."""

    def __init__(self, taken: list[tuple[Point, Point]]) -> None:
        self.everything = taken
        self._flat = sorted((s for s in taken if abs(s[0][1] - s[1][1]) < 0.5),
                            key=lambda s: s[0][1])
        self._flat_at = [s[0][1] for s in self._flat]
        self._upright = sorted((s for s in taken if abs(s[0][0] - s[1][0]) < 0.5),
                               key=lambda s: s[0][0])
        self._upright_at = [s[0][0] for s in self._upright]

    def flat_near(self, y: float) -> list[tuple[Point, Point]]:
        """The flat segments that start within SPREAD of height ``y``."""
        return self._flat[bisect_left(self._flat_at, y - SPREAD):
                          bisect_right(self._flat_at, y + SPREAD)]

    def upright_near(self, x: float) -> list[tuple[Point, Point]]:
        """The upright segments within SPREAD of ``x``."""
        return self._upright[bisect_left(self._upright_at, x - SPREAD):
                             bisect_right(self._upright_at, x + SPREAD)]


def segments(r: Route) -> list[tuple[Point, Point]]:
    """The straight segments of an orthogonal route (none for a curve)."""
    if r.controls is not None:
        return []
    return [(r.points[i], r.points[i + 1]) for i in range(len(r.points) - 1)]


def occupied(boxes: list[Box], x0: float, x1: float) -> list[tuple[float, float]]:
    """The heights ``(top, bottom)``, sorted and merged, that the ``boxes`` reaching into
    the span from ``x0`` to ``x1`` cover: a horizontal line across the whole span touches
    a box's inside only at such a height."""
    left, right = min(x0, x1), max(x0, x1)
    merged: list[tuple[float, float]] = []
    for top, bottom in sorted((b.top, b.bottom) for b in boxes
                              if b.left < right and left < b.right):
        if merged and top < merged[-1][1]:
            if bottom > merged[-1][1]:
                merged[-1] = (merged[-1][0], bottom)
        else:
            merged.append((top, bottom))
    return merged


def _free(y: float, covered: list[tuple[float, float]], tops: list[float]) -> bool:
    """Whether height ``y`` is inside none of the ``covered`` spans (``tops``: theirs)."""
    i = bisect_left(tops, y) - 1
    return i < 0 or covered[i][1] <= y


def clear_curve(a: Point, b: Point, obstacles: list[Box]) -> Route | None:
    """The S-curve from output port ``a`` to input port ``b`` if it runs forward far enough
    and crosses none of ``obstacles``, else None."""
    if b[0] - a[0] < 2 * STUB:
        return None
    c1, c2 = s_controls(a, b)
    if obstacles:
        top, bottom = (a[1], b[1]) if a[1] <= b[1] else (b[1], a[1])
        hull = Box(a[0], top, b[0], bottom)  # holds the whole curve
        near = [o for o in obstacles if o.overlaps(hull)]
        if near and crossings(_curve_samples(a, c1, c2, b), near) != 0:
            return None
    return Route((a, b), (c1, c2))


def route(a: Point, b: Point, obstacles: list[Box], source: Box | None = None,
          target: Box | None = None, taken: list[tuple[Point, Point]] | None = None) -> Route:
    """The route from output port ``a`` to input port ``b`` around ``obstacles`` (other
    nodes' boxes) and around the source's and target's own boxes, beside (not on) the
    ``taken`` segments of other edges."""
    taken = taken or []
    curve = clear_curve(a, b, obstacles)
    if curve is not None:
        return curve
    out, into = (a[0] + STUB, a[1]), (b[0] - STUB, b[1])
    everything = [*obstacles, *(x for x in (source, target) if x is not None)]
    lanes = {a[1], b[1], *(box.top - GAP for box in everything),
             *(box.bottom + GAP for box in everything)}
    for (_x0, y0), (_x1, y1) in taken:  # beside another edge's lane
        if abs(y0 - y1) < 0.5:
            lanes.update((y0 - SPREAD, y0 + SPREAD))
    # rows closer than two GAPs leave no lane GAP away from both: the middle of the gap
    covered = occupied(everything, out[0], into[0])
    lanes.update((covered[i][1] + covered[i + 1][0]) / 2 for i in range(len(covered) - 1)
                 if covered[i + 1][0] - covered[i][1] < 2 * GAP)
    tops = [top for top, _bottom in covered]
    # the stubs stay segments of their own: only they may cross the source's and the
    # target's own boxes
    # a lane over no box is tried before a lane as long over some
    candidates = [(a, *_simplify([out, (out[0], y), (into[0], y), into]), b)
                  for y in sorted(lanes, key=lambda y: not _free(y, covered, tops))]
    stubbed = len(candidates)  # the lane candidates, which all start and end with the stubs
    if into[0] > out[0]:  # forward: a vertical channel between the two ports
        channels = {(out[0] + into[0]) / 2}
        for box in obstacles:
            channels.update((box.left - GAP, box.right + GAP))
        for (x0, _y0), (x1, _y1) in taken:
            if abs(x0 - x1) < 0.5:
                channels.update((x0 - SPREAD, x0 + SPREAD))
        candidates += [_simplify([a, (x, a[1]), (x, b[1]), b]) for x in channels
                       if out[0] <= x <= into[0]]
    # shortest first: the first route that crosses nothing and overlaps nothing is the best
    costed = sorted(((_length(p) + BEND_COST * (len(p) - 2), i < stubbed, p)
                     for i, p in enumerate(candidates)), key=lambda c: c[0])
    lines, lanes = Lines(obstacles), Lanes(taken)
    stubs: list[int] = []  # what the two stubs cross, counted once for every lane candidate

    def hits(lane: bool, points: tuple[Point, ...], stop: int) -> int:
        """The crossings of a candidate, counted up to ``stop``."""
        if not lane:
            return _count(points, lines, source, target, stop, 1, len(points) - 2)
        if not stubs:
            stubs.append(_count((a, out), lines, None, target, 1 << 62, 1, 1)
                         + _count((into, b), lines, source, None, 1 << 62, 0, 0))
        if stubs[0] >= stop:
            return stubs[0]
        inner = points[1:-1]  # the segments between the stubs, each against both end boxes
        return stubs[0] + _count(inner, lines, source, target, stop - stubs[0], 0, len(inner))

    # the first candidate (cheapest first) that crosses nothing and runs along no other
    # edge is the best; whether one crosses anything is known at its first crossing, so the
    # lanes through a row of nodes cost one look each instead of a count of the whole row
    clear: dict[int, int] = {}  # candidate -> its overlaps, for those crossing nothing
    for i, (_cost, lane, points) in enumerate(costed):
        if hits(lane, points, 1) == 0:
            clear[i] = overlaps(points, lanes)
            if not clear[i]:
                return Route(points, None, 0)
    # each one crosses a node or runs along an edge: the fewest crossings, then overlaps
    best: Route | None = None
    best_key: tuple[int, int, float] | None = None
    for i, (cost, lane, points) in enumerate(costed):
        if i in clear:
            key = (0, clear[i], cost)
        else:
            key = (hits(lane, points, (1 << 62) if best_key is None else best_key[0] + 1), 0,
                   cost)
        if best_key is None or key < best_key:
            best, best_key = Route(points, None, key[0]), key
    assert best is not None
    return best


def polyline(r: Route) -> list[Point]:
    """The route as points (a curve sampled)."""
    if r.controls is None:
        return list(r.points)
    return _curve_samples(r.points[0], r.controls[0], r.controls[1], r.points[-1])


def label_spot(r: Route, size: tuple[float, float], obstacles: list[Box]) -> Point:
    """Where the label's centre goes: on the route, where a box of ``size`` touches no
    obstacle (the middle of the route when nowhere is free)."""
    w, h = size
    spots: list[Point] = []
    if r.controls is not None:
        a, (c1, c2), b = r.points[0], r.controls, r.points[-1]
        spots = [cubic_point(a, c1, c2, b, t) for t in (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8)]
    else:
        segments = sorted(((r.points[i], r.points[i + 1]) for i in range(len(r.points) - 1)),
                          key=lambda s: -(abs(s[1][0] - s[0][0]) + abs(s[1][1] - s[0][1])))
        for p, q in segments:
            for t in (0.5, 0.3, 0.7):
                spots.append((p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t))
    for x, y in spots:
        box = Box(x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        if not any(box.overlaps(o) for o in obstacles):
            return x, y
    return spots[0] if spots else r.points[0]


class BoxIndex:
    """Boxes by key in a grid of square cells: which boxes touch a rectangle, without
    looking at every box (the scene's own index is rebuilt lazily, too late for routing
    while a graph is being built)."""

    def __init__(self, cell: float = 400.0) -> None:
        self.cell = cell
        self.boxes: dict[str, Box] = {}
        self._cells: dict[tuple[int, int], dict[str, Box]] = {}

    def _span(self, box: Box) -> list[tuple[int, int]]:
        c = self.cell
        return [(i, j) for i in range(math.floor(box.left / c), math.floor(box.right / c) + 1)
                for j in range(math.floor(box.top / c), math.floor(box.bottom / c) + 1)]

    def set(self, key: str, box: Box) -> None:
        """Put ``key`` at ``box`` (moving it if it was elsewhere)."""
        if self.boxes.get(key) == box:
            return
        self.remove(key)
        self.boxes[key] = box
        for cell in self._span(box):
            self._cells.setdefault(cell, {})[key] = box

    def remove(self, key: str) -> None:
        """Forget ``key``."""
        box = self.boxes.pop(key, None)
        if box is None:
            return
        for cell in self._span(box):
            keys = self._cells.get(cell)
            if keys is not None:
                keys.pop(key, None)
                if not keys:
                    del self._cells[cell]

    def clear(self) -> None:
        """Forget every box."""
        self.boxes.clear()
        self._cells.clear()

    def near(self, area: Box) -> dict[str, Box]:
        """The boxes that overlap ``area``."""
        c = self.cell
        left, top, right, bottom = area
        i0, i1 = math.floor(left / c), math.floor(right / c)
        j0, j1 = math.floor(top / c), math.floor(bottom / c)
        cells = self._cells
        if i0 == i1 and j0 == j1:  # the usual case: one cell
            return {k: b for k, b in (cells.get((i0, j0)) or {}).items() if b.left < right
                    and left < b.right and b.top < bottom and top < b.bottom}
        out: dict[str, Box] = {}
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                for k, b in (cells.get((i, j)) or {}).items():  # kept once if in several
                    if b.left < right and left < b.right and b.top < bottom and top < b.bottom:
                        out[k] = b
        return out
