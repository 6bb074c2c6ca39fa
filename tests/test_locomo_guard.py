"""benchmarks/locomo.py's generalization guard: leave-one-conversation-out for every constant it
chooses, and a non-zero exit when a change raises dev by more than the held-out figure. Run for
real on a tiny conversation set generated here (the dev data is never read by tests)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchmarks import locomo

TOPICS = ("pottery", "camping", "violin", "turtles", "marathon", "painting")


def conversation(n: int) -> dict[str, object]:
    """Two speakers, two sessions, two topics a session (a turn and a question each): what
    leave-one-out needs is five conversations, not many questions in each, and every
    question is searched once per candidate value of every constant, twice a run."""
    data: dict[str, object] = {"speaker_a": "Ann", "speaker_b": "Bob"}
    qa = []
    for s, when in enumerate(("1:00 pm on 8 May, 2023", "2:00 pm on 20 June, 2023"), 1):
        data[f"session_{s}_date_time"] = when
        turns = []
        for t, topic in enumerate(TOPICS[n % 2 :: 1][:2], 1):
            speaker = "Ann" if t % 2 else "Bob"
            text = f"{speaker} went to the {topic} club yesterday with friend {n}."
            turns.append({"speaker": speaker, "dia_id": f"D{s}:{t}", "text": text})
            qa.append(
                {
                    "question": f"When did {speaker} go to the {topic} club?",
                    "answer": when,
                    "evidence": [f"D{s}:{t}"],
                    "category": 2 if t % 2 else 4,
                }
            )
        data[f"session_{s}"] = turns
    data["qa"] = qa
    return data


def write_set(folder: Path, count: int = 5) -> Path:
    folder.mkdir()
    for n in range(count):
        (folder / f"conv-{n}.json").write_text(json.dumps(conversation(n)), encoding="utf-8")
    return folder


def test_the_guard_fails_when_dev_rises_more_than_held_out(tmp_path: Path) -> None:
    saved = tmp_path / "figures.json"
    saved.write_text(json.dumps({"hash": {"dev": 0.70, "held out": 0.70}}), encoding="utf-8")
    assert locomo.guard(saved, "hash", 0.73, 0.70) == 1  # dev up, held out flat
    assert locomo.guard(saved, "hash", 0.73, 0.73) == 0  # both up alike
    assert locomo.guard(saved, "hash", 0.70, 0.72) == 0
    # dev below held out (the shipped constants not those leave-one-out picks) may rise to it
    saved.write_text(json.dumps({"hash": {"dev": 0.68, "held out": 0.70}}), encoding="utf-8")
    assert locomo.guard(saved, "hash", 0.70, 0.70) == 0
    assert locomo.guard(saved, "hash", 0.73, 0.70) == 1
    assert locomo.guard(saved, "minilm", 0.70, 0.70) == 2  # nothing saved to compare with


def test_a_run_the_guard_stops_never_becomes_the_baseline(tmp_path: Path) -> None:
    saved = tmp_path / "figures.json"
    before = json.dumps({"hash": {"dev": 0.7, "held out": 0.7}})
    saved.write_text(before, encoding="utf-8")
    assert locomo.guarded_save(saved, saved, "hash", 0.73, 0.70) == 1
    assert saved.read_text(encoding="utf-8") == before
    assert locomo.guarded_save(saved, saved, "hash", 0.73, 0.73) == 0
    assert json.loads(saved.read_text(encoding="utf-8"))["hash"] == {"dev": 0.73, "held out": 0.73}


def run_locomo(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`benchmarks/locomo.py ARGS` run by its main() in this process (exit code, stdout,
    stderr): the process is not what is tested, and a process of its own pays LanceDB's and
    dateparser's imports for a run over twenty questions."""
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(sys, "argv", ["locomo.py", *args])
        code = locomo.main()
    out, err = capsys.readouterr()
    return code, out, err


def test_every_constant_is_chosen_without_the_conversation_it_is_scored_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_set(tmp_path / "set")
    figures = tmp_path / "figures.json"
    run = [str(data), "--embedder", "hash", "--quick", "--only", "with context", "--json"]
    code, out, err = run_locomo(capsys, *run, "--save", str(figures))
    assert code == 0, err
    report = json.loads(out[out.index("\n{") :])
    chosen = report["leave-one-out"]["chosen"]
    assert sorted(chosen) == [f"conv-{n}" for n in range(5)]
    assert all(set(picks) == set(locomo.AXES) - {"contextual vector"} for picks in chosen.values())
    # the weights a rule fixes are never chosen: leave-one-out reports what it would pick
    would = report["leave-one-out"]["would choose"]
    assert all(set(picks) == set(locomo.FIXED) for picks in would.values())
    assert not set(locomo.FIXED) & set(locomo.AXES)
    assert "held out" in report["leave-one-out"]["figures"]
    saved = json.loads(figures.read_text(encoding="utf-8"))["hash"]
    assert saved == {
        k: round(v["overall"]["any@5"], 4)
        for k, v in (
            ("dev", report["with context"]["shipped"]),
            ("held out", report["leave-one-out"]["figures"]["held out"]),
        )
    }
    # the same tree against its own figures passes (the run is deterministic)
    assert run_locomo(capsys, *run, "--guard", str(figures))[0] == 0


def test_constants_are_never_chosen_on_fewer_than_four_conversations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_set(tmp_path / "set", count=4)
    code, _, err = run_locomo(capsys, str(data), "--embedder", "hash", "--quick", "--held-out")
    assert code == 2 and "four" in err
