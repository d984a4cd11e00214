import Foundation
import SenseiTestSupport

/// A real Mosquitto broker (Debian's `mosquitto`) for one test: a temporary
/// config with one listener on a free loopback port and persistence in its
/// own directory, so a restart keeps the sessions and the queued messages.
final class MosquittoBroker: @unchecked Sendable {
    let port: Int
    let directory: String
    private var pid: pid_t?

    var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Writes the config; `start()` runs it. The port is fixed here so the
    /// same broker can be stopped and started again on it.
    init(directory: String) throws {
        self.directory = directory
        // Mosquitto started as root runs as the user `mosquitto`, which must write its files here.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o777])
        port = try FreePort.find()
        let config = """
            listener \(port) 127.0.0.1
            allow_anonymous true
            persistence true
            persistence_location \(directory)/
            # A persistent session holds everything while its client is away.
            max_queued_messages 0
            log_dest file \(directory)/mosquitto.log
            log_type error
            log_type warning
            log_type notice
            """
        try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
    }

    /// Starts it and waits (at most 10 s) until it accepts connections.
    func start() throws {
        pid = try Self.spawn(["/usr/sbin/mosquitto", "-c", directory + "/mosquitto.conf"])
        let up = poll(seconds: 10, every: .milliseconds(20)) { () -> Bool? in
            if Self.accepts(port: port) { return true }
            return isRunning ? nil : false
        }
        if up == true { return }
        throw BrokerError(description: "mosquitto did not start on port \(port): \(log)")
    }

    /// SIGTERM (it saves its persistence file) or SIGKILL, and waits for it.
    func stop(signal: Int32 = SIGTERM) {
        guard let pid else { return }
        kill(pid, signal)
        waitUntil(seconds: 10, every: .milliseconds(10)) { !isRunning }
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        self.pid = nil
    }

    /// Reaps it if it ended.
    private var isRunning: Bool {
        guard let pid else { return false }
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// posix_spawn with no signal blocked: Mosquitto waits for SIGTERM with the
    /// mask it started with, and a test thread's mask (which `Process` passes
    /// on) blocks it, so the broker never stopped.
    private static func spawn(_ arguments: [String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
        guard rc == 0 else { throw BrokerError(description: "spawning \(arguments[0]): \(String(cString: strerror(rc)))") }
        return pid
    }

    var log: String { (try? String(contentsOfFile: directory + "/mosquitto.log", encoding: .utf8)) ?? "" }

    /// `mosquitto_pub` once: the payload as bytes, from a file, so any bytes go.
    func publish(_ topic: String, _ payload: [UInt8], qos: Int = 1, retain: Bool = false) throws {
        let file = directory + "/payload-" + UUID().uuidString
        try Data(payload).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        var arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-q", "\(qos)", "-f", file]
        if retain { arguments.append("-r") }
        let result = try runTool("mosquitto_pub", arguments, timeout: 10)
        guard result.status == 0 else { throw BrokerError(description: "mosquitto_pub \(topic): \(result.error)") }
    }

    func publish(_ topic: String, _ payload: String, qos: Int = 1, retain: Bool = false) throws {
        try publish(topic, Array(payload.utf8), qos: qos, retain: retain)
    }

    /// `mosquitto_pub -l`: each line of `lines` one message on `topic`, QoS 1,
    /// in one connection; returns once the broker has acknowledged them all.
    func publishLines(_ topic: String, _ lines: [String]) throws {
        let file = directory + "/lines-" + UUID().uuidString
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try runTool("/bin/sh", ["-c", "mosquitto_pub -h 127.0.0.1 -p \(port) -q 1 -t '\(topic)' -l < '\(file)'"],
                                 timeout: 60)
        guard result.status == 0 else { throw BrokerError(description: "mosquitto_pub -l \(topic): \(result.error)") }
    }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// Starts, stops and publishes (`mosquitto_pub`) for async tests, waited for off the
/// cooperative pool (`offThePool`). Same names: in an async function Swift
/// picks these, and asks for `await`.
extension MosquittoBroker {
    func start() async throws {
        try await offThePool { try self.start() }
    }

    func stop(signal: Int32 = SIGTERM) async {
        await offThePool { self.stop(signal: signal) }
    }

    func publish(_ topic: String, _ payload: String, qos: Int = 1, retain: Bool = false) async throws {
        try await offThePool { try self.publish(topic, payload, qos: qos, retain: retain) }
    }

    func publish(_ topic: String, _ payload: [UInt8], qos: Int = 1, retain: Bool = false) async throws {
        try await offThePool { try self.publish(topic, payload, qos: qos, retain: retain) }
    }

    func publishLines(_ topic: String, _ lines: [String]) async throws {
        try await offThePool { try self.publishLines(topic, lines) }
    }
}

struct BrokerError: Error, CustomStringConvertible {
    var description: String
}

/// Runs `body` with a started broker in a temporary directory, stopping it however `body` ends.
func withBroker<T>(_ body: (MosquittoBroker) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { directory in
        let broker = try MosquittoBroker(directory: directory + "/broker")
        try await broker.start()
        return try await withCleanup { try await body(broker) } cleanup: { await broker.stop() }
    }
}
