// Sensei example: an ESP32 with a DHT22 posts temperature and humidity.
//
// Every SLEEP_SECONDS the board wakes from deep sleep, reads the DHT22, stamps
// the reading with the time (NTP, kept by the RTC across deep sleep) and
// stores it in a ring buffer in RTC memory, which survives deep sleep. Then it
// joins WiFi and posts everything buffered as one batch per sensor:
//
//   POST /sensors/living_temperature/data
//   Authorization: Bearer <token>
//   Content-Type: application/json
//   {"data":[{"timestamp":1736424000,"value":21.4},{"timestamp":1736424300,"value":21.6}]}
//
// (and the same for living_humidity). Readings leave the buffer only after
// both sensors' batches got 201, so while WiFi or the server is away they
// wait, and go in one batch later. Posting a batch again is harmless: the
// server keeps one reading per sensor and timestamp.
//
// The body format lives in buildBody() below. examples/check.sh compiles that
// function on the host and compares its output with
// examples/fixtures/esp32-dht22.*.json, which a server test posts: change
// them together.
//
// See README.md beside this file for the board, libraries and wiring.

#include <WiFi.h>
#include <WiFiClientSecure.h>
#include <HTTPClient.h>
#include <DHT.h>
#include <time.h>
#include <sys/time.h>
#include "esp_sleep.h"

// ---- configuration ----------------------------------------------------------

static const char *WIFI_SSID = "your-ssid";
static const char *WIFI_PASSWORD = "your-wifi-password";

// The server, without a trailing slash: http://… or https://…
static const char *SENSEI_URL = "http://192.168.1.10:3000";
// A token with write scope:
//   sensei-server token create --name esp32-living --scope write
static const char *SENSEI_TOKEN = "paste-the-token-here";

// Sensor codes ([A-Za-z0-9_-], up to 50): unknown codes are created on first post.
static const char *TEMPERATURE_CODE = "living_temperature";
static const char *HUMIDITY_CODE = "living_humidity";

// For https://: the PEM certificate of the CA that signed the server's
// certificate (for a self-signed certificate, the certificate itself). Left
// empty, https:// is encrypted but the server is NOT authenticated.
static const char *CA_CERT = "";
// static const char *CA_CERT = R"PEM(
// -----BEGIN CERTIFICATE-----
// ...
// -----END CERTIFICATE-----
// )PEM";

static const uint8_t DHT_PIN = 4;              // DHT22 data pin (GPIO4)
static const uint32_t SLEEP_SECONDS = 300;     // one reading every 5 minutes
static const uint32_t WIFI_TIMEOUT_MS = 15000;
static const uint32_t HTTP_TIMEOUT_MS = 10000;
static const char *NTP_SERVER = "pool.ntp.org";
static const uint32_t NTP_RESYNC_BOOTS = 288;  // resync the clock about daily

// ---- the ring buffer in RTC memory (kept across deep sleep, lost on power-off)

struct Sample {
  uint32_t timestamp;  // epoch seconds, UTC
  float temperature;   // °C
  float humidity;      // %
};

static const size_t CAPACITY = 256;  // 12 bytes each: 3 KiB of the 8 KiB RTC slow memory (21 h at 5 min)
static const size_t BATCH_MAX = 64;  // readings per POST (bounded body and RAM)

RTC_DATA_ATTR static Sample samples[CAPACITY];
RTC_DATA_ATTR static uint16_t oldest = 0;  // index of the oldest sample
RTC_DATA_ATTR static uint16_t count = 0;
RTC_DATA_ATTR static uint32_t bootsSinceSync = 0;

static void push(const Sample &sample) {
  if (count == CAPACITY) {  // full: the oldest reading gives way
    oldest = (oldest + 1) % CAPACITY;
    count--;
  }
  samples[(oldest + count) % CAPACITY] = sample;
  count++;
}

static void dropOldest(size_t n) {
  oldest = (oldest + n) % CAPACITY;
  count -= n;
}

static const Sample &at(size_t i) { return samples[(oldest + i) % CAPACITY]; }

// ---- the request body -------------------------------------------------------

// BEGIN sensei-body: examples/check.sh compiles from here to "END sensei-body"
// on the host and compares the output with examples/fixtures/esp32-dht22.*.json.
// Plain C (snprintf) so that it builds anywhere.
//
// Writes {"data":[{"timestamp":T,"value":V},…]} for `n` readings into `out`;
// returns its length, or 0 if it does not fit in `size` bytes.
static size_t buildBody(char *out, size_t size, const uint32_t *timestamps, const float *values, size_t n) {
  size_t length = 0;
  int written = snprintf(out, size, "{\"data\":[");
  if (written < 0 || (size_t)written >= size) return 0;
  length = (size_t)written;
  for (size_t i = 0; i < n; i++) {
    written = snprintf(out + length, size - length, "%s{\"timestamp\":%lu,\"value\":%.1f}",
                       i == 0 ? "" : ",", (unsigned long)timestamps[i], (double)values[i]);
    if (written < 0 || (size_t)written >= size - length) return 0;
    length += (size_t)written;
  }
  written = snprintf(out + length, size - length, "]}");
  if (written < 0 || (size_t)written >= size - length) return 0;
  return length + (size_t)written;
}
// END sensei-body

