import Foundation
import SenseiTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A detached tmux session on a private server socket, running one command.
struct Tmux {
    let socket = "sensei-test-\(UUID().uuidString.prefix(8))"
    let session = "dash"

    init(width: Int, height: Int, command: [String]) throws {
        // After the program, the shell prints its exit status on the restored
        // screen and waits, so the test can read both.
        let script = command.map(Self.quote).joined(separator: " ")
            + "; echo \"exited with status $?\"; sleep 60"
        try run(["new-session", "-d", "-s", session, "-x", "\(width)", "-y", "\(height)", script])
    }

    /// Keys and screens are tmux commands (a child each), waited for off the
    /// cooperative pool (`offThePool`).
    func send(_ keys: String...) async throws {
        let arguments = ["send-keys", "-t", session] + keys
        try await offThePool { [self] in _ = try run(arguments) }
    }

    func capture() async throws -> String {
        try await offThePool { [self] in try run(["capture-pane", "-p", "-t", session]) }
    }

    /// Waits until `condition` holds on a settled screen, for as long as the
    /// screen keeps moving (`ScreenWait`: a minute without anything new on
    /// it is a hang, ten minutes in all the most).
    @discardableResult
    func waitFor(_ condition: (String) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let wait = ScreenWait()
        switch try await wait.wait(capture: capture, until: condition) {
        case .matched(let screen):
            return screen
        case .stalled(let screen):
            Issue.record("screen never matched and showed nothing new for \(wait.stall); last screen:\n\(screen)",
                         sourceLocation: sourceLocation)
        case .ceilingReached(let screen):
            Issue.record("screen kept changing but never matched in \(wait.ceiling); last screen:\n\(screen)",
                         sourceLocation: sourceLocation)
        }
        throw TmuxError.timeout
    }

    /// Waits until the program has exited with status 0 and the terminal is
    /// back to its normal screen.
    func waitForExit(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let screen = try await waitFor({ $0.contains("exited with status") }, sourceLocation: sourceLocation)
        #expect(screen.contains("exited with status 0"), sourceLocation: sourceLocation)
    }

    func kill() {
        _ = try? run(["kill-server"])
    }

    /// Runs tmux with posix_spawn and waitpid, output through a file: the tmux
    /// server that `new-session` forks inherits whatever the client had open,
    /// which kept Foundation's Process (and any pipe) waiting forever.
    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "tmux-\(UUID().uuidString)"
        defer { unlink(outputPath) }
        let argv = ["tmux", "-L", socket] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The test's threads (the pool's, or a test's own) block most signals,
        // and a child inherits that mask: the tmux server and its panes did,
        // so kill-server's SIGHUP never reached the pane's `sleep 60` and each
        // server outlived its test by a minute. Children start unblocked.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        guard posix_spawnp(&pid, "tmux", &actions, &attributes, cArguments, environ) == 0 else {
            throw TmuxError.failed(arguments.first ?? "", "cannot start tmux")
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else { throw TmuxError.failed(arguments.first ?? "", text) }
        return text
    }

    private static func quote(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension Tmux {
    /// The real `sensei` against `server` with the read token, its cache and
    /// config under `scratch`, in a UTF-8 locale: how every end-to-end test
    /// starts the dashboard. `arguments` go after the connection flags.
    static func dashboard(width: Int, height: Int, scratch: Scratch, server: LiveServer,
                          arguments: [String] = []) throws -> Tmux {
        try Tmux(width: width, height: height, command: [
            "env", "XDG_CACHE_HOME=\(scratch.root)/cache", "XDG_CONFIG_HOME=\(scratch.root)/config",
            "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=xterm-256color",
            TestBinaries.path("sensei"), "--url", server.url.absoluteString, "--token", server.readToken,
        ] + arguments)
    }
}

enum TmuxError: Error {
    case timeout
    case failed(String, String)
}
