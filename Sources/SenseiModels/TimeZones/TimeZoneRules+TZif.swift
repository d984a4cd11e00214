/// Reading a compiled zone file (TZif, RFC 8536), versions 2 and later: the
/// 64-bit block and the footer's POSIX rule. Version 1 files (32-bit only,
/// no footer) are read from their one block.
extension TimeZoneRules {
    public init(identifier: String, tzif bytes: [UInt8]) throws(TimeZoneError) {
        var reader = TZifReader(bytes: bytes)
        let v1 = try reader.header()
        guard v1.version >= 2 else {
            let block = try reader.block(v1, timeSize: 4)
            self.init(identifier: identifier, block: block, rule: nil)
            return
        }
        try reader.skip(v1.dataSize(timeSize: 4))
        let v2 = try reader.header()
        let block = try reader.block(v2, timeSize: 8)
        let footer = reader.footer()
        let rule: PosixTimeZoneRule?
        if let footer, !footer.isEmpty {
            guard let parsed = PosixTimeZoneRule(footer) else {
                throw TimeZoneError("\(identifier): cannot read its rule \"\(footer)\"")
            }
            rule = parsed
        } else {
            rule = nil
        }
        self.init(identifier: identifier, block: block, rule: rule)
    }

    private init(identifier: String, block: TZifReader.Block, rule: PosixTimeZoneRule?) {
        self.init(identifier: identifier, transitions: block.transitions,
                  offsetsAfter: block.typeIndices.map { block.offsets[Int($0)] },
                  initialOffset: block.offsets.first ?? 0, rule: rule)
    }
}

/// The zone could not be found or read.
public struct TimeZoneError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

private struct TZifReader {
    struct Header {
        var version: Int
        var isUTCCount, isStandardCount, leapCount, transitionCount, typeCount, characterCount: Int

        func dataSize(timeSize: Int) -> Int {
            transitionCount * (timeSize + 1) + typeCount * 6 + characterCount
                + leapCount * (timeSize + 4) + isStandardCount + isUTCCount
        }
    }

    struct Block {
        var transitions: [Int64]
        var typeIndices: [UInt8]
        var offsets: [Int32]
    }

    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func header() throws(TimeZoneError) -> Header {
        guard bytes.count >= position + 44, bytes[position..<position + 4].elementsEqual("TZif".utf8) else {
            throw TimeZoneError("not a compiled zone file (TZif)")
        }
        let versionByte = bytes[position + 4]
        let version = versionByte == 0 ? 1 : Int(versionByte) - Int(UInt8(ascii: "0"))
        position += 20
        var counts: [Int] = []
        for _ in 0..<6 { counts.append(Int(try integer(size: 4))) }
        return Header(version: version, isUTCCount: counts[0], isStandardCount: counts[1], leapCount: counts[2],
                      transitionCount: counts[3], typeCount: counts[4], characterCount: counts[5])
    }

    mutating func block(_ header: Header, timeSize: Int) throws(TimeZoneError) -> Block {
        guard header.typeCount > 0, bytes.count >= position + header.dataSize(timeSize: timeSize) else {
            throw TimeZoneError("a truncated zone file")
        }
        var transitions: [Int64] = []
        for _ in 0..<header.transitionCount { transitions.append(try integer(size: timeSize)) }
        let typeIndices = Array(bytes[position..<position + header.transitionCount])
        position += header.transitionCount
        var offsets: [Int32] = []
        for _ in 0..<header.typeCount {
            offsets.append(Int32(truncatingIfNeeded: try integer(size: 4)))
            position += 2  // isdst, abbreviation index: not needed for offsets
        }
        guard typeIndices.allSatisfy({ Int($0) < header.typeCount }) else {
            throw TimeZoneError("a zone file with a bad type index")
        }
        position += header.characterCount + header.leapCount * (timeSize + 4)
            + header.isStandardCount + header.isUTCCount
        return Block(transitions: transitions, typeIndices: typeIndices, offsets: offsets)
    }

    mutating func skip(_ count: Int) throws(TimeZoneError) {
        guard bytes.count >= position + count else { throw TimeZoneError("a truncated zone file") }
        position += count
    }

    /// The footer's rule between two newlines, if present.
    func footer() -> String? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\n"),
              let end = bytes[(position + 1)...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
    }

    /// A big-endian signed integer of 4 or 8 bytes.
    private mutating func integer(size: Int) throws(TimeZoneError) -> Int64 {
        guard bytes.count >= position + size else { throw TimeZoneError("a truncated zone file") }
        var value: UInt64 = 0
        for byte in bytes[position..<position + size] { value = value << 8 | UInt64(byte) }
        position += size
        return size == 4 ? Int64(Int32(truncatingIfNeeded: value)) : Int64(bitPattern: value)
    }
}
