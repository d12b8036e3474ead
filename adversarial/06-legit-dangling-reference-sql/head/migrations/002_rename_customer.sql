ALTER TABLE orders RENAME COLUMN customer_name TO client_name;
