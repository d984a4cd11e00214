import Foundation

/// The server's data directory: the database and the generated token file.
enum DataDirectory {
    /// Creates the directory (owner-only) if it does not exist.
    static func prepare(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw DataDirectoryError.notADirectory(path) }
            return
        }
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Writes a secret to a file only its owner can read: created 0600 from
    /// the start, never world-readable even for an instant.
    static func writeSecret(_ secret: String, to path: String) throws {
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw DataDirectoryError.cannotWrite(path, errno) }
        defer { close(descriptor) }
        let bytes = Array(secret.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count, fsync(descriptor) == 0 else {
            throw DataDirectoryError.cannotWrite(path, errno)
        }
    }
}

enum DataDirectoryError: Error, CustomStringConvertible {
    case notADirectory(String)
    case cannotWrite(String, Int32)

    var description: String {
        switch self {
        case .notADirectory(let path): "\(path) exists and is not a directory"
        case .cannotWrite(let path, let code): "cannot write \(path): \(String(cString: strerror(code)))"
        }
    }
}
