import ArgumentParser
import CSenseiHTTP
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// `sensei-server serve`: runs the HTTP server until SIGINT or SIGTERM.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the HTTP API (the default).")

    @OptionGroup var data: DataDirectoryOptions

    @Option(help: "Address to listen on.")
    var host = "0.0.0.0"

    @Option(help: "Port to listen on.")
    var port = 3000

    @Option(help: "HTTP worker threads.")
    var threads = 8

    @Option(name: .customLong("max-connections"), help: "Connections beyond this wait for a free one (at most --timeout).")
    var maxConnections = 512

    @Option(help: "Seconds a connection may stay silent, and a request may take to arrive whole.")
    var timeout = 30

    @Option(name: .customLong("max-body-bytes"), help: "Largest request body accepted (413 above).")
    var maxBodyBytes = 1 << 20

    @Option(name: .customLong("max-streams"), help: "Live streams (GET /stream) open at once; more get 503.")
    var maxStreams = 32

    @Option(name: .customLong("stream-heartbeat"), help: "Seconds between heartbeat comments on a live stream.")
    var streamHeartbeat = 15

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(name: .customLong("node-id"),
            help: "This server's name among several on one PostgreSQL database (default: host name and port).")
    var nodeID: String?

    @Option(name: .customLong("max-sensors"),
            help: "Most sensors the server holds: a write that would create more is refused (REST 403, ingest per protocol).")
    var maxSensors = SenseiStore.defaultMaxSensors

    @Option(name: .customLong("tls-cert"), help: "PEM certificate (chain) to serve HTTPS with; needs --tls-key.")
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "The certificate's PEM private key, unencrypted (keep it mode 0600).")
    var tlsKey: String?

    @Option(name: .customLong("compaction-interval"),
            help: "Seconds between passes that pack readings more than a day old into compressed blocks.")
    var compactionInterval: Double = 30

    @Option(name: .customLong("mqtt"),
            help: "MQTT broker to subscribe to: mqtt://[user:pass@]host[:port] or mqtts://…; or set SENSEI_MQTT_URL, which keeps a password out of ps.")
    var mqttURL: String?

    @Option(name: .customLong("mqtt-ca"), help: "PEM CA certificate for an mqtts:// broker (default: the system's CAs).")
    var mqttCA: String?

    @Option(name: .customLong("mqtt-preset"),
            help: "Subscribe to an ecosystem's topics (repeatable): esphome, tasmota, zigbee2mqtt, shelly, homeassistant.")
    var mqttPresets: [String] = []

    @Option(name: .customLong("mqtt-topic"),
            help: "Subscribe to a topic filter whose payloads are numbers, ON/OFF/true/false or JSON objects (repeatable).")
    var mqttTopics: [String] = []

    @Option(name: .customLong("mqtt-client-id"),
            help: "The MQTT client id: the persistent session the broker keeps (default: sensei-server; with --database, sensei-<node id>, a session for each node).")
    var mqttClientID: String?

    /// --mqtt, else SENSEI_MQTT_URL; nil when neither is set.
    private var mqttBroker: String? {
        mqttURL ?? ProcessInfo.processInfo.environment["SENSEI_MQTT_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    // Alert timings, hidden: the defaults suit a home; the tests shorten them.
    @Option(name: .customLong("alert-tick"), help: .hidden)
    var alertTick: Double = 1

    @Option(name: .customLong("alert-retry"), help: .hidden)
    var alertRetry: Double = 5

    @Option(name: .customLong("alert-timeout"), help: .hidden)
    var alertTimeout: Double = 10

    /// Hidden: for checks that fuzz rules with arbitrary notify URLs.
    @Flag(name: .customLong("alert-loopback-only"), help: .hidden)
    var alertLoopbackOnly = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
        guard timeout >= 1 else { throw ValidationError("--timeout must be at least 1 second") }
        guard maxStreams >= 0 else { throw ValidationError("--max-streams must be 0 (no streams) or more") }
        guard streamHeartbeat >= 1 else { throw ValidationError("--stream-heartbeat must be at least 1 second") }
        guard compactionInterval >= 0.01 else { throw ValidationError("--compaction-interval must be at least 0.01") }
        guard maxBodyBytes >= 1024 else { throw ValidationError("--max-body-bytes must be at least 1024") }
        guard maxSensors >= 0 else { throw ValidationError("--max-sensors must be at least 0") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together: both for HTTPS, neither for HTTP")
        }
        guard alertTick > 0, alertRetry > 0, alertTimeout > 0 else {
            throw ValidationError("--alert-tick, --alert-retry and --alert-timeout must be positive seconds")
        }
        if let mqttBroker {
            _ = try MQTTBrokerURL(parsing: mqttBroker)
            // Only --node-id can make the default client id too long (a host name is at most 64 bytes).
            let node = try data.databaseURL() == nil ? nil : nodeID
            if let problem = MQTTSettings.problem(presets: mqttPresets, topics: mqttTopics, clientID: mqttClientID,
                                                  node: node) {
                throw ValidationError(problem)
            }
            guard !mqttPresets.isEmpty || !mqttTopics.isEmpty else {
                throw ValidationError("--mqtt needs at least one --mqtt-preset or --mqtt-topic to subscribe to")
            }
        } else if !mqttPresets.isEmpty || !mqttTopics.isEmpty || mqttCA != nil {
            throw ValidationError("--mqtt-preset, --mqtt-topic and --mqtt-ca need --mqtt (or SENSEI_MQTT_URL)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        // glibc gives each thread that allocates its own malloc arena (up to
        // 8 per core), each keeping freed memory: with 8 HTTP workers, the
        // writer and the readers that was megabytes of RSS held for nothing.
        // Two arenas are plenty for two cores' worth of contention.
        _ = sensei_limit_malloc_arenas(2)
        // Left alone, glibc raises its mmap threshold to the size of each
        // large block freed, up to 32 MB, after which a sensor list of
        // megabytes (10,000 sensors) comes from the heap and its memory is
        // kept after it is freed: RSS crept up by a list's size per rebuild.
        _ = sensei_fix_mmap_threshold(256 * 1024)
        let level = Logger.Level(rawValue: logLevel) ?? .info
        // Lines are written by a thread of their own (BufferedLogHandler):
        // whatever is queued goes out before the process ends, however it ends here.
        LoggingSystem.bootstrap { label in BufferedLogHandler(label: label, level: level) }
        defer { LogWriter.standardError.flush() }
        let logger = Logger(label: "sensei-server")

        var configuration = SenseiApplication.Configuration()
        configuration.dataDirectory = data.dataDirectory
        configuration.database = try data.databaseURL()
        configuration.presharedToken = ProcessInfo.processInfo.environment["SENSEI_TOKEN"]
        configuration.logWriter = .standardError
        configuration.http.host = host
        configuration.http.port = UInt16(port)
        configuration.http.threads = threads
        configuration.http.connectionLimit = maxConnections
        configuration.http.connectionTimeout = timeout
        configuration.http.maxBodyBytes = maxBodyBytes
        configuration.streams.maxListeners = maxStreams
        configuration.streams.heartbeat = .seconds(streamHeartbeat)
        configuration.compactionInterval = compactionInterval
        configuration.maxSensors = maxSensors
        configuration.nodeID = nodeID
        configuration.alerts.tickInterval = alertTick
        configuration.alerts.retryBackoff = alertRetry
        configuration.alerts.deliveryTimeout = alertTimeout
        configuration.alerts.loopbackOnly = alertLoopbackOnly
        if let tlsCertificate, let tlsKey {
            let files = try TLSFiles.load(certificate: tlsCertificate, key: tlsKey)
            configuration.http.tlsCertificatePEM = files.certificatePEM
            configuration.http.tlsKeyPEM = files.keyPEM
            if files.keyIsExposed {
                logger.warning("\(tlsKey) can be read by other users: chmod 600 it")
            }
        }

        if let mqttBroker {
            configuration.mqtt = MQTTSettings(
                broker: try MQTTBrokerURL(parsing: mqttBroker), caFile: mqttCA, clientID: mqttClientID,
                presets: mqttPresets, topics: mqttTopics)
        }

        // A peer closing early must not kill the process.
        signal(SIGPIPE, SIG_IGN)
        // The service group handles these (graceful shutdown); ignored from
        // now, so one that comes before its handlers are in place is no kill.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        configuration.shutdownSignals = [.sigint, .sigterm]

        let application = try SenseiApplication(configuration: configuration, logger: logger)
        do {
            try application.start()
        } catch {
            application.shutdown()
            throw error
        }
        logger.notice("listening on \(configuration.http.scheme)://\(host):\(application.port), data in \(configuration.database?.description ?? configuration.dataDirectory)")

        application.waitUntilStopped()
        application.shutdown()
        logger.notice("stopped")
    }
}
