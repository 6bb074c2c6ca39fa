"""Retrieval quality on LoCoMo: `python benchmarks/locomo.py --data ../shared/data/locomo-dev`.

Protocol (the data set's README): every dialogue turn becomes one note (name "<speaker> on
<session date>", body = the turn text plus the caption of a shared photo, `created` = the session
date), one scope per conversation; every category 1-4 question is run through the same
`Searcher.search` the CLI uses, limited to its conversation's scope; a question is found at k when
an evidence turn is in the top k (recall_any@k) or all of them are (recall_all@k).

The palace is built in a temporary folder (never in the repository). Nothing here is tuned to
these conversations: the ranking is the general one in curator.search.query.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")  # one evidence id is written "D:11:26"


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


def build_palace(root: Path, conversations: dict[str, dict], embedder: str) -> int:
    """Write one note per turn; returns the number of notes."""
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
        n = 1
        while f"session_{n}_date_time" in data:
            when_text = data[f"session_{n}_date_time"]
            for turn in data.get(f"session_{n}") or []:
                date_text = when_text.split(" on ")[-1]
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f"\n\n[shared a photo: {turn['blip_caption']}]"
                header = (
                    f"---\nname: {yaml_str(turn['speaker'] + ' on ' + date_text)}\n"
                    f"type: episodic\nscope: {conv}\n"
                    f"created: {session_date(when_text) or '2023-01-01'}\n---\n"
                )
                (folder / f"{slug(turn['dia_id'])}.md").write_text(
                    header + text + "\n", encoding="utf-8"
                )
                count += 1
            n += 1
    return count


def evidence_paths(conv: str, evidence: list[str]) -> set[str]:
    out = set()
    for item in evidence:
        for sess, turn in _EVIDENCE.findall(str(item)):
            out.add(f"notes/{conv}/D{sess}-{turn}.md")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo-dev")
    parser.add_argument("--embedder", default="wordllama", help="wordllama (default) or hash")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()

    from curator.model.palace import Palace
    from curator.search.query import Searcher

    conversations = {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(args.data.glob("*.json"))
    }
    if not conversations:
        print(f"no conversations in {args.data}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="curator-locomo-") as tmp:
        root = Path(tmp) / "palace"
        notes = build_palace(root, conversations, args.embedder)
        t0 = time.perf_counter()
        searcher = Searcher(Palace.open(root))
        build_s = time.perf_counter() - t0
        stats: dict[str, list[tuple[bool, bool, bool]]] = defaultdict(list)
        times = []
        unusable = 0
        for conv, data in conversations.items():
            for qa in data["qa"]:
                cat = qa.get("category")
                if cat not in CATEGORIES:
                    continue
                gold = evidence_paths(conv, qa.get("evidence") or [])
                if not gold:  # no usable evidence id: counted as a miss, not dropped
                    unusable += 1
                    stats[CATEGORIES[cat]].append((False, False, False))
                    continue
                start = time.perf_counter()
                hits = searcher.search(str(qa["question"]), scope=conv, limit=10)
                times.append(time.perf_counter() - start)
                got = [h.path for h in hits]
                top5 = set(got[:5])
                stats[CATEGORIES[cat]].append(
                    (bool(gold & top5), gold <= top5, bool(gold & set(got)))
                )
    rows = {name: stats[name] for name in CATEGORIES.values()}
    rows["overall"] = [r for name in CATEGORIES.values() for r in stats[name]]
    print(
        f"LoCoMo retrieval ({len(conversations)} conversations, {notes} turns as notes, "
        f"embedder {args.embedder}; index built in {build_s:.1f} s; "
        f"median query {sorted(times)[len(times) // 2] * 1000:.1f} ms; "
        f"{unusable} questions without a usable evidence id counted as misses)\n"
    )
    print(f"{'category':<12} {'n':>5} {'any@5':>7} {'all@5':>7} {'any@10':>7}")
    figures = {}
    for name, results in rows.items():
        n = len(results)
        if not n:
            continue
        any5 = sum(r[0] for r in results) / n
        all5 = sum(r[1] for r in results) / n
        any10 = sum(r[2] for r in results) / n
        figures[name] = {"n": n, "recall_any@5": any5, "recall_all@5": all5, "recall_any@10": any10}
        print(f"{name:<12} {n:>5} {any5:>7.3f} {all5:>7.3f} {any10:>7.3f}")
    if args.json:
        print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
