/// One batch of a compaction pass: one sensor's oldest hours, packed in one
/// write transaction.
struct CompactionBatch: Sendable {
    var readings = 0
    var hours = 0
    /// No hour old enough is left unpacked.
    var isLast = false
    /// Where the sensor's next batch looks for an hour: past any hour left
    /// as rows for holding too many readings.
    var next = Int64.min

    /// Packs hours from `next` on, oldest first, until about `budget`
    /// readings are packed; the same loop for both backends. `oldest(from)`
    /// is the time of the oldest reading still a row at or after `from`
    /// (nil: none is left to pack). `pack(hour)` packs that hour and says
    /// how many readings it held; nil for an hour of more than
    /// `maxHourReadings`, which stays rows and counts as that many.
    mutating func packHours(budget: Int, maxHourReadings: Int,
                            oldest: (_ from: Int64) throws -> Int64?,
                            pack: (_ hour: Int64) throws -> Int?) rethrows {
        var passedOver = 0
        while readings + passedOver < budget {
            guard let ts = try oldest(next) else {
                isLast = true
                return
            }
            let hour = PackedHours.start(of: ts)
            guard let packed = try pack(hour) else {
                next = hour + PackedHours.width
                passedOver += maxHourReadings
                continue
            }
            readings += packed
            hours += 1
        }
    }
}
