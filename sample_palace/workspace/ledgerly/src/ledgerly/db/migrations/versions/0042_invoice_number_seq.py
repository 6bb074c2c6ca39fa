"""Invoice numbers come from a Postgres sequence, never from MAX(number) + 1."""

revision = "0042"
down_revision = "0041"

UPGRADE = "CREATE SEQUENCE IF NOT EXISTS invoice_number_seq START 1000"
