"""XBRL contexts and units as a fact row needs them: period, dimensions, entity, unit."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any

from graphrag_core.common.ids import normalize_cik

_ISO_DATE_RE = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}:\d{2}))?\s*$")
_WS_RE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Context:
    """A context as a fact row uses it: period, canonical dimensions JSON, reporting entity."""

    period_type: str
    start: dt.date | None
    end: dt.date
    dimensions: str  # canonical JSON
    dimension_count: int
    entity: str | None


def _parse_xbrl_date(text: str | None, is_end: bool) -> dt.date | None:
    """An XBRL date; an end/instant written as midnight `T00:00:00` means the previous day."""
    if text is None:
        return None
    m = _ISO_DATE_RE.match(text)
    if m is None:
        return None
    try:
        day = dt.date.fromisoformat(m.group(1))
    except ValueError:
        return None
    if is_end and m.group(2) == "00:00:00":
        day -= dt.timedelta(days=1)
    return day


def _child_text(parent: Any, local_name: str) -> str | None:
    for child in parent.iterchildren():
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag.endswith("}" + local_name):
            return child.text or ""
    return None


def _dimensions(ctx: Any) -> dict[str, str]:
    """Axis → member as written in the context's segment and scenario.

    Read from the XML rather than arelle's resolved QNames: a copy that forgot to declare a
    prefix (`srt:` in one corpus file) makes arelle drop the axis, and two different facts
    would then look like duplicates of each other."""
    dims: dict[str, str] = {}
    for container in (ctx.segment, ctx.scenario):
        if container is None:
            continue
        for member in container.iterchildren():
            tag = member.tag if isinstance(member.tag, str) else ""
            local = tag.rsplit("}", 1)[-1]
            if local not in ("explicitMember", "typedMember"):
                continue
            axis = (member.get("dimension") or "").strip()
            text = "".join(member.itertext()) if local == "typedMember" else (member.text or "")
            dims[axis] = _WS_RE.sub(" ", text).strip()
    return dims


def read_context(ctx: Any) -> Context | str:
    """A parsed context, or the skip reason that makes it unusable."""
    period = ctx.period
    if period is None:
        return "malformed_context"
    if _child_text(period, "forever") is not None:
        return "unsupported_period"
    instant = _child_text(period, "instant")
    if instant is not None:
        day = _parse_xbrl_date(instant, is_end=True)
        if day is None:
            return "malformed_context"
        start, end, period_type = None, day, "instant"
    else:
        start = _parse_xbrl_date(_child_text(period, "startDate"), is_end=False)
        period_end = _parse_xbrl_date(_child_text(period, "endDate"), is_end=True)
        if start is None or period_end is None or period_end < start:
            return "malformed_context"
        end, period_type = period_end, "duration"
    dims = _dimensions(ctx)
    scheme, identifier = ctx.entityIdentifier
    entity = normalize_cik(identifier) if scheme and "sec.gov/cik" in scheme.lower() else None
    return Context(
        period_type=period_type,
        start=start,
        end=end,
        dimensions=json.dumps(dims, sort_keys=True, separators=(",", ":")),
        dimension_count=len(dims),
        entity=entity,
    )


def _measure(q: Any) -> str | None:
    """`iso4217:USD` → `USD`, `xbrli:shares` → `shares`; extension measures keep their prefix."""
    namespace = q.namespaceURI or ""
    if q.localName == "invalidMeasureQName" or not namespace:
        return None  # arelle's marker for a measure whose prefix is not declared
    if namespace in {"http://www.xbrl.org/2003/iso4217", "http://www.xbrl.org/2003/instance"}:
        return q.localName
    return f"{q.prefix}:{q.localName}" if q.prefix else q.localName


def read_unit(unit: Any) -> str | None:
    """`USD`, `USD/shares`, `shares`; None when a measure's prefix is undeclared."""
    if unit is None:
        return None
    numerators, denominators = unit.measures
    nums = [_measure(q) for q in numerators]
    dens = [_measure(q) for q in denominators]
    if not nums or any(m is None for m in nums + dens):
        return None
    text = "*".join(nums)  # type: ignore[arg-type]
    return f"{text}/{'*'.join(dens)}" if dens else text  # type: ignore[arg-type]