// ---- time -------------------------------------------------------------------

static bool clockIsSet() { return time(nullptr) > 1704067200; }  // after 2024-01-01

static bool syncClock() {
  configTime(0, 0, NTP_SERVER);  // UTC; the server wants UTC epoch seconds
  for (int i = 0; i < 50 && !clockIsSet(); i++) delay(200);
  return clockIsSet();
}

// ---- network ----------------------------------------------------------------

static bool connectWiFi() {
  WiFi.mode(WIFI_STA);
  WiFi.begin(WIFI_SSID, WIFI_PASSWORD);
  uint32_t start = millis();
  while (WiFi.status() != WL_CONNECTED) {
    if (millis() - start > WIFI_TIMEOUT_MS) return false;
    delay(200);
  }
  return true;
}

// POSTs one body; true on 201 (the readings are committed on the server).
static bool post(const char *code, const char *body, size_t length) {
  String url = String(SENSEI_URL) + "/sensors/" + code + "/data";
  bool https = strncmp(SENSEI_URL, "https://", 8) == 0;
  WiFiClient plain;
  WiFiClientSecure secure;
  if (https) {
    if (CA_CERT[0] != '\0') secure.setCACert(CA_CERT);
    else secure.setInsecure();
  }
  HTTPClient http;
  http.setTimeout(HTTP_TIMEOUT_MS);
  if (!http.begin(https ? (WiFiClient &)secure : plain, url)) return false;
  http.addHeader("Content-Type", "application/json");
  http.addHeader("Authorization", String("Bearer ") + SENSEI_TOKEN);
  int status = http.POST((uint8_t *)body, length);
  if (status != 201) {
    Serial.printf("POST %s: %d %s\n", url.c_str(), status,
                  status > 0 ? http.getString().c_str() : http.errorToString(status).c_str());
  }
  http.end();
  return status == 201;
}

// Sends the buffer oldest first, BATCH_MAX readings at a time, both sensors
// per chunk; a chunk leaves the buffer only once both were accepted.
static void flush() {
  // An item is at most 40 bytes: ,{"timestamp":4294967295,"value":-40.0}
  static char body[BATCH_MAX * 48 + 16];
  uint32_t timestamps[BATCH_MAX];
  float temperatures[BATCH_MAX], humidities[BATCH_MAX];
  while (count > 0) {
    size_t n = count < BATCH_MAX ? count : BATCH_MAX;
    for (size_t i = 0; i < n; i++) {
      timestamps[i] = at(i).timestamp;
      temperatures[i] = at(i).temperature;
      humidities[i] = at(i).humidity;
    }
    size_t length = buildBody(body, sizeof body, timestamps, temperatures, n);
    if (length == 0 || !post(TEMPERATURE_CODE, body, length)) return;
    length = buildBody(body, sizeof body, timestamps, humidities, n);
    if (length == 0 || !post(HUMIDITY_CODE, body, length)) return;
    dropOldest(n);
    Serial.printf("sent %u readings, %u left\n", (unsigned)n, (unsigned)count);
  }
}

// ---- one wake-up ------------------------------------------------------------

static void sleepNow() {
  WiFi.disconnect(true);
  WiFi.mode(WIFI_OFF);
  esp_sleep_enable_timer_wakeup((uint64_t)SLEEP_SECONDS * 1000000ULL);
  esp_deep_sleep_start();
}

void setup() {
  Serial.begin(115200);
  uint32_t wokeAt = millis();

  DHT dht(DHT_PIN, DHT22);
  dht.begin();
  delay(2000);  // the DHT22 needs ~2 s after power-up
  float temperature = dht.readTemperature();
  float humidity = dht.readHumidity();
  // The DHT22's range; NaN (no answer) fails these tests too.
  bool readingOk = temperature >= -40 && temperature <= 80 && humidity >= 0 && humidity <= 100;
  time_t readAt = time(nullptr);
  uint32_t readAtMillis = millis();
  if (!readingOk) Serial.println("DHT22: no reading (check the wiring)");

  bool online = connectWiFi();
  bootsSinceSync++;
  if (online && (!clockIsSet() || bootsSinceSync >= NTP_RESYNC_BOOTS)) {
    if (syncClock()) bootsSinceSync = 0;
  }
  if (readingOk) {
    if (readAt <= 1704067200 && clockIsSet()) {
      // The clock was set only now: date the reading back by the time since.
      readAt = time(nullptr) - (time_t)((millis() - readAtMillis) / 1000);
    }
    if (readAt > 1704067200) {
      push(Sample{(uint32_t)readAt, temperature, humidity});
    } else {
      Serial.println("no clock yet (no NTP since power-up): reading dropped");
    }
  }
  if (online) flush();
  Serial.printf("%u readings buffered; awake %lu ms\n", (unsigned)count, (unsigned long)(millis() - wokeAt));
  sleepNow();
}

void loop() {}  // never reached: setup() ends in deep sleep
