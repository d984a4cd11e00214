import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// `sensei-bench`: the helpers that bench/run.sh drives wrk with. The ceiling
/// server, data loading and RSS sampling live here; wrk makes the load.
struct SenseiBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensei-bench",
        abstract: "Benchmark helpers for sensei-server (see bench/README.md).",
        subcommands: [Hello.self, LoadYear.self, MakeSensors.self, RSS.self, Report.self, TimeGet.self])
}

/// Where the server under test listens and the token to use there.
struct ServerOptions: ParsableArguments {
    @Option(help: "The server's base URL; loopback only (127.0.0.0/8 or localhost).")
    var url = "http://127.0.0.1:3000"

    @Option(help: "A write or admin token (default: $SENSEI_TOKEN).")
    var token: String?

    func validate() throws {
        _ = try endpoint()
        guard resolvedToken != nil else { throw ValidationError("give --token or set SENSEI_TOKEN") }
    }

    var resolvedToken: String? {
        if let token, !token.isEmpty { return token }
        guard let value = getenv("SENSEI_TOKEN") else { return nil }
        let token = String(cString: value)
        return token.isEmpty ? nil : token
    }

    func endpoint() throws -> LoopbackEndpoint {
        do {
            return try LoopbackEndpoint(url: url)
        } catch {
            throw ValidationError("--url: \(error)")
        }
    }

    func client() throws -> LoopbackClient {
        LoopbackClient(endpoint: try endpoint(), token: resolvedToken ?? "")
    }
}
