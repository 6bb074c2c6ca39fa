"""The app stays responsive: search as you type, Down/Up between query and results, and typing
while a reindex runs in a worker."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from uihelpers import git_log, make_app, settle, wait_until, whole_query_shown

from curator.search.store import RESULT_COLUMNS
from curator.ui.app import CuratorApp
from curator.ui.progress import JobProgress
from curator.ui.widgets.note_view import NoteView

pytestmark = pytest.mark.anyio

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
# A blocked event loop would hold every keystroke until the job ends: then one batch of keys
# at most is shown while it runs. How fast they show is the benchmarks' to measure.
KEYS_WHILE_BUSY = 10


async def _search_screen(pilot: object, app: CuratorApp) -> None:
    await pilot.press("4")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: app.current_mode == "search")  # type: ignore[arg-type]


async def test_search_down_up_enter(sample_palace: Path) -> None:
    """Down/Up between the query and the results; the highlighted result's note previewed
    beside them; Enter opens it in place (issue 36: never a jump to Rooms), its links followed
    there with a trail, Backspace back along it, Escape back to the results on the same row."""
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _search_screen(pilot, app)
        screen = app.screen
        query = screen.query_one("#search-query", Input)
        results = screen.query_one("#search-results", OptionList)
        view = screen.query_one("#search-note", NoteView)
        assert app.focused is query
        await pilot.press(*"deploy")
        # the whole query's results, and no later list of it on its way: the app keeps a
        # person's row when late results replace the list, so a down pressed over an earlier
        # list ("dep") left the highlight on that note's row in the later one
        await wait_until(pilot, lambda: whole_query_shown(app) and results.option_count > 1)
        await settle(pilot)
        first = results.get_option_at_index(0).id
        await wait_until(pilot, lambda: view.note is not None and view.note.rel == first)
        await pilot.press("down")
        assert app.focused is results
        assert results.highlighted == 0
        await pilot.press("up")
        assert app.focused is query
        await pilot.press("down", "down")
        assert app.focused is results
        chosen = results.get_option_at_index(results.highlighted or 0).id
        assert chosen != first and view.note is not None and view.note.rel == chosen
        assert results.region.width > 0 and view.region.x > results.region.x  # beside it
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_mode == "search" and view.note.rel == chosen
        assert not results.display and view.region.width >= 76  # the screen's width
        assert "Escape" in str(view.border_title)

        # its links: Enter goes into them, Enter follows one in place, with a trail
        await pilot.press("enter")
        links = view.query_one("#note-links", OptionList)
        assert app.focused is links
        await pilot.press("enter")
        await wait_until(pilot, lambda: view.note is not None and view.note.rel != chosen)
        assert app.current_mode == "search"
        chosen_name = app.palace.by_rel[chosen].name  # type: ignore[union-attr]
        assert chosen_name[:10] in str(view.border_title)  # the trail names where it was
        await pilot.press("backspace")
        await wait_until(pilot, lambda: view.note is not None and view.note.rel == chosen)
        await pilot.press("escape")
        await settle(pilot)
        assert results.display and app.focused is results
        assert results.get_option_at_index(results.highlighted or 0).id == chosen
        assert view.border_title == "Preview · Enter opens"

        # Enter in the query opens the first result in place
        query.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert not results.display and view.note is not None and view.note.rel == first


@pytest.mark.slow
async def test_typing_stays_live_during_a_reindex(tmp_path: Path) -> None:
    """The real (wordllama) embedder on a palace big enough (1,000 notes) that the first build
    and the reindex each take seconds, while keystrokes go on showing up in the Input; R's
    reindex ends with its message and its progress bar gone. How fast keys show at 10k notes,
    idle and loaded, is benchmarks/bench_app.py's to measure."""
    sys.path.insert(0, str(BENCHMARKS))
    from gen_palace import generate

    root = tmp_path / "palace"
    generate(root, notes=1_000, drafts=20, seed=1, git=True)
    app = make_app(root, watch=False)
    shown: list[bool] = []  # per keystroke: was the app still indexing when it showed
    saw_bar = False

    async def type_some(pilot: Any, query: Input, count: int) -> None:
        """Keys as the terminal driver delivers them (Pilot.press also waits for the whole
        process to go CPU-idle, which it never is while the index builds in a thread)."""
        nonlocal saw_bar
        for i in range(count):
            char = "abcdefghij"[i % 10]
            expected = query.value + char
            app.post_message(events.Key(char, char))
            await wait_until(pilot, lambda want=expected: query.value == want, timeout=120)
            shown.append(app.indexing)
            saw_bar = saw_bar or bool(app.screen.query(JobProgress))
            if len(query.value) > 12:
                query.value = ""

    async with app.run_test(size=(120, 36)) as pilot:
        await _search_screen(pilot, app)
        query = app.screen.query_one("#search-query", Input)

        def building() -> bool:
            nonlocal saw_bar
            saw_bar = saw_bar or bool(app.screen.query(JobProgress))
            return app.palace is None or app.indexing or not app.session.index.ready

        async def type_while(busy: Callable[[], bool], since: int) -> None:
            """Type while `busy()`, until more keys than KEYS_WHILE_BUSY showed during it
            (what the assertions need; typing on costs CPU and proves nothing more); then
            wait for the job to end."""
            while busy():
                if sum(shown[since:]) > KEYS_WHILE_BUSY:
                    await wait_until(pilot, lambda: not busy(), timeout=600)
                    return
                await type_some(pilot, query, 5)

        # the palace loads, then the first index build runs: type along
        await type_while(building, 0)
        first_build = list(shown)
        print(f"loaded and indexed: {len(first_build)} keys")
        app.screen.set_focus(None)
        app.post_message(events.Key("R", "R"))
        await wait_until(pilot, lambda: app.indexing)
        query.focus()
        await pilot.pause()
        query.clear()  # focusing selected the text: start afresh
        await type_while(lambda: building() and app.indexing, len(first_build))
        during = shown[len(first_build) :]
        print(f"reindexed: {len(during)} keys, {sum(during)} shown while it ran")
        assert sum(first_build) > KEYS_WHILE_BUSY, "startup: keys waited for the first build"
        assert sum(during) > KEYS_WHILE_BUSY, "reindex: keys waited for the job"
        await wait_until(
            pilot,
            # the messages log, not the toasts: a toast may have timed out by now under load
            lambda: any("Search index rebuilt" in m.text for m in app.message_log.messages),
        )
        assert saw_bar, "no progress bar while indexing"
        await settle(pilot)
        assert not app.screen.query(JobProgress), "the progress bar outlived the reindex"


