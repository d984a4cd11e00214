/// The codec of a packed span of one sensor's readings (`reading_blocks.data`):
/// timestamps as delta-of-delta, values as whole multiples of a power of ten
/// (devices send fixed decimals: 21.37, 1013.2, 0/1) as deltas, and runs of
/// zeros in either as one token. A year of 30-second readings of a real-looking
/// series packs to about a byte a reading (SQLite kept 23 a row).
///
/// Hand-written: no Swift package SwiftPM can resolve here encodes time series,
/// and the format is small enough to own. Decoding gives back every timestamp
/// and the exact bits of every value: a value that is not a decimal of at most
/// `maxScale` places is kept as its 8 bytes (the whole block then is).
///
/// Layout: kind (1 decimal, 2 raw doubles), count, then the timestamps
/// (first as a zigzag varint, then tokens of delta-of-delta), then for kind 1
/// the decimal scale and tokens of the integer deltas (from 0), for kind 2
/// each value's bit pattern, 8 bytes little-endian.
/// A token is a varint: `zigzag(x) << 1` for a non-zero x, `run << 1 | 1`
/// for `run` zeros in a row.
enum ReadingBlock {
    static let maxScale = 6

    enum DecodeError: Error, CustomStringConvertible {
        case corrupt

        var description: String { "a packed block of readings is corrupt" }
    }

    /// `timestamps` strictly increasing, one value each.
    static func encode(timestamps: [Int64], values: [Double]) -> [UInt8] {
        precondition(timestamps.count == values.count, "a timestamp per value")
        var out: [UInt8] = []
        out.reserveCapacity(16 + timestamps.count * 2)
        let scale = decimalScale(of: values)
        out.append(scale == nil ? 2 : 1)
        appendVarint(UInt64(timestamps.count), to: &out)
        guard let first = timestamps.first else { return out }
        appendVarint(zigzag(first), to: &out)
        var tokens = TokenWriter()
        var previous = first
        var previousDelta: Int64 = 0
        for ts in timestamps.dropFirst() {
            let delta = ts &- previous
            tokens.append(delta &- previousDelta, to: &out)
            previous = ts
            previousDelta = delta
        }
        tokens.finish(to: &out)
        if let scale {
            out.append(UInt8(scale))
            let multiplier = powersOfTen[scale]
            var previousValue: Int64 = 0
            for value in values {
                let whole = Int64((value * multiplier).rounded())
                tokens.append(whole &- previousValue, to: &out)
                previousValue = whole
            }
            tokens.finish(to: &out)
        } else {
            for value in values {
                var bits = value.bitPattern
                for _ in 0..<8 {
                    out.append(UInt8(truncatingIfNeeded: bits))
                    bits >>= 8
                }
            }
        }
        return out
    }

    /// The readings of a block, oldest first.
    static func decode(_ bytes: [UInt8]) throws -> (timestamps: [Int64], values: [Double]) {
        try bytes.withUnsafeBufferPointer { try decode($0) }
    }

    static func decode(_ buffer: UnsafeBufferPointer<UInt8>) throws -> (timestamps: [Int64], values: [Double]) {
        do {
            var reader = ByteReader(buffer)
            let kind = try reader.byte()
            guard kind == 1 || kind == 2 else { throw DecodeError.corrupt }
            let count = Int(try reader.varint())
            guard count <= buffer.count * 64 + 1 else { throw DecodeError.corrupt }
            var timestamps: [Int64] = []
            var values: [Double] = []
            guard count > 0 else { return (timestamps, values) }
            timestamps.reserveCapacity(count)
            values.reserveCapacity(count)
            var ts = unzigzag(try reader.varint())
            timestamps.append(ts)
            var delta: Int64 = 0
            var tokens = TokenReader()
            for _ in 1..<count {
                delta &+= try tokens.next(&reader)
                ts &+= delta
                timestamps.append(ts)
            }
            guard tokens.isDrained else { throw DecodeError.corrupt }
            if kind == 1 {
                let scale = Int(try reader.byte())
                guard scale <= maxScale else { throw DecodeError.corrupt }
                let multiplier = powersOfTen[scale]
                var whole: Int64 = 0
                for _ in 0..<count {
                    whole &+= try tokens.next(&reader)
                    values.append(Double(whole) / multiplier)
                }
                guard tokens.isDrained else { throw DecodeError.corrupt }
            } else {
                for _ in 0..<count {
                    var bits: UInt64 = 0
                    for shift in stride(from: 0, to: 64, by: 8) {
                        bits |= UInt64(try reader.byte()) << UInt64(shift)
                    }
                    values.append(Double(bitPattern: bits))
                }
            }
            guard reader.isAtEnd else { throw DecodeError.corrupt }
            return (timestamps, values)
        }
    }

