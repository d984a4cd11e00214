"""Writes to a real sensei-server through InfluxDB's own Python client libraries
(influxdb for the 1.x API, influxdb-client for 2.x) and reads the result back
through Sensei's REST API and, with the 1.x client, through InfluxQL. Run by scripts/influx-clients-check.sh:
    influx-clients-check.py BASE_URL WRITE_TOKEN ADMIN_TOKEN
Exits non-zero, saying what differed, at the first failed check."""
import json
import sys
import time
import urllib.request

from influxdb import InfluxDBClient
from influxdb.exceptions import InfluxDBClientError
from influxdb_client import InfluxDBClient as InfluxDBClient2, Point, WritePrecision
from influxdb_client.client.write_api import SYNCHRONOUS
from influxdb_client.rest import ApiException

base, write_token, admin_token = sys.argv[1:4]
host, port = base.removeprefix("http://").split(":")
now_ms = int(time.time() * 1000) - 60_000


def check(condition, what):
    if not condition:
        sys.exit(f"influx-clients-check: FAILED: {what}")
    print(f"ok: {what}")


def sensei(path):
    request = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + admin_token})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def readings(code):
    return [(item["timestamp"], item["value"]) for item in sensei(f"/sensors/{code}/data?order=asc&limit=1000")["data"]]


def sensor(code):
    return sensei(f"/sensors/{code}")


# --- 1.x: influxdb 5.3.2, Basic auth with the token as password ---------------
v1 = InfluxDBClient(host=host, port=int(port), username="telegraf", password=write_token, database="home", timeout=30)
check(v1.ping() == "1.8.10", "1.x ping reports a version")
v1.create_database("home")
check({"name": "home"} in v1.get_list_database(), "1.x CREATE DATABASE and SHOW DATABASES")
check(v1.write_points([]) is True, "1.x empty write (Home Assistant's connection test) succeeds")
points = [{"measurement": "climate", "tags": {"room": "kitchen"}, "time": now_ms + i * 1000,
           "fields": {"temperature": 20.5 + i, "humidity": 40 + i, "door_open": i % 2 == 0, "note": "text is skipped"}}
          for i in range(5)]
check(v1.write_points(points, time_precision="ms") is True, "1.x write_points, ms precision")
stored = readings("climate_kitchen_temperature")
check([value for _, value in stored] == [20.5 + i for i in range(5)], "1.x readings stored")
check(stored[0][0] == time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now_ms // 1000)) + (
    f".{now_ms % 1000:03d}Z" if now_ms % 1000 else "Z"), "1.x timestamps kept to the millisecond")
temperature = sensor("climate_kitchen_temperature")
check(temperature["count"] == 5 and temperature["valueType"] == "float", "1.x float field is a float sensor of 5 readings")
check(sensor("climate_kitchen_humidity")["valueType"] == "int", "1.x integer field is an int sensor")
check([value for _, value in readings("climate_kitchen_door_open")] == [1, 0, 1, 0, 1], "1.x booleans stored as 1/0")
check(temperature.get("labels", {}).get("room", "kitchen") == "kitchen", "1.x tags are labels")

gzipped = InfluxDBClient(host=host, port=int(port), username="telegraf", password=write_token, database="home",
                         gzip=True, timeout=30)
check(gzipped.write_points([{"measurement": "power", "tags": {"plug": "desk"}, "fields": {"watts": 12.5},
                             "time": now_ms * 1_000_000}]) is True, "1.x gzip body, nanosecond precision")
check([value for _, value in readings("power_desk_watts")] == [12.5], "1.x gzip reading stored")

try:
    v1.write(["cpu,host=a usage=1 1700000000", "cpu,host=a usage= 1700000001", "cpu,host=a usage=3 1700000002"],
             params={"db": "home", "precision": "s"}, protocol="line")
    check(False, "1.x partial write raises")
except InfluxDBClientError as error:
    check(error.code == 400 and "partial write: unable to parse 'cpu,host=a usage= 1700000001': missing field value"
          in error.content, f"1.x partial write answers 400 naming the bad line ({error.content})")
check([value for _, value in readings("cpu_a_usage")] == [1, 3], "1.x partial write stored exactly the good lines")

# --- 1.x reading back: query(), get_list_measurements(), get_list_database() ----
check({"name": "climate"} in v1.get_list_measurements(), "1.x get_list_measurements (SHOW MEASUREMENTS)")
means = list(v1.query('SELECT mean("temperature"), count("humidity") FROM "climate" WHERE "room" = \'kitchen\'').get_points())
check(len(means) == 1 and means[0]["mean"] == 22.5 and means[0]["count"] == 5, f"1.x query(): mean and count ({means})")
latest = list(v1.query("SELECT temperature, humidity FROM climate ORDER BY time DESC LIMIT 2", epoch="ms").get_points())
check([(p["time"], p["temperature"], p["humidity"]) for p in latest] == [(now_ms + 4000, 24.5, 44), (now_ms + 3000, 23.5, 43)],
      f"1.x query(): raw rows, newest first, epoch=ms ({latest})")
by_room = v1.query('SELECT max("temperature") FROM "climate" GROUP BY "room"')
check([p["max"] for p in by_room.get_points(tags={"room": "kitchen"})] == [24.5], "1.x query(): GROUP BY a tag")
try:
    v1.query("SELEC temperature FROM climate")
    check(False, "1.x query() with a parse error raises")
except InfluxDBClientError as error:
    check(error.code == 400 and "error parsing query: found SELEC" in error.content, "1.x query() parse error is a 400")

# --- 2.x: influxdb-client 1.50.0, Authorization: Token -------------------------
v2 = InfluxDBClient2(url=base, token=write_token, org="home", timeout=30_000)
check(v2.ping() is True, "2.x ping")
write = v2.write_api(write_options=SYNCHRONOUS)
write.write(bucket="lab", record=[Point("env").tag("sensor", "porch").field("lux", 310.0).time(now_ms, WritePrecision.MS),
                                  Point("env").tag("sensor", "porch").field("lux", 320.0).time(now_ms + 1, WritePrecision.MS)],
            write_precision=WritePrecision.MS)
check([value for _, value in readings("env_porch_lux")] == [310, 320], "2.x write_api, ms precision")
write.write(bucket="lab", record="env,sensor=porch lux=330 " + str((now_ms + 2) * 1000), write_precision=WritePrecision.US)
check([value for _, value in readings("env_porch_lux")] == [310, 320, 330], "2.x microsecond precision")
try:
    write.write(bucket="lab", record=b"")
    check(False, "2.x empty write raises")
except ApiException as error:
    check(error.status == 400 and json.loads(error.body) == {"code": "invalid", "message": "writing requires points"},
          "2.x empty write (Home Assistant's connection test) answers 400 invalid")
try:
    write.write(bucket="lab", record="env,sensor=porch lux=340\nenv,sensor=porch lux=oops")
    check(False, "2.x bad line raises")
except ApiException as error:
    body = json.loads(error.body)
    check(error.status == 400 and body["code"] == "invalid" and "unable to parse 'env,sensor=porch lux=oops'" in body["message"],
          "2.x bad line answers 400 invalid")
check(len(readings("env_porch_lux")) == 3, "2.x bad request stored nothing")
v2.close()
check({"name": "lab"} in v1.get_list_database(), "1.x get_list_database lists the bucket 2.x wrote to")
print("influx-clients-check: the InfluxDB client libraries write to and read from Sensei")
