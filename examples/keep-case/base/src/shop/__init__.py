"""A tiny shop: prices, carts and discounts."""
