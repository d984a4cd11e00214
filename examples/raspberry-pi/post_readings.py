#!/usr/bin/env python3
"""Post a Raspberry Pi's readings to Sensei, keeping them while the server is away.

Each run takes one reading of every sensor below (the CPU temperature and the
1-minute load average), appends them with their timestamps to a local buffer
file, then posts everything buffered as one batch per sensor:

    POST /sensors/pi_cpu_temperature/data
    {"data":[{"timestamp":1736424000,"value":48.312},{"timestamp":1736424060,"value":47.775}]}

Readings leave the buffer only once the server answered 201. If it is
unreachable they stay, and go in the next run's batch; sending a batch twice
is harmless (one reading per sensor and timestamp). Run it from cron or a
systemd timer (README.md). Python 3 standard library only.

Environment:
  SENSEI_URL          the server, e.g. http://sensei.local:3000 (required)
  SENSEI_TOKEN        a token with write scope (required)
  SENSEI_BUFFER       buffer file (default ~/.cache/sensei/pi-readings.jsonl)
  SENSEI_THERMAL_FILE CPU temperature in millidegrees
                      (default /sys/class/thermal/thermal_zone0/temp)
  SENSEI_CA_FILE      CA certificate for an https:// server with a private CA
  SENSEI_PREFIX       prefix of the sensor codes (default pi_)

The body is built by body(); examples/check.sh compares its output with
examples/fixtures/raspberry-pi-py.*.json, which a server test posts: change
them together.
"""

import fcntl
import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request

BATCH_MAX = 1000  # readings per POST; the server takes bodies up to 1 MiB
BUFFER_MAX = 100_000  # past this the oldest readings are dropped
TIMEOUT_S = 15


def cpu_temperature():
    """°C from the kernel's thermal zone (millidegrees), or None."""
    path = os.environ.get("SENSEI_THERMAL_FILE", "/sys/class/thermal/thermal_zone0/temp")
    try:
        with open(path) as file:
            return int(file.read().strip()) / 1000
    except (OSError, ValueError):
        return None


def load_average():
    return os.getloadavg()[0]


# Sensor code (after SENSEI_PREFIX) -> function giving a value or None.
SENSORS = {
    "cpu_temperature": cpu_temperature,
    "load1": load_average,
}


def body(readings):
    """The request body for [(epoch seconds, value), …]."""
    items = [{"timestamp": timestamp, "value": value} for timestamp, value in readings]
    return json.dumps({"data": items}, separators=(",", ":")).encode()


def read_buffer(path):
    """[(code, timestamp, value), …] from the JSON-lines buffer; bad lines are skipped."""
    readings = []
    try:
        with open(path) as file:
            for line in file:
                try:
                    code, timestamp, value = json.loads(line)
                    readings.append((code, timestamp, value))
                except (ValueError, TypeError):
                    continue
    except FileNotFoundError:
        pass
    return readings


def write_buffer(path, readings):
    """Replaces the buffer atomically (a crash leaves the old or the new file)."""
    readings = readings[-BUFFER_MAX:]
    if not readings:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    temporary = path + ".tmp"
    with open(temporary, "w") as file:
        for reading in readings:
            file.write(json.dumps(reading, separators=(",", ":")) + "\n")
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)


class PermanentError(Exception):
    """The server refused the batch for a reason a retry will not fix."""


def post(base_url, token, code, payload, context):
    """POSTs one batch. True on 201, False when worth retrying later."""
    request = urllib.request.Request(
        base_url.rstrip("/") + "/sensors/" + code + "/data", data=payload, method="POST",
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S, context=context) as response:
            return response.status == 201
    except urllib.error.HTTPError as error:
        detail = error.read().decode(errors="replace")
        if error.code in (400, 413, 422):  # this batch will never be accepted
            raise PermanentError("%s: HTTP %d %s" % (code, error.code, detail)) from None
        print("%s: HTTP %d %s" % (code, error.code, detail), file=sys.stderr)
        return False  # 401/403 (fix the token), 5xx, 503 shedding load: keep them
    except (urllib.error.URLError, OSError) as error:
        print("%s: server unreachable (%s)" % (code, getattr(error, "reason", error)), file=sys.stderr)
        return False


def flush(base_url, token, readings, context):
    """Posts the buffered readings, per sensor in batches; returns those left."""
    left = []
    dropped = 0
    codes = sorted({code for code, _, _ in readings})
    for index, code in enumerate(codes):
        mine = [(timestamp, value) for c, timestamp, value in readings if c == code]
        while mine:
            chunk = mine[:BATCH_MAX]
            try:
                sent = post(base_url, token, code, body(chunk), context)
            except PermanentError as error:
                print("dropping %d readings: %s" % (len(chunk), error), file=sys.stderr)
                dropped += len(chunk)
                sent = True
            if not sent:
                break
            mine = mine[len(chunk):]
        left += [(code, timestamp, value) for timestamp, value in mine]
        if mine and index + 1 < len(codes):
            # The server is away: keep the rest without trying each sensor.
            left += [r for r in readings if r[0] in codes[index + 1:]]
            break
    return left, dropped


def main():
    base_url = os.environ.get("SENSEI_URL")
    token = os.environ.get("SENSEI_TOKEN")
    if not base_url or not token:
        print("set SENSEI_URL (e.g. http://sensei.local:3000) and SENSEI_TOKEN (write scope)", file=sys.stderr)
        return 2
    prefix = os.environ.get("SENSEI_PREFIX", "pi_")
    path = os.environ.get("SENSEI_BUFFER") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "sensei", "pi-readings.jsonl")
    ca_file = os.environ.get("SENSEI_CA_FILE")
    context = ssl.create_default_context(cafile=ca_file) if ca_file else None

    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    lock = open(path + ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)  # one run at a time owns the buffer

    now = int(time.time())
    readings = read_buffer(path)
    for name, read in SENSORS.items():
        value = read()
        if value is not None:
            readings.append((prefix + name, now, value))
    write_buffer(path, readings)  # first on disk, then on the wire

    left, dropped = flush(base_url, token, readings, context)
    write_buffer(path, left)
    sent = len(readings) - len(left) - dropped
    print("sent %d readings, %d buffered in %s" % (sent, len(left), path) if left else "sent %d readings" % sent)
    return 1 if dropped else 0


if __name__ == "__main__":
    sys.exit(main())
