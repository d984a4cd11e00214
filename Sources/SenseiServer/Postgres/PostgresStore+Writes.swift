import PostgresNIO
import SenseiModels

/// The readings' write path (`ReadingStore`'s writes): REST, firmware and
/// series ingest, through this node's group commit.
extension PostgresStore {
    func insertReadings(_ readings: [ReadingInput], into reference: SensorReference, createIfMissing: Bool,
                        receivedAt: Timestamp, completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        completion(.failure(PostgresStoreError.notYet("insertReadings")))
    }

    func ingest(_ batches: [SeriesBatch], allOrNothing: Bool, receivedAt: Timestamp,
                completion: @escaping @Sendable (Result<SeriesIngestOutcome, any Error>) -> Void) {
        completion(.failure(PostgresStoreError.notYet("ingest")))
    }

    func ingest(_ points: [SeriesPoint], allOrNothing: Bool, receivedAt: Timestamp,
                completion: @escaping @Sendable (Result<SeriesIngestOutcome, any Error>) -> Void) {
        completion(.failure(PostgresStoreError.notYet("ingest")))
    }
}
