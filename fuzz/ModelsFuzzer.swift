// A libFuzzer target for what SenseiModels reads from the wire: JSON bodies,
// the reading rules and query-parameter times. Built by fuzz/run.sh straight
// from the SenseiModels sources (one module), outside the package, so that
// neither `swift build` nor CI pays for it. A broken invariant traps, and
// libFuzzer keeps the input that did it.

private let now = Timestamp(milliseconds: 1_763_700_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let value = try JSONParser.parse(bytes)
        // What the server writes back must read back the same (infinity has no JSON).
        if isFinite(value) {
            precondition((try? JSONParser.parse(value.serialized)) == value, "round trip: \(value.serialized)")
        }
        if let readings = try? ReadingPayload.parse(value, now: now) {
            for reading in readings {
                precondition(reading.value.isFinite, "accepted \(reading.value)")
                if let time = reading.timestamp {
                    precondition(time.milliseconds <= now.milliseconds + ReadingPayload.maximumClockSkew, "future \(time)")
                    precondition(Timestamp(rfc3339: time.rfc3339) == time, "timestamp round trip: \(time)")
                }
            }
        }
    } catch {
        precondition((0...size).contains(error.offset), "offset \(error.offset) outside \(size) bytes")
    }
    if let text = String(validating: bytes, as: UTF8.self), let time = Timestamp(parameter: text) {
        precondition(Timestamp.range.contains(time.milliseconds), "\(text) → \(time.milliseconds)")
        precondition(Timestamp(rfc3339: time.rfc3339) == time, "\(text) → \(time.rfc3339)")
    }
    return 0
}

private func isFinite(_ value: JSONValue) -> Bool {
    switch value {
    case .number(let number): number.isFinite
    case .array(let items): items.allSatisfy(isFinite)
    case .object(let members): members.values.allSatisfy(isFinite)
    default: true
    }
}
