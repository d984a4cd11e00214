import Foundation
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

/// What tests ask of the store, through its seams, so that they run on either
/// backend (SQLite or PostgreSQL).
extension TestServer {
    /// A compaction pass, as the server's compactor runs it.
    func compact(now: Timestamp) throws -> CompactionPass {
        try application.storage.runCompactionPass(now: now, betweenBatches: { true })
    }

    /// Stores readings through the write path (a fast loader); returns how
    /// many were accepted once they are committed.
    @discardableResult
    func insertReadings(_ readings: [ReadingInput], into reference: SensorReference,
                        createIfMissing: Bool) throws -> Int {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<Int, any Error>?
        application.storage.insertReadings(readings, into: reference, createIfMissing: createIfMissing,
                                           receivedAt: .now()) { result in
            outcome = result
            done.signal()
        }
        done.wait()
        return try outcome!.get()
    }
}
