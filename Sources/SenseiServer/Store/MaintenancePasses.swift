/// The batch loops of a compaction pass and a retention sweep, the same on
/// both stores: sensor by sensor, a transaction a batch, `betweenBatches`
/// after each (false stops the pass there: the server is stopping).
extension CompactionPass {
    /// `batch(sensorID, from)` packs the sensor's next batch of hours from `from`.
    static func run(over sensors: [Int64], betweenBatches: () throws -> Bool,
                    batch: (_ sensorID: Int64, _ from: Int64) throws -> CompactionBatch) throws -> CompactionPass {
        var pass = CompactionPass()
        for sensorID in sensors {
            var next = Int64.min
            while true {
                let done = try batch(sensorID, next)
                next = done.next
                pass.packedReadings += done.readings
                pass.packedHours += done.hours
                pass.batches += 1
                guard try betweenBatches() else { return pass }
                if done.isLast { break }
            }
        }
        return pass
    }
}

extension RetentionSweep {
    /// `batch(sensorID)` deletes the sensor's next batch of expired readings.
    static func run(over sensors: [Int64], betweenBatches: () throws -> Bool,
                    batch: (_ sensorID: Int64) throws -> RetentionBatch) throws -> RetentionSweep {
        var sweep = RetentionSweep()
        for sensorID in sensors {
            while true {
                let done = try batch(sensorID)
                sweep.deleted += done.deleted
                sweep.batches += 1
                sweep.longestBatch = max(sweep.longestBatch, done.held)
                guard try betweenBatches() else { return sweep }
                if done.isLast { break }
            }
        }
        return sweep
    }
}
