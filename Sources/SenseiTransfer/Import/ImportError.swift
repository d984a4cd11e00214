/// Why a file could not be imported at all (a bad line is not one of these:
/// it is reported and the rest goes on).
enum ImportError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(String, String)
    case cannotRead(String, String)
    case truncatedGzip(String, afterBytes: Int64)
    case corruptGzip(String, String)
    case unknownFormat(String)
    case notHomeAssistant(String, String)
    case needsSensor(String)

    var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "\(path): cannot open: \(reason)"
        case .cannotRead(let path, let reason): "\(path): cannot read: \(reason)"
        case .truncatedGzip(let path, let bytes):
            "\(path): the gzip data ends early (truncated after \(bytes) bytes); nothing after that point was read"
        case .corruptGzip(let path, let reason): "\(path): not valid gzip data: \(reason)"
        case .unknownFormat(let path):
            "\(path): cannot tell the format (line protocol, CSV or a Home Assistant database); pass --format"
        case .notHomeAssistant(let path, let reason): "\(path): not a Home Assistant recorder database: \(reason)"
        case .needsSensor(let path):
            "\(path): a timestamp,value CSV names no sensor; pass --sensor CODE"
        }
    }
}