async def test_reload_keeps_one_searcher(sample_palace: Path) -> None:
    """A reload (a new draft, a commit) syncs the app's one searcher incrementally instead of
    opening a new one that re-syncs the whole index and reloads its snapshot."""
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(pilot)
        assert app.palace is not None
        searcher = app.session.searcher(app.palace)
        first = app.palace
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.palace is not first)
        await settle(pilot)
        assert app.session.searcher(app.palace) is searcher
        assert searcher.palace is app.palace


async def test_app_commit_updates_the_open_index_in_the_writer_lock(sample_palace: Path) -> None:
    """A promote from the app leaves the index at the new commit, with the new note in it."""
    from curator.search.index import open_index
    from curator.writer.actions.reject import plan_reject

    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        session = app.session
        await wait_until(pilot, lambda: session.index.ready, timeout=60)
        assert app.palace is not None
        draft = next(d for d in app.palace.drafts if "lint" in d.rel)
        await app.commit_plan(plan_reject(app.palace, draft.rel, "covered already"))
        store = open_index(app.palace)
        head = git_log(sample_palace, "%H")[0]
        assert store.state is not None and store.state.commit == head
        assert draft.rel not in {row["path"] for row in store.all_rows(columns=RESULT_COLUMNS)}


async def test_the_stylesheet_is_parsed_again_only_for_a_new_theme(sample_palace: Path) -> None:
    """Starting and showing screens parse no stylesheet again (the one Textual made at the
    start holds the theme's variables: `paint.StyleMemo`); a theme change does, and restyles."""
    app = make_app(sample_palace, watch=False)
    parsed: list[str] = []
    stylesheet = app.stylesheet
    reparse = stylesheet.reparse

    def counted() -> None:
        parsed.append(app.theme)
        reparse()

    stylesheet.reparse = counted  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.action_show_screen("rooms")
        await wait_until(pilot, lambda: app.current_mode == "rooms")
        await settle(pilot)
        assert parsed == [], "the theme is the one the stylesheet was made with"
        background = app.screen.styles.background
        app.theme = "textual-light"
        await wait_until(pilot, lambda: app.screen.styles.background != background)
        assert parsed == ["textual-light"]


async def test_a_screen_is_restyled_on_show_only_when_the_app_changed_above_it(
    sample_palace: Path,
) -> None:
    """Each widget is styled as it mounts, with its screen's `narrow` class already set for
    the app's width; showing a screen (a new one, one shown before, a dialog) restyles no
    screen whole (`paint.KeepsStyles`), until the app's own classes change while a screen is
    out of sight (`w`, wide mode): shown again, that screen is restyled and follows."""
    from textual.screen import Screen

    app = make_app(sample_palace, watch=False)
    restyled: list[tuple[str, int]] = []  # (screen, widgets on it) per restyle of a screen
    update = app.update_styles

    def spy(node: Any, animate: bool = True) -> None:
        if isinstance(node, Screen):
            restyled.append((type(node).__name__, len(node.walk_children())))
        update(node, animate=animate)

    app.update_styles = spy  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)

        async def show(mode: str) -> None:
            app.action_show_screen(mode)
            await wait_until(pilot, lambda: app.current_mode == mode)
            await settle(pilot)
            assert app.screen.has_class("narrow"), mode

        await show("rooms")
        await show("inbox")
        await pilot.press("x")  # a dialog, and back
        await wait_until(pilot, lambda: isinstance(app.screen, ModalScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ModalScreen))
        await show("rooms")
        assert [n for _screen, n in restyled if n] == [], restyled  # none with widgets on it
        await pilot.press("w")  # wide mode on Rooms; the inbox is out of sight
        await wait_until(pilot, lambda: app.has_class("-wide"))
        restyled.clear()
        await show("inbox")
        assert [s for s, n in restyled if n] == ["InboxScreen"]
        assert not app.screen.query_one("#inbox-detail").display  # the wide rule, followed
