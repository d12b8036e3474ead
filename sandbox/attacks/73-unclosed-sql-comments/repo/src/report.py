from pricing import compute_total


def report(prices):
    return f"total: {compute_total(prices)}"
