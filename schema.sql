-- Sensei server schema, version 10.
-- The server applies this file, byte for byte, to a new database. Times are
-- INTEGER milliseconds since the Unix epoch, UTC.

-- Pages freed by compaction, retention and deletes go back to the file system
-- (`PRAGMA incremental_vacuum` after each compaction pass), a few at a time
-- instead of a full VACUUM that rewrites the whole file. Version 4; a database
-- made before is converted once, by a VACUUM after its first compaction.
PRAGMA auto_vacuum = INCREMENTAL;

-- AUTOINCREMENT: a deleted sensor's id is never given to another, so a
-- dashboard's cache keyed by id cannot mix two sensors up.
CREATE TABLE sensors (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    code          TEXT    NOT NULL UNIQUE
                          CHECK (length(code) BETWEEN 1 AND 50
                                 AND code NOT GLOB '*[^A-Za-z0-9_-]*'),
    name          TEXT    NOT NULL,
    units         TEXT    NOT NULL DEFAULT '',
    value_type    TEXT    NOT NULL DEFAULT 'float'
                          CHECK (value_type IN ('float', 'int', 'bool')),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    -- Kept up to date by the store on every write, so that listing sensors
    -- never scans their readings.
    reading_count INTEGER NOT NULL DEFAULT 0,
    latest_ts     INTEGER,
    latest_value  REAL,
    -- Readings older than this many days are deleted by the server's
    -- retention sweep; NULL keeps them forever. Added in version 2, last so
    -- that a migrated table has the same columns in the same order.
    retention_days INTEGER CHECK (retention_days > 0),
    -- The rollups hold exactly this sensor's readings before this instant (a
    -- minute's first millisecond); NULL: none yet. Later readings are folded
    -- in a minute or two after they arrive, once their minute is over, so a
    -- write adds one row instead of three. Added in version 3.
    rollups_until  INTEGER,
    -- 1 while the name (units) is the one an ingest path gave (line protocol,
    -- MQTT): later metadata from that path may replace it. A name (units) set
    -- through the API is 0 and stays. Added in version 5.
    name_from_ingest  INTEGER NOT NULL DEFAULT 0 CHECK (name_from_ingest IN (0, 1)),
    units_from_ingest INTEGER NOT NULL DEFAULT 0 CHECK (units_from_ingest IN (0, 1)),
    -- How its usage adds up: a `gauge` (a level, W) by its time integral, a
    -- `counter` (a running total, kWh) by how much it rose. kind_from_ingest
    -- as name_from_ingest: 1 while the kind is an ingest path's (Home
    -- Assistant's state_class, a preset's energy total), which that path's
    -- later word may change; 0 once set through the API. Added in version 8.
    kind              TEXT    NOT NULL DEFAULT 'gauge' CHECK (kind IN ('gauge', 'counter')),
    kind_from_ingest  INTEGER NOT NULL DEFAULT 0 CHECK (kind_from_ingest IN (0, 1))
);

-- Clustered on (sensor, time): one sensor's range is one contiguous read.
CREATE TABLE readings (
    sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
    ts        INTEGER NOT NULL,
    value     REAL    NOT NULL,
    PRIMARY KEY (sensor_id, ts)
) WITHOUT ROWID;

-- Readings more than a day old, packed: one row per sensor and UTC hour
-- (`start`, its first millisecond) holding all of that hour's readings,
-- encoded by `ReadingBlock` (delta-of-delta timestamps, decimal values): about
-- a byte a reading where a `readings` row takes 23. A sensor's hour is wholly
-- here or wholly in `readings`, never both; a packed hour has no minute
-- rollups (a query computes them from the block), its hour rollup stays, and
-- it lies before the sensor's `rollups_until`. A write into a packed hour
-- unpacks it first. Added in version 4.
--
-- The rest is the hour's usage summary (`UsageSummary`), computed when the
-- hour is packed, so that `GET /sensors/<id>/usage` over a year reads 8,760
-- of these instead of decoding a million readings (docs/storage.md): its
-- first and last reading; `integral`, the trapezoids between its consecutive
-- readings in value·hours with no gap left out; `longest_gap`, the longest
-- time between two of them, so a query knows when its `maxGap` would have
-- left some out (it decodes that hour); and `increase`, its rises as a
-- counter's, a drop counting from 0. Pieces between hours are not in any
-- hour: the query adds them from one hour's last reading and the next's
-- first. NULL: never filled (a reader decodes the block). Added in version 9,
-- which filled them for the blocks already packed.
CREATE TABLE reading_blocks (
    sensor_id   INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
    start       INTEGER NOT NULL,
    count       INTEGER NOT NULL,
    data        BLOB    NOT NULL,
    first_ts    INTEGER,
    first_value REAL,
    last_ts     INTEGER,
    last_value  REAL,
    integral    REAL,
    longest_gap INTEGER,
    increase    REAL,
    PRIMARY KEY (sensor_id, start)
);

