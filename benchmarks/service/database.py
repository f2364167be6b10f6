"""A private PostgreSQL server for the service benchmark: a fresh cluster in the results
directory, listening on a free loopback port, started as a child process (killed with the run),
with the orders the service reads. Debian's PostgreSQL (scripts/install-deps.sh installs it).

PostgreSQL refuses to run as root: as root, the cluster belongs to and runs as the `postgres`
user that Debian's package creates; otherwise as the calling user.
"""
import atexit
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile

from processes import ProcessError

USER = "bench"
DATABASE = "orders"
ORDERS = 10_000
LINES_PER_ORDER = 4

SCHEMA = f"""
CREATE TABLE orders (id integer PRIMARY KEY, customer text NOT NULL, status text NOT NULL,
                     created text NOT NULL);
CREATE TABLE order_lines (order_id integer NOT NULL REFERENCES orders, line integer NOT NULL,
                          sku text NOT NULL, quantity integer NOT NULL,
                          unit_price numeric(10, 2) NOT NULL, PRIMARY KEY (order_id, line));
INSERT INTO orders
  SELECT i, 'customer-' || (i % 997), (ARRAY['open', 'paid', 'shipped'])[1 + i % 3],
         to_char(timestamp '2026-01-01' + i * interval '7 minutes', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
  FROM generate_series(1, {ORDERS}) AS i;
INSERT INTO order_lines
  SELECT o, l, 'SKU-' || lpad(((o * 7 + l * 13) % 5000)::text, 5, '0'), 1 + (o + l) % 5,
         ((o * 31 + l * 17) % 20000) / 100.0 + 1
  FROM generate_series(1, {ORDERS}) AS o, generate_series(1, {LINES_PER_ORDER}) AS l;
ANALYZE;
"""


def bin_dir():
    """The newest Debian PostgreSQL server's bin directory."""
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                  key=lambda p: int(p.split("/")[4]))
    if not dirs:
        raise ProcessError("no PostgreSQL server under /usr/lib/postgresql; run "
                        "scripts/install-deps.sh")
    return os.path.dirname(dirs[-1])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Database:
    """start() creates and starts the cluster and loads the orders; jdbc_url() is where the
    service connects; the server is a child in `children` and stops with them."""

    def __init__(self, directory, children):
        self.dir = directory
        self.children = children
        self.bin = bin_dir()
        self.port = free_port()
        self.run_as = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            self.uid, self.gid = pw.pw_uid, pw.pw_gid
            self.run_as = ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}",
                           "--init-groups", "--"]

    def _run(self, argv, what, stdin=None):
        r = subprocess.run(self.run_as + argv, input=stdin, text=True, capture_output=True)
        if r.returncode != 0:
            raise ProcessError(f"{what} failed (exit {r.returncode}): {r.stderr.strip()[-400:]}")
        return r.stdout

    def start(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        cluster = self.dir
        if self.run_as:
            # The postgres user may not reach the output directory (a checkout in a private, 0700
            # directory): the cluster lives in a directory of its own under /var/tmp.
            cluster = tempfile.mkdtemp(prefix="vtctx-bench-pg-", dir="/var/tmp")
            atexit.register(shutil.rmtree, cluster, ignore_errors=True)
        data, sockets = os.path.join(cluster, "data"), os.path.join(cluster, "sockets")
        os.makedirs(sockets)
        if self.run_as:
            for d in (cluster, sockets):
                os.chown(d, self.uid, self.gid)
        self._run([os.path.join(self.bin, "initdb"), "-D", data, "-U", USER, "--auth=trust",
                   "-E", "UTF8", "--locale=C", "--no-sync"], "initdb")
        server = self.children.start(
            "postgres",
            self.run_as + [os.path.join(self.bin, "postgres"), "-D", data, "-p", str(self.port),
                           "-k", sockets, "-c", "listen_addresses=127.0.0.1",
                           "-c", "fsync=off", "-c", "synchronous_commit=off"],
            os.path.join(self.dir, "postgres.log"))
        server.wait_for(lambda l: "ready to accept connections" in str(l), 60,
                        "PostgreSQL to accept connections")
        psql = [os.path.join(self.bin, "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
                USER, "-v", "ON_ERROR_STOP=1", "-q"]
        self._run(psql + ["-d", "postgres", "-c", f"CREATE DATABASE {DATABASE}"], "createdb")
        self._run(psql + ["-d", DATABASE], "loading the orders", stdin=SCHEMA)
        count = self._run(psql + ["-d", DATABASE, "-t", "-A", "-c",
                                  "SELECT count(*) FROM order_lines"], "counting the orders")
        if int(count) != ORDERS * LINES_PER_ORDER:
            raise ProcessError(f"the orders database has {count.strip()} lines, expected "
                            f"{ORDERS * LINES_PER_ORDER}")
        return server

    def jdbc_url(self):
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{DATABASE}"
