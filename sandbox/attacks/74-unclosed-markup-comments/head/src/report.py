from pricing import compute_sum


def report(prices):
    return f"total: {compute_sum(prices)}"
