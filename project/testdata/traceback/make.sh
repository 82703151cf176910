#!/usr/bin/env bash
# make.sh — makes orders.log: the log of a real Python program (logging,
# with timestamps) that handles 1,200 orders and logs a traceback with
# logger.exception when one fails to parse: a failure deep in the standard
# library's json module, so that each traceback runs to about twenty lines
# before the exception it ends with. Needs python3 (3.11 or later prints
# the ^^^ marks).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/orders.py" <<'EOF'
import json, logging, random
logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO, filename="orders.log", filemode="w")
log = logging.getLogger("orders")
rnd = random.Random(3)
def parse(body):
    return json.loads(body)
def load(order_id, body):
    return parse(body)["items"]
def handle(order_id):
    body = '{"items": [1, 2]}' if rnd.random() > 0.02 else '{"items": [1, 2,]}'
    return load(order_id, body)
for i in range(1200):
    try:
        items = handle(i)
        log.info("order %d: %d items", i, len(items))
    except Exception:
        log.exception("order %d failed", i)
EOF
(cd "$work" && python3 orders.py)
# The paths of the program and of Python vary from machine to machine.
sed -e "s|$work|/srv/orders|g" -e "s|\"[^\"]*/lib/python3|\"/usr/lib/python3|g" "$work/orders.log" >"$here/orders.log"
