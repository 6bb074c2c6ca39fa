"""Add invoices.due_on (nullable; backfilled in 0042)."""

revision = "0041"
down_revision = "0040"
