import ArgumentParser
import Logging
import SenseiServer
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

extension SenseiBenchCommand {
    /// The ceiling: the very `HTTPServer` that sensei-server runs, configured
    /// the same way, with a handler that answers `ok` without routing, auth or
    /// storage. Our figures are read as fractions of what it does in the same run.
    ///
    /// With `--durable-file`, the durable ceiling: each `ok` waits for a group
    /// sync of that file (`GroupSync`), as a durable write's 201 waits for its
    /// commit, so the run shows what the disk and the suspend/resume leave
    /// for single writes on this machine.
    struct Hello: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve `ok` to every request on sensei-server's HTTP layer (the ceiling).")

        // Defaults are sensei-server's, taken from the same configuration type.
        private static let defaults = HTTPServer.Configuration()

        @Option(help: "Address to listen on.")
        var host = "127.0.0.1"

        @Option(help: "Port to listen on (0: any free port).")
        var port = 3001

        @Option(help: "HTTP worker threads, as sensei-server's --threads.")
        var threads = defaults.threads

        @Option(name: .customLong("max-connections"), help: "Connections beyond this are refused.")
        var maxConnections = defaults.connectionLimit

        @Option(help: "Seconds a silent connection is kept open.")
        var timeout = defaults.connectionTimeout

        @Option(name: .customLong("max-body-bytes"), help: "Largest request body accepted (413 above).")
        var maxBodyBytes = defaults.maxBodyBytes

        @Option(name: .customLong("durable-file"),
                help: "Answer only after a group fdatasync of this file, a 4 KiB frame written a request (the durable ceiling).")
        var durableFile: String?

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
            guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
            guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
            guard timeout >= 1 else { throw ValidationError("--timeout must be at least 1 second") }
        }

        func run() throws {
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .warning
                return handler
            }
            let logger = Logger(label: "sensei-bench-hello")

            var configuration = HTTPServer.Configuration()
            configuration.host = host
            configuration.port = UInt16(port)
            configuration.threads = threads
            configuration.connectionLimit = maxConnections
            configuration.connectionTimeout = timeout
            configuration.maxBodyBytes = maxBodyBytes

            let ok = Response(status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")],
                              body: Array("ok".utf8))
            let sync = try durableFile.map { try GroupSync(path: $0) }
            let server = HTTPServer(configuration: configuration, logger: logger) { _, responder in
                guard let sync else { return responder.respond(ok) }
                sync.afterSync { responder.respond(ok) }
            }

            signal(SIGPIPE, SIG_IGN)
            // Stopped as sensei-server is: by its service group, on either signal.
            signal(SIGINT, SIG_IGN)
            signal(SIGTERM, SIG_IGN)
            let http = BackgroundService("http", start: server.start, stop: { server.shutdown(grace: .seconds(2)) })
            let services = ServiceRunner(services: [http], signals: [.sigint, .sigterm], logger: logger)
            services.launch()
            defer { services.shutdown() }
            try http.start()
            print("hello listening on http://\(host):\(server.port) with \(threads) threads")
            fflush(nil)
            services.wait()
        }
    }
}
