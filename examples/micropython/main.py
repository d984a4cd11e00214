# Sensei example for MicroPython on an ESP32: a DHT22 posts temperature and
# humidity as two sensors, with device timestamps, from deep sleep.
#
# Each wake-up: read the DHT22, stamp the reading (the RTC keeps UTC across
# deep sleep once ntptime has set it), add it to a ring buffer in RTC memory
# (kept across deep sleep), join WiFi, post everything buffered as one batch
# per sensor, go back to deep sleep. Readings leave the buffer only when both
# sensors' batches were answered 201, so nothing is lost while WiFi or the
# server is away; a batch sent twice is stored once.
#
# The body format is body() below: examples/check.sh imports this file with
# stub hardware modules and compares body()'s output with
# examples/fixtures/micropython.*.json, which a server test posts. Change them
# together. See README.md beside this file.

import time
import struct

import dht
import machine
import network
import ntptime

try:
    import requests  # MicroPython 1.23 and later
except ImportError:
    import urequests as requests

# ---- configuration ----------------------------------------------------------

WIFI_SSID = "your-ssid"
WIFI_PASSWORD = "your-wifi-password"
SENSEI_URL = "http://192.168.1.10:3000"  # or https://…, no trailing slash
SENSEI_TOKEN = "paste-the-token-here"  # write scope: sensei-server token create --name … --scope write
TEMPERATURE_CODE = "bedroom_temperature"
HUMIDITY_CODE = "bedroom_humidity"
DHT_PIN = 4
SLEEP_SECONDS = 300
WIFI_TIMEOUT_MS = 15000
HTTP_TIMEOUT_S = 10
BATCH_MAX = 48  # readings per POST: small bodies for a small heap
NTP_HOST = "pool.ntp.org"
NTP_RESYNC_BOOTS = 288  # about daily at one reading every 5 minutes

# ---- time -------------------------------------------------------------------

# MicroPython's ESP32 port counts seconds from 2000-01-01 (older firmware) or
# 1970-01-01; the server wants Unix epoch seconds.
EPOCH_OFFSET = 946684800 if time.gmtime(0)[0] == 2000 else 0
VALID_AFTER = 1704067200  # 2024-01-01: an earlier clock was never set


def unix_now():
    return int(time.time()) + EPOCH_OFFSET


# ---- the ring buffer in RTC memory (2 KiB, kept across deep sleep) ----------

MAGIC = b"SN"
HEADER = "<2sHH"  # magic, boots since the last NTP sync, count
ITEM = "<IhH"  # epoch seconds, temperature in 0.1 °C, humidity in 0.1 %
CAPACITY = (2048 - struct.calcsize(HEADER)) // struct.calcsize(ITEM)  # 255


def load():
    """(boots since sync, [(timestamp, tenths °C, tenths %)…]) from RTC memory."""
    raw = machine.RTC().memory()
    header = struct.calcsize(HEADER)
    if len(raw) < header or raw[:2] != MAGIC:
        return 0, []  # power-up: empty
    _, boots, count = struct.unpack(HEADER, raw[:header])
    item = struct.calcsize(ITEM)
    samples = [struct.unpack(ITEM, raw[header + i * item:header + (i + 1) * item]) for i in range(count)]
    return boots, samples


def store(boots, samples):
    samples = samples[-CAPACITY:]  # full: the oldest give way
    data = struct.pack(HEADER, MAGIC, boots, len(samples))
    data += b"".join(struct.pack(ITEM, *sample) for sample in samples)
    machine.RTC().memory(data)


# ---- the request body -------------------------------------------------------


def body(timestamps, values):
    """{"data":[{"timestamp":T,"value":V},…]} with one decimal, as the sensor gives.

    examples/check.sh checks this against examples/fixtures/micropython.*.json.
    """
    items = ['{"timestamp":%d,"value":%.1f}' % (t, v) for t, v in zip(timestamps, values)]
    return '{"data":[' + ",".join(items) + "]}"


# ---- network ----------------------------------------------------------------


def connect_wifi():
    station = network.WLAN(network.STA_IF)
    station.active(True)
    if not station.isconnected():
        station.connect(WIFI_SSID, WIFI_PASSWORD)
        start = time.ticks_ms()
        while not station.isconnected():
            if time.ticks_diff(time.ticks_ms(), start) > WIFI_TIMEOUT_MS:
                return False
            time.sleep_ms(200)
    return True


def post(code, payload):
    """POSTs one body; True on 201 (committed on the server)."""
    url = SENSEI_URL + "/sensors/" + code + "/data"
    headers = {"Content-Type": "application/json", "Authorization": "Bearer " + SENSEI_TOKEN}
    try:
        response = requests.post(url, data=payload, headers=headers, timeout=HTTP_TIMEOUT_S)
    except Exception as error:  # OSError, or a TLS error: try again next time
        print("POST", url, "failed:", error)
        return False
    try:
        if response.status_code != 201:
            print("POST", url, response.status_code, response.text)
        return response.status_code == 201
    finally:
        response.close()


def flush(samples):
    """Sends the buffer oldest first; returns what is left unsent."""
    while samples:
        chunk = samples[:BATCH_MAX]
        timestamps = [sample[0] for sample in chunk]
        if not post(TEMPERATURE_CODE, body(timestamps, [sample[1] / 10 for sample in chunk])):
            break
        if not post(HUMIDITY_CODE, body(timestamps, [sample[2] / 10 for sample in chunk])):
            break
        samples = samples[len(chunk):]
        print("sent", len(chunk), "readings,", len(samples), "left")
    return samples


# ---- one wake-up ------------------------------------------------------------


def read_sensor():
    """(°C, %) or None. The DHT22 needs ~2 s after power-up."""
    sensor = dht.DHT22(machine.Pin(DHT_PIN))
    for _ in range(3):
        try:
            sensor.measure()
            temperature, humidity = sensor.temperature(), sensor.humidity()
            if -40 <= temperature <= 80 and 0 <= humidity <= 100:
                return temperature, humidity
        except OSError:
            pass
        time.sleep(2)
    return None


def main():
    boots, samples = load()
    reading = read_sensor()
    read_at, read_ticks = unix_now(), time.ticks_ms()

    online = connect_wifi()
    boots += 1
    if online and (unix_now() < VALID_AFTER or boots >= NTP_RESYNC_BOOTS):
        try:
            ntptime.host = NTP_HOST
            ntptime.settime()  # sets the RTC to UTC
            boots = 0
        except OSError as error:
            print("NTP failed:", error)
    if reading is not None:
        if read_at < VALID_AFTER and unix_now() >= VALID_AFTER:
            # The clock was set only now: date the reading back.
            read_at = unix_now() - time.ticks_diff(time.ticks_ms(), read_ticks) // 1000
        if read_at >= VALID_AFTER:
            samples.append((read_at, round(reading[0] * 10), round(reading[1] * 10)))
        else:
            print("no clock yet (no NTP since power-up): reading dropped")
    else:
        print("DHT22: no reading (check the wiring)")
    if online:
        samples = flush(samples)
    store(boots, samples)
    print(len(samples), "readings buffered")
    machine.deepsleep(SLEEP_SECONDS * 1000)


if __name__ == "__main__":
    main()
