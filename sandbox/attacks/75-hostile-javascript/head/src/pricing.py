def compute_sum(prices):
    """The sum of the prices."""
    return sum(prices)
