"""Date-times, times and durations are read as pydantic reads them in JSON mode (issue 21).

Every peer (pydantic, so FastMCP and the Agents SDK) accepts a naive ``"2025-06-01T12:00:00"``
for a ``datetime`` and ``"04:45"`` for a ``time``; refusing them made models invent an offset.
Each sample below is given to toolcall and to ``pydantic.TypeAdapter(T).validate_json``: both
accept it with the same value (naive stays naive, an offset gives the same aware value) or both
refuse it. Where toolcall reads differently on purpose, the test says so and why.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, time, timedelta
from typing import Any

import msgspec
import pytest

import toolcall
from fakes import FakeResolver
from pydantic import TypeAdapter, ValidationError
from toolcall import ir
from toolcall._dispatch.coerce import Invalid, build_coercer
from toolcall._dispatch.fastpath import MISS, build_fastpath
from toolcall._dispatch.result import Err, Ok
from toolcall._render.output import output_schema

REFUSED: Any = object()

DATETIMES = [
    "2025-06-01T12:00:00",
    "2025-06-01T12:00",
    "2025-06-01 12:00:00",
    "2025-06-01T12:00:00.5",
    "2025-06-01T12:00:00,25",
    "2025-06-01T12:00:00.123456789",
    "2025-06-01",
    "2025-06-01T12:00:00Z",
    "2025-06-01t12:00:00z",
    "2025-06-01T12:00:00+01:00",
    "2025-06-01T12:00:00+0130",
    "2025-06-01T12:00:00-00:00",
    "2025-06-01T12:00+01:00",
    "2025-06-01T12:00:00.123456789Z",
    "2025-06-01T23:59:59.999999-23:59",
    # refused by both
    "2025-06-01T12",
    "20250601T120000",
    "2025-06-01T24:00:00",
    "2025-06-01T12:60:00",
    "2025-06-01T12:00:60",
    "2025-06-01T12:00:00+01",
    "2025-06-01T12:00:00 Z",
    "2025-06-01T12:00:00+24:00",
    "2025-02-30T12:00:00",
    "2025-06-01T12:00.5",
    "2025-W22-1T12:00:00",
    "yesterday",
    "",
]

TIMES = [
    "04:45",
    "12:00:00",
    "12:00:00.5",
    "12:00:00,5",
    "12:00:00.1234567",
    "23:59:59.999999",
    "12:00:00Z",
    "12:00:00z",
    "04:45Z",
    "12:00:00+01:00",
    "12:00:00+0100",
    "12:00:00-03:30",
    # refused by both
    "4:45",
    "12",
    "1200",
    "24:00",
    "12:60",
    "12:00:60",
    "12:00:00+01",
    "T12:00",
    "noon",
    "",
]

DURATIONS = [
    "PT1H",
    "P1D",
    "P1DT2H3M4.5S",
    "PT1.5H",
    "PT36H",
    "PT1H30M",
    "PT0S",
    "P0D",
    "-PT1H",
    "+PT1H",
    "P1W",
    "P2Y",
    "P3M",
    "P1Y2M3W4DT5H6M7.5S",
    "PT0.0000015S",
    3600,
    3600.5,
    -1,
    0,
    # refused by both
    "P",
    "PT",
    "PT-1H",
    "P1H",
    "3600",
    "3600.5",
    "",
    True,
    1e20,
    None,
]

# Read by pydantic, refused here: a datetime from a Unix timestamp (the schema says a
# date-time string); durations in Python's str(timedelta) form and pydantic's own shorthands
# (not ISO 8601, which the schema's format names), and a "T" with nothing after it.
PYDANTIC_ONLY = {
    "datetime": [1700000000, 1700000000.5, "1700000000"],
    "timedelta": ["1:02:03", "01:00:00", "1 day, 01:02:03", "1d", "P1DT"],
}
# Read here, refused by pydantic: lowercase designators (RFC 3339's ABNF is case-insensitive,
# as its "t"/"z" are; msgspec reads them too).
TOOLCALL_ONLY = {"timedelta": ["pt1h", "p1dt2h"]}

TYPES: dict[str, type] = {"datetime": datetime, "time": time, "timedelta": timedelta}
REASONS = {"datetime": "invalid_datetime", "time": "invalid_time", "timedelta": "invalid_duration"}
SAMPLES = [
    *(("datetime", value) for value in DATETIMES),
    *(("time", value) for value in TIMES),
    *(("timedelta", value) for value in DURATIONS),
]


def pydantic_reads(py: str, value: Any) -> Any:
    try:
        return TypeAdapter(TYPES[py]).validate_json(json.dumps(value))
    except ValidationError:
        return REFUSED


def toolcall_reads(py: str, value: Any) -> Any:
    coerce = build_coercer(ir.Type(kind="string", py=py), FakeResolver())
    try:
        return coerce(value)
    except Invalid:
        pass
    with pytest.raises(Invalid) as failed:
        coerce(value)
    assert (failed.value.reason, failed.value.value) == (REASONS[py], value)
    return REFUSED


def same(ours: Any, theirs: Any) -> bool:
    """Equal values of the same type, both naive or both aware with the same offset."""
    if ours is REFUSED or theirs is REFUSED:
        return ours is theirs
    if type(ours) is not type(theirs):
        return False
    if isinstance(ours, datetime | time):
        return ours.replace(tzinfo=None) == theirs.replace(tzinfo=None) and (
            ours.utcoffset() == theirs.utcoffset()
        )
    return bool(ours == theirs)


@pytest.mark.parametrize(("py", "value"), SAMPLES, ids=[f"{p}-{v!r}" for p, v in SAMPLES])
def test_read_as_pydantic_reads_it(py: str, value: Any) -> None:
    """Accepted with pydantic's value, or refused with the type's reason, as pydantic refuses."""
    assert same(toolcall_reads(py, value), pydantic_reads(py, value))


@pytest.mark.parametrize(
    ("py", "value"), [(py, v) for py, values in PYDANTIC_ONLY.items() for v in values]
)
def test_what_only_pydantic_reads_is_refused(py: str, value: Any) -> None:
    """What pydantic reads beyond ISO 8601 is refused."""
    assert pydantic_reads(py, value) is not REFUSED
    assert toolcall_reads(py, value) is REFUSED


@pytest.mark.parametrize(
    ("py", "value"), [(py, v) for py, values in TOOLCALL_ONLY.items() for v in values]
)
def test_lowercase_duration_designators_are_read(py: str, value: str) -> None:
    """Lowercase duration designators, which pydantic refuses, read as the uppercase ones."""
    assert pydantic_reads(py, value) is REFUSED
    assert toolcall_reads(py, value) == toolcall_reads(py, value.upper())


def test_an_offset_is_never_invented() -> None:
    """The issue's examples: livekit's "04:45", a naive date-time; offsets still give aware."""
    assert toolcall_reads("time", "04:45") == time(4, 45)
    assert toolcall_reads("time", "04:45").tzinfo is None
    naive = toolcall_reads("datetime", "2025-06-01T12:00:00")
    assert naive == datetime(2025, 6, 1, 12)
    assert naive.tzinfo is None
    aware = toolcall_reads("datetime", "2025-06-01T12:00:00+01:00")
    assert aware.utcoffset() == timedelta(hours=1)
    assert toolcall_reads("time", "12:00:00.5") == time(12, 0, 0, 500000)
    assert toolcall_reads("timedelta", 90) == timedelta(minutes=1, seconds=30)
    assert toolcall_reads("timedelta", "P1DT2H") == timedelta(days=1, hours=2)


def test_a_duration_past_timedelta_is_invalid() -> None:
    """A duration past what timedelta holds is invalid, never an overflow."""
    for value in ("P1000000000D", "PT" + "9" * 400 + "S", 10**30, float("inf")):
        assert toolcall_reads("timedelta", value) is REFUSED


# -- the tool as the model sees it, both dispatch paths ------------------------------------------


def stamped(when: datetime, at: time, span: timedelta, day: date | None = None) -> Any:
    """A tool with every value of this file.

    Args:
        span: how long
    """
    return when, at, span, day


def test_the_schema_is_pydantics() -> None:
    """format date-time / time / duration, as pydantic's TypeAdapter(T).json_schema() gives;
    strict the same; a number of seconds is accepted beyond the schema (docs/decisions.md)."""
    tool = toolcall.derive(stamped)
    for strict in (False, True):
        properties = toolcall.render(tool, "openai", strict=strict)["function"]["parameters"][
            "properties"
        ]
        for name, tp in (("when", datetime), ("at", time), ("span", timedelta)):
            expected = dict(TypeAdapter(tp).json_schema())
            if name == "span":
                expected["description"] = "how long"
            assert properties[name] == expected


def test_output_schemas_describe_what_encode_result_writes() -> None:
    """Naive and aware values and durations, as msgspec writes them, match the output schema
    (a pattern, not a format: a naive date-time is no RFC 3339 date-time, and "-PT3600S" or
    "PT0.5S" no RFC 3339 duration)."""
    values = {
        "datetime": [datetime(2025, 6, 1, 12), datetime(2025, 6, 1, 12, 0, 0, 5).astimezone()],
        "time": [time(4, 45), time(4, 45, 0, 123456)],
        "timedelta": [
            timedelta(hours=1),
            timedelta(hours=-1),
            timedelta(microseconds=5),
            timedelta(days=2, seconds=5),
            timedelta(0),
            timedelta(days=-3, microseconds=1),
        ],
    }
    for py, samples in values.items():
        schema = output_schema(ir.Type(kind="string", py=py))
        assert "[.]" in schema["pattern"]
        assert "\\." not in schema["pattern"]
        for value in samples:
            written = json.loads(toolcall.encode_result(value))
            assert re.fullmatch(schema["pattern"].strip("^$"), written), (py, written)
            assert msgspec.convert(written, TYPES[py]) == value


def test_fast_and_general_paths_agree() -> None:
    """The generated path restores what the general path restores, and steps aside where it
    refuses, for every sample in every position."""
    tool = toolcall.derive(stamped)
    fast = build_fastpath(tool, stamped, is_async=False, resolver=FakeResolver())
    assert fast is not None
    box = toolcall.Toolbox(stamped)
    full = {"when": "2025-06-01T12:00:00", "at": "04:45", "span": "PT1H", "day": "2025-06-01"}
    for py, value in SAMPLES:
        name = {"datetime": "when", "time": "at", "timedelta": "span"}[py]
        args = {**full, name: value}
        general = box.run("stamped", args)
        result = fast(args)
        if result is not MISS:
            assert result == general, args
        expected = toolcall_reads(py, value)
        if expected is REFUSED:
            assert isinstance(general, Err), args
            assert general.error.reason == REASONS[py]
        else:
            assert isinstance(general, Ok), args
            assert same(general.value[("when", "at", "span").index(name)], expected)
