TOP_CUSTOMERS = "SELECT customer_name, SUM(total) AS spent FROM orders GROUP BY customer_name ORDER BY spent DESC"
