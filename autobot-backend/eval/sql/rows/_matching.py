"""Maximum matchings between rows that differ only in numbers, where "equal" is the tolerance.

Each side is a list of ``(vector, count, key)``: the numbers of a row, how many times the row
occurs, and the row itself. Both functions return the rows left without a partner, with how
many copies, for each side; a perfect matching exists exactly when both lists are empty.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterator
from itertools import chain, product
from operator import itemgetter
from typing import Any

from eval.sql.rows._tolerance import Tolerance

Entry = tuple[Any, int, tuple[Any, ...]]
Lost = list[tuple[tuple[Any, ...], int]]


def line_matching(want: list[Entry], have: list[Entry], tolerance: Tolerance) -> tuple[Lost, Lost]:
    """One number per row: points on a line. Sorting both sides and one greedy walk is optimal.

    Why: if x1 <= x2 and y1 <= y2 and x1 ~ y2 and x2 ~ y1, then also x1 ~ y1 and x2 ~ y2 (the
    tolerance is a distance), so crossing pairs can always be uncrossed; and a value that is too
    small for the smallest remaining value on the other side is too small for all of them.
    A small value (read past the declared place, ``Tolerance.is_small``) breaks the distance: 0.006
    agrees with 0.01 (its rounding) but not with 0.009. The walk only pairs values that agree, so
    a perfect matching it finds is one; where it finds none and a small value is present, the
    exact matching of ``grid_matching`` decides.
    """
    lost = _greedy_line(want, have, tolerance)
    if (lost[0] or lost[1]) and any(tolerance.is_small(e[0]) for e in chain(want, have) if e[0] is not None):
        return grid_matching([((e[0],), e[1], e[2]) for e in want], [((e[0],), e[1], e[2]) for e in have], tolerance)
    return lost


def _greedy_line(want: list[Entry], have: list[Entry], tolerance: Tolerance) -> tuple[Lost, Lost]:
    want = sorted(want, key=itemgetter(0))
    have = sorted(have, key=itemgetter(0))
    lost_want: Lost = []
    lost_have: Lost = []
    i = j = 0
    rest_i = want[0][1] if want else 0
    rest_j = have[0][1] if have else 0
    while i < len(want) and j < len(have):
        x, y = want[i][0], have[j][0]
        if x == y or tolerance.within(x, y):
            step = min(rest_i, rest_j)
            rest_i -= step
            rest_j -= step
        elif y < x:
            lost_have.append((have[j][2], rest_j))
            rest_j = 0
        else:
            lost_want.append((want[i][2], rest_i))
            rest_i = 0
        if not rest_i:
            i += 1
            rest_i = want[i][1] if i < len(want) else 0
        if not rest_j:
            j += 1
            rest_j = have[j][1] if j < len(have) else 0
    for entries, k, rest, lost in ((want, i, rest_i, lost_want), (have, j, rest_j, lost_have)):
        if k < len(entries):
            lost.append((entries[k][2], rest))
            lost.extend((e[2], e[1]) for e in entries[k + 1 :])
    return lost_want, lost_have


def grid_matching(want: list[Entry], have: list[Entry], tolerance: Tolerance) -> tuple[Lost, Lost]:
    """Several numbers per row: grid cells, connected components, then max-flow where unbalanced.

    Partners lie in adjacent cells of ``Tolerance.bucket``, so components of occupied cells
    (adjacent in every coordinate) contain whole components of the matching graph. A component
    whose rows balance copy for copy needs no search; the others get an exact maximum flow.
    """
    nodes = [(0, e) for e in want] + [(1, e) for e in have]
    home = [tuple(map(tolerance.bucket, entry[0])) for _, entry in nodes]
    cells: dict[tuple[int, ...], list[int]] = {}
    for idx, cell in enumerate(home):
        cells.setdefault(cell, []).append(idx)
    offsets = list(product((-1, 0, 1), repeat=len(home[0])))

    def near_cells(cell: tuple[int, ...]) -> Iterator[list[int]]:
        for off in offsets:
            found = cells.get(tuple(c + o for c, o in zip(cell, off)))
            if found is not None:
                yield found

    component = _components(cells, offsets)
    members: dict[Any, list[int]] = {}
    for idx, cell in enumerate(home):
        members.setdefault(component[cell], []).append(idx)
    lost: tuple[Lost, Lost] = ([], [])
    for idxs in members.values():
        balance: Counter[Any] = Counter()
        for i in idxs:
            side, (vector, count, _) = nodes[i]
            balance[vector] += -count if side else count
        if not any(balance.values()):
            continue
        lefts = [i for i in idxs if nodes[i][0] == 0]
        rights = {i: pos for pos, i in enumerate(i for i in idxs if nodes[i][0] == 1)}
        edges = [
            [
                rights[j]
                for found in near_cells(home[i])
                for j in found
                if j in rights and _near(nodes[i][1][0], nodes[j][1][0], tolerance)
            ]
            for i in lefts
        ]
        rest_left, rest_right = max_flow([nodes[i][1][1] for i in lefts], [nodes[j][1][1] for j in rights], edges)
        lost[0].extend((nodes[i][1][2], r) for i, r in zip(lefts, rest_left) if r)
        lost[1].extend((nodes[j][1][2], r) for j, r in zip(rights, rest_right) if r)
    return lost


Cell = tuple[int, ...]


def _components(cells: dict[Cell, list[int]], offsets: list[Cell]) -> dict[Cell, Cell]:
    parent = {cell: cell for cell in cells}

    def root(cell: Cell) -> Cell:
        while parent[cell] != cell:
            parent[cell] = parent[parent[cell]]
            cell = parent[cell]
        return cell

    for cell in cells:
        for off in offsets:
            near = tuple(c + o for c, o in zip(cell, off))
            if near in parent:
                parent[root(near)] = root(cell)
    return {cell: root(cell) for cell in cells}


def _near(a: tuple[Any, ...], b: tuple[Any, ...], tolerance: Tolerance) -> bool:
    return all(x == y or tolerance.within(x, y) for x, y in zip(a, b))


def max_flow(left: list[int], right: list[int], edges: list[list[int]]) -> tuple[list[int], list[int]]:
    """Dinic's maximum flow for a bipartite b-matching; returns the unmatched capacity on each side.

    ``left[i]`` and ``right[j]`` are copies of a row; ``edges[i]`` lists the ``j`` it may pair with.
    """
    n_left = len(left)
    source, sink = n_left + len(right), n_left + len(right) + 1
    to: list[int] = []
    cap: list[int] = []
    adj: list[list[int]] = [[] for _ in range(sink + 1)]

    def arc(u: int, v: int, c: int) -> int:
        adj[u].append(len(to))
        to.append(v)
        cap.append(c)
        adj[v].append(len(to))
        to.append(u)
        cap.append(0)
        return len(to) - 2

    unlimited = sum(left) + 1
    from_source = [arc(source, i, c) for i, c in enumerate(left)]
    for i, targets in enumerate(edges):
        for j in targets:
            arc(i, n_left + j, unlimited)
    to_sink = [arc(n_left + j, sink, c) for j, c in enumerate(right)]
    while True:
        level = [-1] * (sink + 1)
        level[source] = 0
        queue = deque([source])
        while queue:
            u = queue.popleft()
            for e in adj[u]:
                if cap[e] > 0 and level[to[e]] < 0:
                    level[to[e]] = level[u] + 1
                    queue.append(to[e])
        if level[sink] < 0:
            break
        cursor = [0] * (sink + 1)
        path: list[int] = []
        u = source
        while True:
            if u == sink:
                push = min(cap[e] for e in path)
                for e in path:
                    cap[e] -= push
                    cap[e ^ 1] += push
                path.clear()
                u = source
                continue
            while cursor[u] < len(adj[u]):
                e = adj[u][cursor[u]]
                if cap[e] > 0 and level[to[e]] == level[u] + 1:
                    break
                cursor[u] += 1
            else:
                if u == source:
                    break
                level[u] = -1  # a dead end for the rest of this phase
                u = to[path.pop() ^ 1]
                cursor[u] += 1
                continue
            path.append(e)
            u = to[e]
    return [cap[e] for e in from_source], [cap[e] for e in to_sink]
