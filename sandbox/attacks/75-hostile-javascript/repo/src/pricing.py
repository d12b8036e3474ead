def compute_total(prices):
    """The sum of the prices."""
    return sum(prices)
