/// Sensor codes: `[A-Za-z0-9_-]{1,50}`, unique per server.
public enum SensorCode {
    public static let maximumLength = 50

    public static func isValid(_ code: String) -> Bool {
        let bytes = code.utf8
        return (1...maximumLength).contains(bytes.count) && bytes.allSatisfy(isAllowed)
    }

    /// Why `code` is not a valid sensor code, or nil when it is.
    public static func problem(with code: String) -> String? {
        if code.isEmpty { return "sensor code is empty" }
        if code.utf8.count > maximumLength {
            return "sensor code is longer than \(maximumLength) characters"
        }
        if !code.utf8.allSatisfy(isAllowed) {
            return "sensor code '\(code)' may only hold letters, digits, '_' and '-'"
        }
        return nil
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// A readable default name for a sensor created from its code:
    /// `temperature_ext` → `Temperature ext`.
    public static func defaultName(for code: String) -> String {
        let spaced = code.replacingUnderscoresAndDashes()
        return spaced.prefix(1).uppercased() + spaced.dropFirst()
    }
}

/// How a path names a sensor: all digits is the id, anything else the code.
public enum SensorReference: Sendable, Hashable, CustomStringConvertible {
    case id(Int64)
    case code(String)

    public init(pathSegment: String) {
        if !pathSegment.isEmpty, pathSegment.utf8.allSatisfy({ ($0 &- 48) < 10 }) {
            // More digits than an Int64 holds cannot be an id that exists.
            self = .id(Int64(pathSegment) ?? -1)
        } else {
            self = .code(pathSegment)
        }
    }

    public var description: String {
        switch self {
        case .id(let id): "\(id)"
        case .code(let code): code
        }
    }
}

extension String {
    fileprivate func replacingUnderscoresAndDashes() -> String {
        String(map { $0 == "_" || $0 == "-" ? " " : $0 })
    }
}