    private static let powersOfTen: [Double] = (0...maxScale).map { scale in
        (0..<scale).reduce(1.0) { product, _ in product * 10 }
    }

    /// The fewest decimal places that give back every value's exact bits, or
    /// nil if more than `maxScale` would be needed (or the wholes leave the
    /// range a Double holds exactly).
    static func decimalScale(of values: [Double]) -> Int? {
        var scale = 0
        for value in values {
            while !isExact(value, scale: scale) {
                scale += 1
                if scale > maxScale { return nil }
            }
        }
        return scale
    }

    private static func isExact(_ value: Double, scale: Int) -> Bool {
        let multiplier = powersOfTen[scale]
        let whole = (value * multiplier).rounded()
        guard whole.magnitude < 9_007_199_254_740_992 else { return false }
        return (Double(Int64(whole)) / multiplier).bitPattern == value.bitPattern
    }

    private static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    private static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    private static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    /// Writes numbers as tokens, holding back a run of zeros until it ends.
    private struct TokenWriter {
        private var zeros: UInt64 = 0

        mutating func append(_ value: Int64, to out: inout [UInt8]) {
            if value == 0 {
                zeros += 1
                return
            }
            finish(to: &out)
            // Deltas beyond ±2^62 (no real clock or reading) still round-trip:
            // zigzag's top bit is kept by a token of its own, the varint of 10 bytes.
            let encoded = zigzag(value)
            if encoded >> 63 == 0 {
                appendVarint(encoded << 1, to: &out)
            } else {
                appendVarint(0, to: &out)
                appendVarint(encoded, to: &out)
            }
        }

        mutating func finish(to out: inout [UInt8]) {
            guard zeros > 0 else { return }
            appendVarint(zeros << 1 | 1, to: &out)
            zeros = 0
        }
    }

    /// Reads tokens back into numbers.
    private struct TokenReader {
        private var zeros: UInt64 = 0

        var isDrained: Bool { zeros == 0 }

        mutating func next(_ reader: inout ByteReader) throws -> Int64 {
            if zeros > 0 {
                zeros -= 1
                return 0
            }
            let token = try reader.varint()
            if token & 1 == 1 {
                guard token >> 1 >= 1 else { throw DecodeError.corrupt }
                zeros = token >> 1 - 1
                return 0
            }
            // Token 0 (zigzag of 0 is never written as a value) escapes a
            // value whose zigzag needs all 64 bits.
            return token == 0 ? unzigzag(try reader.varint()) : unzigzag(token >> 1)
        }
    }

    private struct ByteReader {
        private let buffer: UnsafeBufferPointer<UInt8>
        private var index = 0

        init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

        var isAtEnd: Bool { index == buffer.count }

        mutating func byte() throws -> UInt8 {
            guard index < buffer.count else { throw DecodeError.corrupt }
            defer { index += 1 }
            return buffer[index]
        }

        mutating func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try byte()
                guard shift < 64 else { throw DecodeError.corrupt }
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
    }
}
