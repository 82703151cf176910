#!/bin/sh
# Makes output: a real Python log whose records carry tracebacks (lines
# without a timestamp that continue the record before them), written by the
# logging module of the python3 that runs this.
set -e
cd "$(dirname "$0")"
python3 - > output 2>&1 <<'PY'
import json, logging, sys
logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                    format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("worker")
for i in range(2000):
    log.info("job %d started queue=%s", i, ["fast", "slow", "bulk"][i % 3])
    if i == 1000:
        try:
            print("%d per worker" % (i // (i - 1000)), file=sys.stderr)
        except ZeroDivisionError:
            log.exception("job %d could not share its work", i)
    elif i % 7 == 3:
        try:
            json.loads('{"id": %d, "broken": ' % i)
        except ValueError:
            log.exception("job %d could not parse its payload", i)
    else:
        log.info("job %d done in %d ms", i, (i * 37) % 900)
PY
