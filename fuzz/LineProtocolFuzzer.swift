// A libFuzzer target for the line-protocol parser, built by fuzz/line-protocol.sh
// from its two source files alone (they import nothing). A broken invariant
// traps, and libFuzzer keeps the input that did it.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = UnsafeBufferPointer(start: data, count: size)
    for precision in [LinePrecision.nanoseconds, .hours] {
        var parser = LineProtocolParser(precision: precision)
        var previousEnd = 0
        parser.parse(body, accept: { line in
            precondition(!line.fields.isEmpty, "a line without fields")
            precondition(line.line.start >= previousEnd && line.line.end <= size, "line span \(line.line)")
            precondition(line.measurement.count > 0 && line.key.end <= line.line.end, "key span")
            for tag in line.tags { precondition(!tag.key.isEmpty && !tag.value.isEmpty, "empty tag") }
            for field in line.fields {
                precondition(!field.key.isEmpty && field.text.end <= line.line.end, "field span")
                if case .float(let value) = field.value { precondition(value.isFinite, "float \(value)") }
                _ = field.key.text(in: body, .tag)
                if field.value == .string { _ = field.text.text(in: body, .string) }
            }
            _ = line.measurement.text(in: body, .measurement)
            previousEnd = line.line.end
        }, refuse: { error in
            precondition(error.description.hasPrefix("unable to parse '"), "message \(error)")
        })
    }
    return 0
}
