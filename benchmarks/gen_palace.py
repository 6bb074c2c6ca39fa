"""Generate a synthetic, deterministic curator palace for benchmarks.

    python benchmarks/gen_palace.py OUT_DIR --notes 10000 [--drafts 50] [--seed 1] [--git]

Other benchmark scripts import it:

    sys.path.insert(0, str(Path(__file__).parent))
    from gen_palace import generate
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import itertools
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

TODAY = dt.date(2026, 11, 30)
FIRST_DAY = dt.date(2024, 1, 1)
DAYS = [(FIRST_DAY + dt.timedelta(days=i)).isoformat() for i in range((TODAY - FIRST_DAY).days)]

TYPES = ("user", "feedback", "project", "reference")
TYPE_WEIGHTS = (5, 30, 45, 20)
CONFIDENCE = {
    "user": (0.8, 1.0),
    "feedback": (0.7, 1.0),
    "project": (0.5, 1.0),
    "reference": (0.5, 1.0),
}
SCOPES = ("atlas", "billing-api", "web-console", "infra", "ml-pipeline")
SENSITIVE_SCOPE = "ops-private"
AREAS = (
    "api",
    "auth",
    "billing",
    "build",
    "data",
    "deploy",
    "observability",
    "search",
    "storage",
    "testing",
    "workers",
    "frontend",
)
DRAFT_LINE = "> DRAFT — unreviewed, NOT a rule until a reviewer promotes it."
INDEX_MARKER = "<!-- curator:generated — do not hand-edit below this line -->"

COMPONENTS = (
    "api gateway",
    "billing worker",
    "ingest service",
    "scheduler",
    "webhook handler",
    "cache layer",
    "auth middleware",
    "search indexer",
    "migration runner",
    "export job",
    "payment reconciler",
    "session store",
    "rate limiter",
    "notification service",
    "report builder",
    "upload pipeline",
    "feature flag service",
    "audit logger",
    "tenant router",
    "pdf renderer",
    "sync daemon",
    "retry queue",
    "config loader",
    "health checker",
    "deploy pipeline",
    "metrics exporter",
    "backfill script",
    "cli tool",
)
OBJECTS = (
    "connection pool",
    "feature flag",
    "schema migration",
    "config file",
    "access token",
    "partition key",
    "build cache",
    "index snapshot",
    "dead letter queue",
    "api version",
    "retry budget",
    "circuit breaker",
    "lock timeout",
    "replica lag",
    "request id",
    "idempotency key",
    "cron schedule",
    "error budget",
    "release tag",
    "lockfile",
    "environment variable",
    "json schema",
    "sql query plan",
    "docker image",
    "helm chart",
    "terraform state",
    "object storage bucket",
    "signing secret",
    "trace span",
    "test fixture",
)
TOOLS = (
    "postgres",
    "redis",
    "kafka",
    "celery",
    "terraform",
    "kubernetes",
    "nginx",
    "docker",
    "pytest",
    "ruff",
    "mypy",
    "grafana",
    "sentry",
    "s3",
    "cloudfront",
    "github actions",
    "pgbouncer",
    "opentelemetry",
    "stripe",
    "elasticsearch",
    "rabbitmq",
    "gunicorn",
    "uvicorn",
)
VERBS = (
    "retries",
    "validates",
    "caches",
    "rotates",
    "serialises",
    "batches",
    "throttles",
    "invalidates",
    "migrates",
    "logs",
    "rejects",
    "reloads",
    "drains",
    "shards",
    "compacts",
    "signs",
    "deduplicates",
    "schedules",
    "checkpoints",
    "pins",
)
EVENTS = (
    "a deploy",
    "the nightly backup",
    "a failover",
    "the weekly release",
    "a schema change",
    "peak traffic",
    "a cold start",
    "token expiry",
    "a partial outage",
    "the month-end close",
    "a rollback",
    "a dependency upgrade",
    "a load test",
    "an incident review",
)
ADJECTIVES = (
    "stale",
    "flaky",
    "slow",
    "idempotent",
    "atomic",
    "concurrent",
    "transient",
    "pinned",
    "deprecated",
    "read-only",
    "eventually consistent",
    "noisy",
    "expensive",
    "brittle",
)
PEOPLE = ("Dana", "Priya", "Tomás", "Wei", "Amara", "Jonas", "Keiko", "Luis", "Noor", "Sam")
TAGS = (
    "postgres",
    "redis",
    "deploy",
    "ci",
    "testing",
    "security",
    "billing",
    "performance",
    "observability",
    "migrations",
    "api",
    "workers",
    "incident",
    "config",
    "docs",
    "privacy",
    "frontend",
    "build",
    "dependencies",
    "on-call",
    "queues",
    "caching",
    "search",
    "storage",
)
SENTENCES = (
    "The {c} {v} the {o} before {e}.",
    "When the {o} is {a}, the {c} falls back to {t}.",
    "We measured a p95 of {n} ms on the {c} after switching the {o} to {t}.",
    "Never change the {o} by hand; the {c} {v} it on every start.",
    "{p} found that the {c} {v} each {o} twice during {e}.",
    "The {o} lives next to the {c} and is read once at boot.",
    "After {e}, check that the {c} still {v} the {o}.",
    "A {a} {o} caused {n} failed requests in the {c} last quarter.",
    "Use {t} for the {o}; the old {c} approach was {a}.",
    "The {c} exposes a health endpoint that reports the {o} state.",
    "Keep the {o} under {n} entries or the {c} becomes {a}.",
    "{p} prefers that the {c} {v} the {o} in small batches.",
    "Alerts fire when nothing {v} the {o} in the {c} for {n} minutes.",
    "The runbook for the {c} explains how to inspect the {o} with {t}.",
)
WHY_QUOTES = (
    "I don't want to debug this again at 2am, make it boring",
    "if it isn't tested it doesn't work, simple as that",
    "ask me first, even when it looks obvious",
    "small changes, please, I review everything myself",
    "the docs lied to us once already, check the code",
    "never again a silent failure, I want it loud",
    "we lost a day to this last time, write it down properly",
    "keep it reversible, I want to be able to undo it",
)


@dataclass
class Spec:
    """Everything decided about one note before its text is rendered."""

    idx: int
    slug: str
    name: str
    kind: str
    area: str
    created: int
    scope: str | None = None
    status: str | None = None
    superseded_by: str | None = None
    supersedes: str | None = None
    has_details: bool = False
    desc: str = ""
    links: list[int] = field(default_factory=list)

    @property
    def rel(self) -> str:
        """Path of the note relative to the palace root."""
        return f"notes/{self.kind}/{self.area}/{self.slug}.md"


def _fill(rng: random.Random, template: str) -> str:
    """Fill one sentence template from the vocabulary."""
    return template.format(
        c=rng.choice(COMPONENTS),
        o=rng.choice(OBJECTS),
        t=rng.choice(TOOLS),
        v=rng.choice(VERBS),
        e=rng.choice(EVENTS),
        a=rng.choice(ADJECTIVES),
        p=rng.choice(PEOPLE),
        n=rng.randrange(2, 2000),
    )


def _sentence(rng: random.Random) -> str:
    """One plausible software-engineering sentence."""
    s = _fill(rng, rng.choice(SENTENCES))
    return s[0].upper() + s[1:]


def _title(rng: random.Random, kind: str) -> str:
    """A short note name in the style of the note's type."""
    c, o, v = rng.choice(COMPONENTS), rng.choice(OBJECTS), rng.choice(VERBS)
    if kind == "user":
        return f"{rng.choice(PEOPLE)} prefers the {c} to be {rng.choice(ADJECTIVES)}"
    if kind == "feedback":
        return f"Check the {o} before touching the {c}"
    if kind == "reference":
        return f"Where to find the {c} {o} in {rng.choice(TOOLS)}"
    return f"The {c} {v} the {o}"


