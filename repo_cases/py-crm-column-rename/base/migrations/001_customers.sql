CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    fullname TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    opted_in INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
