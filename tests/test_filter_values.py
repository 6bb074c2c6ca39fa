"""Every filter value is checked against what the palace knows, by one rule (`unknown_value`
through `Filter.of`): `list` and `search` refuse an unknown type, scope or status with the
known values listed (exit 2), a case slip says which value was meant, `--json` errors are JSON,
and `search --limit 0` is refused. The MCP tools use the same rule (tests/test_mcp_surface.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import RunCli

from curator.config import load_config
from curator.model.schema import FILTER_STATUSES, unknown_value
from curator.search.filters import Filter, SearchError


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["list", "--type", "bogus"], "unknown type 'bogus'"),
        (["list", "--scope", "bogus"], "unknown scope 'bogus'"),
        (["list", "--status", "bogus"], "unknown status 'bogus'"),
        (["list", "--type", "Feedback"], "did you mean 'feedback'"),
        (["search", "x", "--type", "bogus"], "unknown type 'bogus'"),
        (["search", "x", "--status", "Active"], "did you mean 'active'"),
    ],
)
def test_unknown_filter_values_are_refused_with_the_known_ones(
    sample_palace: Path, run_cli: RunCli, args: list[str], expected: str
) -> None:
    code, out, err = run_cli("--palace", sample_palace, *args)
    assert code == 2, (out, err)
    assert expected in err and "(known: " in err


def test_known_values_still_select(sample_palace: Path, run_cli: RunCli) -> None:
    code, out, _ = run_cli("--palace", sample_palace, "--json", "list", "--type", "feedback")
    assert code == 0
    notes = json.loads(out)["notes"]
    assert notes and {n["type"] for n in notes} == {"feedback"}


def test_json_errors_are_json(sample_palace: Path, run_cli: RunCli) -> None:
    code, out, _ = run_cli("--palace", sample_palace, "--json", "list", "--scope", "bogus")
    assert code == 2
    answer = json.loads(out)
    assert "unknown scope 'bogus'" in answer["error"] and answer["exit_code"] == 2


def test_search_limit_zero_is_refused(sample_palace: Path, run_cli: RunCli) -> None:
    code, out, err = run_cli("--palace", sample_palace, "search", "x", "--limit", "0")
    assert code == 2 and "--limit" in err and "1.." in err and out == ""
    code, out, _ = run_cli("--palace", sample_palace, "search", "x", "--limit", "0", "--json")
    assert code == 2 and "--limit" in json.loads(out)["error"]


@settings(deadline=None)
@given(
    st.sampled_from(["type", "scope", "status"]),
    st.lists(st.text(min_size=1, max_size=12).filter(lambda s: "\x00" not in s), max_size=4),
)
def test_filter_of_accepts_exactly_the_known_values(label: str, values: list[str]) -> None:
    config = load_config(Path(__file__).parent.parent / "sample_palace")
    known = {"type": config.types, "scope": config.scopes, "status": FILTER_STATUSES}[label]
    field = {"type": "types", "scope": "scope", "status": "status"}[label]
    try:
        Filter.of(config, **{field: values})
    except SearchError as exc:
        assert any(v not in known for v in values if v)
        assert str(exc) == unknown_value(label, [v for v in values if v], known)
    else:
        assert all(v in known for v in values if v)
