from ledgerly.billing.invoices import total
from ledgerly.billing.money import Money


def test_total_in_cents() -> None:
    assert total([Money(1999, "EUR"), Money(1, "EUR")]) == Money(2000, "EUR")