def _slugify(text: str) -> str:
    """Lowercase-hyphenated slug of a name."""
    out = "".join(ch if ch.isalnum() else "-" for ch in text.lower())
    return "-".join(part for part in out.split("-") if part)


def _flow_list(items: list[str]) -> str:
    """YAML flow list of plain scalars."""
    return "[" + ", ".join(items) + "]"


def _workspace_paths(rng: random.Random, scope: str, count: int) -> list[str]:
    """Project-relative file paths for one scope's workspace tree."""
    pkg = scope.replace("-", "_")
    paths = [
        "pyproject.toml",
        "Makefile",
        ".github/workflows/ci.yml",
        ".github/workflows/deploy.yml",
        "config/settings.toml",
    ]
    seen = set(paths)
    while len(paths) < count:
        area = rng.choice(AREAS)
        word = _slugify(rng.choice(OBJECTS)).replace("-", "_")
        candidate = rng.choice(
            (
                f"src/{pkg}/{area}/{word}.py",
                f"config/{area}_{word}.toml",
                f"tests/{area}/test_{word}.py",
                f"deploy/{area}/{word}.yaml",
            )
        )
        if candidate not in seen:
            seen.add(candidate)
            paths.append(candidate)
    return paths


def _link(rng: random.Random, src: Spec, dst: Spec) -> str:
    """One link from src to dst in one of the supported forms."""
    roll = rng.random()
    if roll < 0.6:
        return f"[[{dst.slug}]]"
    if roll < 0.75:
        return f"[[{dst.slug}|{dst.name.lower()}]]"
    if roll < 0.85:
        return f"[[{dst.name}]]"
    if roll < 0.9 and dst.has_details:
        return f"[[{dst.slug}#Details]]"
    rel = os.path.relpath(dst.rel, os.path.dirname(src.rel)).replace(os.sep, "/")
    return f"[{dst.name.lower()}]({rel})"


