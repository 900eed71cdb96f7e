"""Reorderings of a fused ranking, applied after fusion (pure functions; measured in
docs/retrieval.md): navigation sections last, then source crowding
(:func:`app.ranking.diversify_sources`), then link following.

A ranking is ``[(chunk id, score)]`` best first (scores are never changed). ``rows`` maps a
chunk id to its row (``text`` and ``source`` are read); ``first`` maps a guide's path to the id of
its first chunk.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from .links import is_navigation, link_only_target

Ranking = list[tuple[int, float]]


def navigation_last(fused: Ranking, window: int, rows: Mapping, guides: Collection[str]) -> Ranking:
    """Move the navigation sections (:func:`app.retrieval.links.is_navigation`: a heading and a
    link to another lesson) among the first ``window`` hits after the others there (stable). Rows
    missing from ``rows`` count as content. ``guides`` are the course's guide paths."""
    head = fused[:window]
    navigation = {cid for cid, _ in head if cid in rows and is_navigation(rows[cid].text, rows[cid].source, guides)}
    if not navigation:
        return fused
    return [f for f in head if f[0] not in navigation] + [f for f in head if f[0] in navigation] + fused[window:]


def follow_links(fused: Ranking, rows: Mapping, first: Mapping[str, int], k: int) -> Ranking:
    """Place the first chunk of the guide a link-only section points to
    (:func:`app.retrieval.links.link_only_target`) right after that section, with its score;
    each chunk once; at most ``k`` hits."""
    out: Ranking = []
    placed: set[int] = set()
    for cid, score in fused:
        if cid in placed:
            continue
        out.append((cid, score))
        placed.add(cid)
        row = rows.get(cid)
        target = link_only_target(row.text, row.source, first.keys()) if row is not None else None
        if target is not None and first[target] not in placed:
            out.append((first[target], score))
            placed.add(first[target])
    return out[:k]
