import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The durable ceiling's stand-in for a database: answers wait for a group
/// sync, as sensei-server's do, with none of its other work.
///
/// One thread takes every answer queued so far, writes one 4,120-byte frame
/// for each (a 4 KiB page and the 24-byte header SQLite puts before it in the
/// WAL) into a file it reuses, as SQLite reuses its WAL, `fdatasync`s the
/// file, and only then answers them. So the hello server that uses it does
/// what a durable single write cannot do without: suspend the request, hand
/// it to another thread, sync the disk, resume the connection.
final class GroupSync: Sendable {
    static let frameBytes = 4_120
    /// About SQLite's WAL at its default checkpoint, 1,000 pages.
    static let fileBytes = 1_000 * frameBytes

    private let descriptor: Int32
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private let wake = DispatchSemaphore(value: 0)

    /// Creates (or truncates) `path` and fills it, so that syncs never have
    /// to record a new size.
    init(path: String) throws {
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw GroupSyncError(path: path, errno: errno) }
        let zeros = [UInt8](repeating: 0, count: Self.fileBytes)
        guard pwrite(descriptor, zeros, zeros.count, 0) == zeros.count, fsync(descriptor) == 0 else {
            throw GroupSyncError(path: path, errno: errno)
        }
        let thread = Thread { [self] in run() }
        thread.name = "bench-groupsync"
        thread.start()
    }

    /// Runs `answer` once a sync that began after this call has finished.
    func afterSync(_ answer: @escaping @Sendable () -> Void) {
        queue.withLock { $0.append(answer) }
        wake.signal()
    }

    private func run() {
        let frame = [UInt8](repeating: 0x5e, count: Self.frameBytes)
        var offset = 0
        while true {
            wake.wait()
            let answers = queue.withLock { queue in
                defer { queue.removeAll(keepingCapacity: true) }
                return queue
            }
            guard !answers.isEmpty else { continue }
            for _ in answers {
                if offset + Self.frameBytes > Self.fileBytes { offset = 0 }
                _ = pwrite(descriptor, frame, frame.count, off_t(offset))
                offset += Self.frameBytes
            }
            _ = fdatasync(descriptor)
            for answer in answers { answer() }
        }
    }
}

struct GroupSyncError: Error, CustomStringConvertible {
    let path: String
    let errno: Int32

    var description: String { "cannot prepare \(path): \(String(cString: strerror(errno)))" }
}
