import Foundation
import Synchronization

/// An exclusive `flock` on `<data-dir>/sensei.lock`: a running server holds
/// it, and so does `restore` while it swaps the database. So a restore
/// refuses while a server runs, and a server refuses to start on a
/// directory being restored (or already served).
///
/// The kernel drops the lock when the holding process exits, however it
/// exits, so a crashed server never leaves a stale lock behind. The file's
/// text (who holds it) is only for the refusal message; the file itself is
/// never removed, since unlinking a lock file races with its next opener.
final class DataDirectoryLock: Sendable {
    static let fileName = "sensei.lock"

    private let descriptor: Atomic<Int32>

    /// Takes the lock without waiting; throws `.held` when another holds it.
    /// `holder` says who takes it, as the refusal will name it.
    init(directory: String, holder: String) throws {
        let path = directory + "/" + Self.fileName
        // O_CLOEXEC: a child process (curl, openssl) must not inherit the lock.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw DataDirectoryLockError.cannotOpen(path, errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.readHolder(descriptor)
            close(descriptor)
            guard code == EWOULDBLOCK else { throw DataDirectoryLockError.cannotOpen(path, code) }
            throw DataDirectoryLockError.held(directory: directory, holder: holder)
        }
        let text = Array("\(holder), pid \(getpid())\n".utf8)
        // A failed write spoils only the message; the lock is held all the same.
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, text, text.count, 0)
        self.descriptor = Atomic(descriptor)
    }

    /// Drops the lock; later calls do nothing.
    func release() {
        let descriptor = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if descriptor >= 0 { close(descriptor) }
    }

    deinit {
        release()
    }

    private static func readHolder(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 200)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}

enum DataDirectoryLockError: Error, CustomStringConvertible {
    case cannotOpen(String, Int32)
    case held(directory: String, holder: String?)

    var description: String {
        switch self {
        case .cannotOpen(let path, let code):
            "cannot lock \(path): \(String(cString: strerror(code)))"
        case .held(let directory, let holder):
            "\(directory) is in use by \(holder ?? "another process"): stop it first (it holds \(directory)/\(DataDirectoryLock.fileName))"
        }
    }
}
