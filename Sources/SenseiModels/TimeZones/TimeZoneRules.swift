/// One time zone's offsets from UTC over all of time, as the IANA tz database
/// gives them: a table of transitions and, past its end, a POSIX rule.
///
/// Read from the system's compiled zone files (`/usr/share/zoneinfo`, TZif,
/// RFC 8536) rather than through Foundation's `TimeZone`, which on Linux uses
/// the ICU copy bundled with the toolchain: the system's copy is the one apt
/// keeps current, and the server and the dashboard then agree on every zone.
public struct TimeZoneRules: Sendable, Hashable {
    /// The zone's name as given (`Europe/Berlin`, `UTC`).
    public let identifier: String
    /// Transition instants, UTC seconds, ascending.
    let transitions: [Int64]
    /// The UTC offset (seconds east) from each transition on.
    let offsetsAfter: [Int32]
    /// The offset before the first transition (RFC 8536: time type 0).
    let initialOffset: Int32
    /// What follows the last transition; nil means its offset holds for ever.
    let rule: PosixTimeZoneRule?

    public static let utc = TimeZoneRules(identifier: "UTC", transitions: [], offsetsAfter: [],
                                          initialOffset: 0, rule: nil)

    init(identifier: String, transitions: [Int64], offsetsAfter: [Int32], initialOffset: Int32,
         rule: PosixTimeZoneRule?) {
        self.identifier = identifier
        self.transitions = transitions
        self.offsetsAfter = offsetsAfter
        self.initialOffset = initialOffset
        self.rule = rule
    }

    /// Seconds east of UTC in effect at `utcSeconds`.
    public func offset(atUTCSeconds utcSeconds: Int64) -> Int32 {
        guard let last = transitions.last else { return rule?.offset(atUTCSeconds: utcSeconds) ?? initialOffset }
        if utcSeconds >= last, let rule { return rule.offset(atUTCSeconds: utcSeconds) }
        // The last transition at or before the instant.
        var low = 0, high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= utcSeconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initialOffset : offsetsAfter[low - 1]
    }

    /// Milliseconds east of UTC in effect at `milliseconds` (UTC).
    public func offsetMilliseconds(at milliseconds: Int64) -> Int64 {
        Int64(offset(atUTCSeconds: milliseconds.floorDivided(by: 1000).0)) * 1000
    }

    /// The wall-clock reading, as milliseconds since a local 1970-01-01 00:00.
    public func local(_ milliseconds: Int64) -> Int64 {
        milliseconds + offsetMilliseconds(at: milliseconds)
    }

    /// The first instant whose wall clock reads `localMilliseconds` or later:
    /// where a local day or month begins. A time the clocks skip (a spring-forward
    /// gap) begins at the jump; a time they show twice, at its first showing.
    public func firstInstant(atOrAfterLocal localMilliseconds: Int64) -> Int64 {
        // Every zone's offset lies within a day of UTC, so the answer lies in this window.
        let window: Int64 = 26 * 3_600_000
        var candidates: Set<Int64> = []
        for probe in [localMilliseconds - window, localMilliseconds, localMilliseconds + window] {
            let instant = localMilliseconds - offsetMilliseconds(at: probe)
            if local(instant) == localMilliseconds { candidates.insert(instant) }
        }
        if let first = candidates.min() { return first }
        // In a gap: the first instant at or past it, by bisection (the wall clock
        // rises through a forward jump).
        var low = localMilliseconds - window, high = localMilliseconds + window
        while low < high {
            let middle = low + (high - low) / 2
            if local(middle) >= localMilliseconds { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The first instant in `(start, end]` with the offset in force at `end`:
    /// where the clocks changed, when they changed once in between.
    func firstChange(after start: Int64, through end: Int64) -> Int64 {
        let target = offsetMilliseconds(at: end)
        var low = start + 1, high = end
        while low < high {
            let middle = low + (high - low) / 2
            if offsetMilliseconds(at: middle) == target { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