def _source(rng: random.Random, created: str, files: list[str]) -> str:
    """A source mapping with session, run and/or file."""
    parts = []
    if rng.random() < 0.8:
        parts.append(f"session: sess-{created}-{rng.getrandbits(16):04x}")
    if rng.random() < 0.4:
        parts.append(f"run: run-{rng.randrange(1000, 99999)}")
    if rng.random() < 0.3 or not parts:
        parts.append(f"file: {rng.choice(files)}")
    return "{" + ", ".join(parts) + "}"


def _header(
    rng: random.Random,
    spec: Spec,
    description: str,
    ws: dict[str, list[str]],
    missing: dict[str, list[str]],
) -> list[str]:
    """Header lines (without the --- fences) for one note."""
    lines = [f"name: {spec.name}", f"description: {description}", f"type: {spec.kind}"]
    if rng.random() < 0.6:
        lo, hi = CONFIDENCE[spec.kind]
        lines.append(f"confidence: {rng.uniform(lo, hi):.2f}")
    created = DAYS[spec.created]
    if rng.random() < 0.92:
        lines.append(f"created: {created}")
    if rng.random() < 0.7:
        lines.append(f"reviewed: {DAYS[rng.randrange(spec.created, len(DAYS))]}")
    files = ws[spec.scope] if spec.scope else ws[SCOPES[0]]
    if rng.random() < 0.8:
        lines.append(f"source: {_source(rng, created, files)}")
    if spec.scope:
        lines.append(f"scope: {spec.scope}")
    if rng.random() < 0.3:
        lines.append(f"tags: {_flow_list(rng.sample(TAGS, rng.randint(1, 5)))}")
    if spec.status:
        lines.append(f"status: {spec.status}")
    elif rng.random() < 0.2:
        lines.append("status: active")
    if spec.superseded_by:
        lines.append(f"superseded_by: {spec.superseded_by}")
    if spec.supersedes:
        lines.append(f"supersedes: {spec.supersedes}")
    if rng.random() < 0.02:
        olds = [f"{spec.slug}-old-{k}" for k in range(rng.randint(2, 3))]
        lines.append(f"merged_from: {_flow_list(olds)}")
    if spec.scope and spec.scope != SENSITIVE_SCOPE and rng.random() < 0.15 / 0.6:
        pool = missing[spec.scope] if rng.random() < 0.05 else files
        paths = rng.sample(pool, rng.randint(1, min(2, len(pool))))
        if rng.random() < 0.35:
            target = paths[0]
            lines.append(
                f"verify: {{paths: {_flow_list(paths)}, command: [grep, -q, marker, {target}]}}"
            )
        else:
            lines.append(f"verify: {{paths: {_flow_list(paths)}}}")
    if rng.random() < 0.05:
        reason = f"{rng.choice(OBJECTS)} no longer matches the {rng.choice(COMPONENTS)}"
        since = DAYS[rng.randrange(max(spec.created, len(DAYS) - 120), len(DAYS))]
        lines.append(f'stale: {{reason: "{reason}", since: {since}}}')
    if rng.random() < 0.01:
        lines.append("sensitive: true")
    if rng.random() < 0.02:
        lines.append(f"expires: {(TODAY + dt.timedelta(days=rng.randint(-200, 200))).isoformat()}")
    return lines


