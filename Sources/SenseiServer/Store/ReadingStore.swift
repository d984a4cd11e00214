import SenseiModels

/// Readings (rows and packed hours): writing them through the group commit,
/// reading ranges back, and who hears of each commit.
///
/// The write methods are the server's hot path. Callers hold an
/// `any ReadingStore`: one call through its witness table a request, against
/// tens of microseconds of HTTP, JSON and commit (bench/run.sh measures the
/// single POST and batch before and after this seam, docs/storage.md).
protocol ReadingStore: AnyObject, Sendable {
    /// On while the live stream or alerts listen: writes then keep what they stored.
    var tap: ReadingTap { get }
    /// `observer` runs on the writer thread after each commit.
    func observeCommits(_ observer: CommitObserver)

    /// Stores `readings` (dedup by sensor and timestamp; receive time when
    /// none), creating the sensor if `createIfMissing`; `completion` runs once
    /// they are durable, with how many were accepted.
    func insertReadings(_ readings: [ReadingInput], into reference: SensorReference, createIfMissing: Bool,
                        receivedAt: Timestamp, completion: @escaping @Sendable (Result<Int, any Error>) -> Void)
    /// Points of ingest paths (line protocol, MQTT), by series identity.
    func ingest(_ batches: [SeriesBatch], allOrNothing: Bool, receivedAt: Timestamp,
                completion: @escaping @Sendable (Result<SeriesIngestOutcome, any Error>) -> Void)
    func ingest(_ points: [SeriesPoint], allOrNothing: Bool, receivedAt: Timestamp,
                completion: @escaping @Sendable (Result<SeriesIngestOutcome, any Error>) -> Void)

    func readings(of reference: SensorReference, _ query: ReadingQuery) throws -> (Sensor, [Reading])
    /// Every sensor's readings in one pass (`GET /data`), resumable at the cursor returned.
    func readingsOfEverySensor(_ query: BulkQuery,
                               _ visit: (BulkSensor, Int64, Double) throws -> Void) throws -> BulkCursor?
    /// Readings of several sensors in `lo...hi`, `body` given the sensor's index in `sensorIDs`.
    func influxReadings(of sensorIDs: [Int64], from lo: Int64, through hi: Int64, ascending: Bool, limit: Int,
                        _ body: (_ sensor: Int, _ ts: Int64, _ value: Double) throws -> Void) throws
    func influxFirstTime(of sensorIDs: [Int64]) throws -> Int64?
    /// A sensor's usage per calendar interval (`GET /sensors/<id>/usage`), by its kind.
    func usage(of reference: SensorReference, _ query: UsageQuery) throws -> UsageReport

    /// The database names InfluxDB clients wrote to (SHOW DATABASES).
    func recordInfluxDatabase(_ name: String) throws
    func influxDatabases() throws -> [String]
}

extension SenseiStore: ReadingStore {
    func observeCommits(_ observer: CommitObserver) {
        groupCommit.onCommit.withLock { $0.append(observer) }
    }
}
