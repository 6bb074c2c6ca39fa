"""The app's screens: mode name -> (title, key, what it is for). The tab bar, the bindings and
the palette all read this one table."""

from __future__ import annotations

SCREENS = {
    "inbox": ("Inbox", "1", "Drafts waiting for review"),
    "rooms": ("Rooms", "2", "The palace by room, note by note"),
    "audit": ("Audit", "3", "Stale and due notes"),
    "search": ("Search", "4", "Search every note"),
    "history": ("History", "5", "Curator actions; undo"),
    "tasks": ("Tasks", "6", "Agents' tasks, claims and requests"),
}
