"""One module per screen of the app (Inbox, Rooms, Audit, Search, History, Tasks, Sync)."""
