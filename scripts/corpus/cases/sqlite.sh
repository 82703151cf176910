# sqlite.sh: sqlite3 on a database of orders made with sqlite3 itself (a
# recursive CTE fills it), queried as an agent would: lookups, plans,
# schema, errors. Needles follow the rule in docs/bench.md: the row or value
# asked about, the error, the plan line. Sourced by make.sh.

# shop_db: the database, made once.
shop_db() {
	[ -f "$work/sqlite/shop.db" ] && { cd "$work/sqlite" || exit 1; return; }
	fresh sqlite
	sqlite3 shop.db <<'SQL'
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), status TEXT NOT NULL, total_cents INTEGER NOT NULL, placed TEXT NOT NULL);
CREATE TABLE lines (order_id INTEGER NOT NULL REFERENCES orders(id), sku TEXT NOT NULL, qty INTEGER NOT NULL, unit_cents INTEGER NOT NULL);
CREATE INDEX orders_customer ON orders(customer_id);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
INSERT INTO customers SELECT i, 'customer-' || printf('%04d', i), substr('DEFRNLITESPL', 1 + (i % 6) * 2, 2), date('2024-01-01', '+' || (i % 365) || ' days') FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO orders SELECT i, 1 + (i * 7919) % 2000, CASE WHEN i % 97 = 0 THEN 'refunded' WHEN i % 11 = 0 THEN 'open' ELSE 'shipped' END, 500 + (i * 104729) % 90000, datetime('2024-06-01', '+' || (i % 180) || ' days', '+' || (i % 86400) || ' seconds') FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000)
INSERT INTO lines SELECT 1 + (i % 20000), 'SKU' || printf('%04d', 1 + i % 300), 1 + i % 5, 100 + (i * 31) % 5000 FROM n;
SQL
}

# sql_case NAME SQL DESCRIPTION [MODE]: runs sqlite3 with the SQL.
sql_case() {
	local name=sqlite-$1
	selected "command-$name" || { pending=(); return 0; }
	shop_db
	cmd_case "$name" "sqlite3 ${4:-} shop.db \"$2\"" "$3"
}

needle_re '^customer-1234\|.*' 'the row asked about'
sql_case customer-lookup 'SELECT c.name, c.country, count(o.id), sum(o.total_cents) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.id ORDER BY c.name' 'Find the order count and total of customer-1234'
needle_re '^refunded\|\d+\|\d+$' 'the status asked about, with its count'
sql_case status-counts 'SELECT status, count(*), sum(total_cents) FROM orders GROUP BY status' 'How many orders were refunded'
needle_re '^Parse error.*|^Error: .*' 'the error'
needle_re 'no such column: .*' 'what is wrong'
sql_case no-such-column 'SELECT id, customer, total_cents FROM orders WHERE status = '"'"'open'"'"' LIMIT 5' 'List five open orders'
needle_re '.*SCAN l\b.*' 'the plan line that scans the big table: the missing index'
sql_case plan-scan 'EXPLAIN QUERY PLAN SELECT o.id, sum(l.qty) FROM orders o JOIN lines l ON l.order_id = o.id WHERE o.customer_id = 42 GROUP BY o.id' 'Why is the per-customer lines query slow'
needle 'CREATE INDEX orders_customer ON orders(customer_id);' 'the index asked about'
sql_case schema '.schema' 'Which indexes does the shop database have'
needle_re '^\d+\|\d+\|refunded\|\d+\|2024-1[12]-\d\d .*' 'the first refunded order of November or December'
sql_case refunded-late "SELECT * FROM orders WHERE status = 'refunded' ORDER BY id" 'Find the refunded orders placed in November or December'
needle_re '^SKU0150,.*' 'the sku asked about'
sql_case sku-csv 'SELECT sku, count(*), sum(qty), sum(qty * unit_cents) FROM lines GROUP BY sku ORDER BY sku' 'How many units of SKU0150 were sold, in CSV' -csv
needle_re '.*"id":17777.*' 'the order asked about'
sql_case orders-json 'SELECT * FROM orders WHERE id BETWEEN 17000 AND 18000' 'Show order 17777 as JSON' -json
needle_re '^Runtime error.*|^Error: .*' 'the error'
needle_re '.*FOREIGN KEY constraint failed.*' 'which constraint failed'
sql_case fk-violation 'PRAGMA foreign_keys = ON; INSERT INTO orders VALUES (20001, 99999, '"'"'open'"'"', 100, datetime());' 'Add an order for customer 99999'
needle_re '^ +id = 1242$' 'the row asked about, by its key'
sql_case line-mode 'SELECT * FROM customers' 'Show customer 1242' -line