-- Rollups: count, sum, min and max of a sensor's readings per minute and per
-- hour, so that a chart of a long range reads hours instead of readings. They
-- cover the readings before the sensor's `rollups_until`; the store adds the
-- few after it from the readings when it answers. `start` is the first millisecond of
-- the minute (hour), a multiple of 60,000 (3,600,000).
CREATE TABLE rollups_minute (
    sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
    start     INTEGER NOT NULL,
    count     INTEGER NOT NULL,
    sum       REAL    NOT NULL,
    min       REAL    NOT NULL,
    max       REAL    NOT NULL,
    PRIMARY KEY (sensor_id, start)
) WITHOUT ROWID;

CREATE TABLE rollups_hour (
    sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
    start     INTEGER NOT NULL,
    count     INTEGER NOT NULL,
    sum       REAL    NOT NULL,
    min       REAL    NOT NULL,
    max       REAL    NOT NULL,
    PRIMARY KEY (sensor_id, start)
) WITHOUT ROWID;

-- Labels, one row a pair, so that listing sensors by label is an index
-- lookup. Added in version 5.
CREATE TABLE sensor_labels (
    sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
    key       TEXT    NOT NULL,
    value     TEXT    NOT NULL,
    PRIMARY KEY (sensor_id, key)
) WITHOUT ROWID;
CREATE INDEX sensor_labels_by_pair ON sensor_labels (key, value);

-- What an ingest path (line protocol, MQTT) calls a series, mapped to the
-- sensor it made, so that renaming or re-coding the sensor never splits the
-- series; deleting the sensor forgets it. `identity` is a JSON array: the
-- source, then the parts that tell the source's series apart. Added in version 5.
CREATE TABLE series (
    identity  TEXT    NOT NULL PRIMARY KEY,
    sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX series_by_sensor ON series (sensor_id);

-- Bearer tokens, stored as SHA-256 digests: a stolen database holds no token.
CREATE TABLE tokens (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL UNIQUE,
    digest       BLOB    NOT NULL UNIQUE,
    scope        TEXT    NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER
);

-- Alert rules (version 6). A rule watches one sensor; its state (ok,
-- pending, firing), when it entered it and the reading that moved it are
-- kept here so that a restart neither forgets a firing alert nor fires it
-- again. `notify` is a JSON array of URLs. `judged_ts`: the newest reading
-- judged (older ones arriving later do not move the state back);
-- `notified_at`: the last notification, for `repeat_seconds`. A
-- `usage_above` rule (version 10) has its calendar: `interval` (hour, day,
-- week, month) and `tz` (an IANA zone; NULL is UTC); NULL for the others.
CREATE TABLE alert_rules (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    name           TEXT    NOT NULL,
    sensor_id      INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
    condition      TEXT    NOT NULL CHECK (condition IN ('above', 'below', 'silent', 'usage_above')),
    threshold      REAL,
    for_seconds    INTEGER NOT NULL DEFAULT 0 CHECK (for_seconds >= 0),
    hysteresis     REAL    NOT NULL DEFAULT 0 CHECK (hysteresis >= 0),
    repeat_seconds INTEGER CHECK (repeat_seconds > 0),
    notify         TEXT    NOT NULL,
    state          TEXT    NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'pending', 'firing')),
    since          INTEGER NOT NULL,
    value          REAL,
    judged_ts      INTEGER,
    notified_at    INTEGER,
    created_at     INTEGER NOT NULL,
    interval       TEXT    CHECK (interval IN ('hour', 'day', 'week', 'month')),
    tz             TEXT
);

CREATE INDEX alert_rules_by_sensor ON alert_rules (sensor_id);

-- Notifications not yet delivered: written in the transaction that changes
-- a rule's state, deleted once the receiver took them, so none is lost to a
-- restart or a crash. `payload` is the webhook's JSON body (an ntfy target's
-- plain-text form is made from it); `failed_at` is set once the retries are
-- spent (kept for a person to see, never sent again).
CREATE TABLE alert_outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    rule_id         INTEGER NOT NULL,
    url             TEXT    NOT NULL,
    payload         TEXT    NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error      TEXT,
    failed_at       INTEGER,
    created_at      INTEGER NOT NULL
);

-- The database names InfluxDB clients used: given to CREATE DATABASE or
-- written to with `db` (/write) or `bucket` (/api/v2/write). Every name
-- reads and writes the one store; SHOW DATABASES lists them, because Home
-- Assistant creates no sensor unless its database is listed. Version 7.
CREATE TABLE influx_databases (
    name TEXT NOT NULL PRIMARY KEY
) WITHOUT ROWID;

PRAGMA user_version = 10;