def _body(rng: random.Random, spec: Spec, specs: list[Spec], broken: bool) -> str:
    """Markdown body: sentences, links, and the feedback why/how lines."""
    sentences = [_sentence(rng) for _ in range(rng.randint(3, 15))]
    links = [_link(rng, spec, specs[j]) for j in spec.links]
    if broken:
        links.append(f"[[{spec.slug}-removed-{rng.randrange(1000)}]]")
    if spec.supersedes:
        sentences.append(f"This replaces [[{spec.supersedes}]].")
    for link in links:
        k = rng.randrange(len(sentences))
        sentences[k] = f"{sentences[k]} See {link}."
    if spec.kind == "feedback":
        head = " ".join(sentences[:2])
        rest = sentences[2:]
        why = f'Why: "{rng.choice(WHY_QUOTES)}" ({DAYS[spec.created]})'
        how = f"How to apply: {_sentence(rng)}"
        out = [head, "", why, how]
        if rest:
            out += ["", " ".join(rest)]
        return "\n".join(out) + "\n"
    if spec.has_details and len(sentences) > 3:
        cut = len(sentences) // 2
        return " ".join(sentences[:cut]) + "\n\n## Details\n\n" + " ".join(sentences[cut:]) + "\n"
    return " ".join(sentences) + "\n"


def _plan(rng: random.Random, notes: int) -> list[Spec]:
    """Decide slug, type, folder, date, scope, chains and links for every note."""
    specs: list[Spec] = []
    used: dict[str, int] = {}
    for i in range(notes):
        kind = rng.choices(TYPES, TYPE_WEIGHTS)[0]
        name = _title(rng, kind)
        base = _slugify(name)
        # The next free suffix per base (no name ends in "-" and a number, so no base is
        # another's base-k): the slugs probing -2, -3, ... gave, in linear time (at 1M notes
        # the 840 feedback names each repeat ~360 times: probing was quadratic).
        k = used.get(base, 1)
        slug = base if k == 1 else f"{base}-{k}"
        used[base] = k + 1
        scope = None
        if kind != "user" and rng.random() < 0.6:
            scope = SENSITIVE_SCOPE if rng.random() < 0.01 else rng.choice(SCOPES)
        specs.append(
            Spec(
                idx=i,
                slug=slug,
                name=name,
                kind=kind,
                area=rng.choice(AREAS),
                created=rng.randrange(len(DAYS)),
                scope=scope,
                has_details=rng.random() < 0.3,
            )
        )
    by_type: dict[str, list[int]] = {t: [] for t in TYPES}
    for s in specs:
        by_type[s.kind].append(s.idx)
    taken: set[int] = set()
    for _ in range(round(notes * 0.03 / 2.5)):
        kind = rng.choice(("feedback", "project", "reference"))
        pool = by_type[kind]
        size = rng.choice((2, 3))
        if len(pool) < size:
            continue
        chain = [specs[j] for j in rng.sample(pool, size)]
        if any(c.idx in taken for c in chain):
            continue
        taken.update(c.idx for c in chain)
        chain.sort(key=lambda c: c.created)
        for old, new in itertools.pairwise(chain):
            old.status, old.superseded_by, new.supersedes = "superseded", new.slug, old.slug
    for s in specs:
        count = rng.choices((0, 1, 2, 3, 4), (15, 30, 25, 18, 12))[0]
        s.links = [j for j in (rng.randrange(notes) for _ in range(count)) if j != s.idx]
    return specs


