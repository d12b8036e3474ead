CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    total_cents INTEGER NOT NULL,
    placed_at TEXT NOT NULL
);
CREATE INDEX orders_customer ON orders(customer_id);
