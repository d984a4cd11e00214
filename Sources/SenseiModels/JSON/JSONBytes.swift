#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The byte-level steps every JSON reader here takes: the general parser,
/// the number reader and the posted-readings fast path.
enum JSONBytes {
    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// Moves `position` past JSON whitespace (space, tab, CR, LF).
    static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, _ position: inout Int) {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// Whether `word` stands at `position`. A byte comparison: the generic
    /// `elementsEqual` cost more than the rest of a posted reading.
    static func hasWord(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        return position + count <= bytes.count
            && (count == 0 || memcmp(bytes.baseAddress! + position, word.utf8Start, count) == 0)
    }
}
