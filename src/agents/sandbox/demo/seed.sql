-- The demo database of the sandbox agent: a small shop. Created at first use under the data dir.
CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  country TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE products (
  id INTEGER PRIMARY KEY,
  sku TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  stock INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  status TEXT NOT NULL CHECK (status IN ('new', 'paid', 'shipped', 'cancelled')),
  created_at TEXT NOT NULL
);
CREATE TABLE order_items (
  order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (order_id, product_id)
);
CREATE INDEX orders_by_customer ON orders(customer_id);
CREATE VIEW order_totals AS
  SELECT o.id AS order_id, c.name AS customer, o.status, sum(i.quantity * p.price_cents) AS total_cents
  FROM orders o JOIN customers c ON c.id = o.customer_id JOIN order_items i ON i.order_id = o.id JOIN products p ON p.id = i.product_id
  GROUP BY o.id;

INSERT INTO customers (id, name, email, country, created_at) VALUES
  (1, 'Ada Lovelace', 'ada@example.com', 'GB', '2024-01-05'),
  (2, 'Grace Hopper', 'grace@example.com', 'US', '2024-02-11'),
  (3, 'Edsger Dijkstra', 'edsger@example.com', 'NL', '2024-03-02'),
  (4, 'Barbara Liskov', 'barbara@example.com', 'US', '2024-03-20'),
  (5, 'Donald Knuth', 'don@example.com', 'US', '2024-04-01');
INSERT INTO products (id, sku, name, price_cents, stock) VALUES
  (1, 'KB-01', 'Mechanical keyboard', 8900, 12),
  (2, 'MS-02', 'Trackball mouse', 4900, 30),
  (3, 'MN-27', '27-inch monitor', 27900, 4),
  (4, 'CB-USB', 'USB-C cable', 900, 200),
  (5, 'DK-01', 'Docking station', 15900, 0);
INSERT INTO orders (id, customer_id, status, created_at) VALUES
  (1, 1, 'paid', '2024-05-01'),
  (2, 2, 'shipped', '2024-05-03'),
  (3, 1, 'new', '2024-05-07'),
  (4, 4, 'cancelled', '2024-05-09'),
  (5, 5, 'paid', '2024-05-12');
INSERT INTO order_items (order_id, product_id, quantity) VALUES
  (1, 1, 1), (1, 4, 2), (2, 3, 1), (3, 2, 1), (3, 4, 3), (4, 5, 1), (5, 1, 2), (5, 3, 1);