def _draft(rng: random.Random, n: int, specs: list[Spec]) -> str:
    """One inbox draft; about one in ten rephrases an existing note."""
    when = TODAY - dt.timedelta(days=rng.randint(0, 14))
    stamp = f"{when.isoformat()}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00Z"
    kind = rng.choice(("feedback", "project", "reference"))
    desc = _sentence(rng)
    body = " ".join(_sentence(rng) for _ in range(rng.randint(2, 6)))
    if specs and rng.random() < 0.1:
        orig = rng.choice(specs)
        name, kind = f"Note to self - {orig.name[0].lower()}{orig.name[1:]}", orig.kind
        desc, body = orig.desc, f"{orig.desc} {_sentence(rng)}"
    else:
        name = _title(rng, kind)
    src = f"{{session: sess-{when.isoformat()}-{rng.getrandbits(16):04x}, run: run-{n + 1000}}}"
    return (
        f"---\nname: {name}\ndescription: {desc}\ntype: {kind}\nstatus: draft\n"
        f"created: {stamp}\nsource: {src}\n---\n{DRAFT_LINE}\n\n{body}\n"
    )


class _Writer:
    """Writes the palace's files, creating each folder once, and with `git`, streams each one
    as a blob to `git fast-import`, which packs them as they come: `git add` of a million
    files would write a million loose objects (one inode and ~4 KB of disk each). The tree is
    built from the index (`git update-index --index-info` of the sorted paths, then
    `git write-tree`): fast-import's own tree building scans a folder's entries for each
    file added, quadratic in a folder of 20,000 notes."""

    def __init__(self, out: Path, git: bool) -> None:
        self.out = out
        self.made: set[Path] = set()
        self.entries: list[tuple[str, str]] = []  # (path, blob id) of every file written
        self.proc: subprocess.Popen[bytes] | None = None
        if git:
            out.mkdir(parents=True, exist_ok=True)
            _git(out, "init", "-q")
            # No automatic gc: a repack racing the benchmark's copy of the palace made it fail.
            _git(out, "config", "gc.auto", "0")
            self.proc = subprocess.Popen(
                ["git", "fast-import", "--quiet", "--done"],
                cwd=out,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
            )

    def write(self, path: Path, text: str) -> None:
        """Write one file (its folder made once) and hand it to fast-import."""
        parent = path.parent
        if parent not in self.made:
            parent.mkdir(parents=True, exist_ok=True)
            self.made.add(parent)
        data = text.encode("utf-8")
        path.write_bytes(data)
        if self.proc is not None and self.proc.stdin is not None:
            head = b"blob %d\0" % len(data)
            blob = hashlib.sha1(head + data, usedforsecurity=False).hexdigest()
            self.entries.append((path.relative_to(self.out).as_posix(), blob))
            self.proc.stdin.write(b"blob\ndata %d\n%s\n" % (len(data), data))

    def commit(self, message: str) -> None:
        """One commit of every file written, on the branch HEAD names; the index then holds
        each file's stat (`update-index --refresh` reads each file once, writes no object)."""
        if self.proc is None or self.proc.stdin is None:
            return
        self.proc.stdin.write(b"done\n")
        self.proc.stdin.close()
        if self.proc.wait() != 0:
            raise RuntimeError(f"git fast-import failed in {self.out}")
        listing = "".join(f"100644 {blob}\t{rel}\n" for rel, blob in sorted(self.entries))
        subprocess.run(
            ["git", "update-index", "--add", "--index-info"],
            cwd=self.out,
            input=listing.encode("utf-8"),
            check=True,
        )
        tree = _git_out(self.out, "write-tree")
        who = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost"}
        who |= {"GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}
        commit = _git_out(self.out, "commit-tree", tree, "-m", message, env={**os.environ, **who})
        _git(self.out, "update-ref", "HEAD", commit)
        _git(self.out, "update-index", "-q", "--refresh")


def _palace_toml(name: str) -> str:
    """palace.toml with one scope per workspace project and one sensitive scope."""
    out = [f'[palace]\nname = "{name}"\ntaxonomy = "palace"\n']
    for scope in (*SCOPES, SENSITIVE_SCOPE):
        sensitive = "true" if scope == SENSITIVE_SCOPE else "false"
        root = SCOPES[-1] if scope == SENSITIVE_SCOPE else scope
        out.append(
            f'[scopes.{scope}]\nroot = "workspace/{root}"\nsensitive = {sensitive}\n'
            f'description = "Synthetic project {scope}."\n'
        )
    out.append('[index]\nembedder = "wordllama"\n')
    return "\n".join(out)


def _git(out: Path, *args: str) -> None:
    """Run one git command in the palace, quietly."""
    subprocess.run(["git", *args], cwd=out, check=True, stdout=subprocess.DEVNULL)


def _git_out(out: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """One git command's output line."""
    done = subprocess.run(
        ["git", *args], cwd=out, check=True, capture_output=True, text=True, env=env
    )
    return done.stdout.strip()


def generate(out: Path, notes: int, drafts: int = 50, seed: int = 1, git: bool = False) -> None:
    """Write a synthetic palace of `notes` notes and `drafts` drafts into `out` (new or empty)."""
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not empty")
    rng = random.Random(seed)
    writer = _Writer(out, git)
    files_per_scope = max(20, min(400, notes // 20))
    ws = {s: _workspace_paths(rng, s, files_per_scope + 5) for s in SCOPES}
    missing = {s: paths[-5:] for s, paths in ws.items()}
    for scope, paths in ws.items():
        for rel in paths[:-5]:
            writer.write(out / "workspace" / scope / rel, f"# {scope}: {rel}\nmarker = 1\n")
    ws[SENSITIVE_SCOPE] = ws[SCOPES[-1]]
    specs = _plan(rng, notes)
    for spec in specs:
        spec.desc = _sentence(rng)
        header = _header(rng, spec, spec.desc, ws, missing)
        body = _body(rng, spec, specs, broken=rng.random() < 0.01)
        writer.write(out / spec.rel, "---\n" + "\n".join(header) + "\n---\n" + body)
    for n in range(drafts):
        writer.write(out / "inbox" / f"draft-{n:04d}.md", _draft(rng, n, specs))
    writer.write(
        out / "palace.toml", _palace_toml(f"synthetic palace ({notes} notes, seed {seed})")
    )
    writer.write(out / ".gitignore", "inbox/\n.curator/\n")
    writer.write(
        out / "INDEX.md",
        "# Synthetic palace\n\nGenerated for benchmarks. Drafts in inbox/ "
        f"are NOT rules.\n\n{INDEX_MARKER}\n",
    )
    writer.commit(f"Synthetic palace: {notes} notes, {drafts} drafts, seed {seed}")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description="Generate a synthetic curator palace.")
    parser.add_argument("out", type=Path, help="output folder (new or empty)")
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--drafts", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--git", action="store_true", help="git init and commit everything")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    generate(args.out, args.notes, args.drafts, args.seed, args.git)
    print(
        f"{args.notes} notes, {args.drafts} drafts in {args.out} "
        f"({time.perf_counter() - start:.2f}s)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
