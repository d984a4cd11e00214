import Foundation
import Logging
import SenseiModels
import ServiceLifecycle
import UnixSignals

/// The whole server: store, authentication, routes and HTTP, wired together,
/// and its background parts run as the services of one `ServiceGroup`
/// (`services`: their order is the shutdown order, reversed).
/// `sensei-server serve` runs one; the tests start one on a free port.
public final class SenseiApplication: Sendable {
    public struct Configuration: Sendable {
        public var dataDirectory: String = "./sensei-data"
        public var http = HTTPServer.Configuration()
        /// `SENSEI_TOKEN`: one admin token shared out of band.
        public var presharedToken: String?
        /// Seconds between retention sweeps (readings past their sensor's `retentionDays`).
        public var retentionSweepInterval: TimeInterval = 60
        /// The live stream's bounds (`GET /stream`).
        public var streams = ReadingStreams.Configuration()
        /// Seconds between compaction passes: an hour of readings is packed
        /// within this long of ending a day ago.
        public var compactionInterval: TimeInterval = 30
        /// `--database` (`SENSEI_DATABASE_URL`): PostgreSQL instead of the
        /// data directory's SQLite file; nil: SQLite.
        public var database: DatabaseURL?
        /// `--node-id`: this server among several on one PostgreSQL database
        /// (its MQTT client id, the holder named for the alert lease, the
        /// origin of the stream events it writes); nil: host name and port.
        public var nodeID: String?
        /// `--max-sensors`: creating a sensor past it is refused.
        public var maxSensors = SenseiStore.defaultMaxSensors
        /// Alert evaluation and delivery timings (the tests shorten them).
        public var alerts = AlertService.Configuration()
        /// `--mqtt`: subscribe to a broker; nil: no MQTT.
        public var mqtt: MQTTSettings?
        /// Signals that stop the server gracefully (`serve`: SIGINT and SIGTERM).
        public var shutdownSignals: [UnixSignal] = []
        /// The queue behind the logger's `BufferedLogHandler`, when it has
        /// one: request lines are then queued there as they are (`RequestLog`).
        var logWriter: LogWriter?

        public init() {}

        /// `nodeID`, or this host's name and the configured port.
        public var node: String { nodeID ?? "\(ProcessInfo.processInfo.hostName):\(http.port)" }

        public var databasePath: String { SenseiApplication.databasePath(in: dataDirectory) }
        public var tokenFilePath: String { dataDirectory + "/admin-token" }
    }

    public static func databasePath(in dataDirectory: String) -> String { dataDirectory + "/sensei.sqlite" }

    public let configuration: Configuration
    /// The store, opened here and handed to every part as the seams it needs
    /// (`SensorStore`, `ReadingStore`, …): this is the one place that knows
    /// the backend, SQLite (`SenseiStore`) or PostgreSQL (`PostgresStore`).
    let storage: any SenseiStorage
    /// The tokens, whichever the backend (the tests mint theirs here).
    public var tokens: any TokenStore { storage }
    /// The SQLite store, when that is the backend: the tests audit its file.
    public var store: SenseiStore {
        guard let store = storage as? SenseiStore else {
            preconditionFailure("this server stores in PostgreSQL, not SQLite")
        }
        return store
    }
    let metrics: ServerMetrics
    private let logger: Logger
    private let authenticator: Authenticator
    private let router: Router
    let http: HTTPServer
    private let retentionSweeper: MaintenanceWorker
    let streams: ReadingStreams
    private let compactor: MaintenanceWorker
    let alerts: AlertService
    /// This node among the others on the database (one, on SQLite).
    let link: any NodeLink
    private let mqttSubscriber: MQTTSubscriber?
    /// The background parts, in start order.
    private let services: [BackgroundService]
    private let runner: ServiceRunner
    /// Open once `start` is over: a shutdown (a signal) that comes during
    /// the start waits for it, rather than stopping parts while others start.
    private let started: Latch

    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        try DataDirectory.prepare(configuration.dataDirectory)
        // One server a data directory, and none while `restore` swaps its database.
        let directoryLock = try DataDirectoryLock(directory: configuration.dataDirectory, holder: "sensei-server serve")
        let store: any SenseiStorage = if let database = configuration.database {
            try PostgresStore(url: database, node: configuration.node, maxSensors: configuration.maxSensors,
                              logger: logger)
        } else {
            try SenseiStore(path: configuration.databasePath, maxSensors: configuration.maxSensors)
        }
        storage = store
        authenticator = Authenticator(store: store, presharedToken: configuration.presharedToken, logger: logger)
        metrics = ServerMetrics()
        metrics.observeCommits(of: store)
        let link = store.nodeLink(node: configuration.node, logger: logger)
        self.link = link
        streams = ReadingStreams(configuration: configuration.streams, store: store) { link.relay($0) }
        let streams = streams
        let holdsLease: @Sendable () -> Bool = { link.holdsLease }
        alerts = AlertService(store: store, configuration: configuration.alerts, registry: metrics.registry,
                              logger: logger, holdsLease: holdsLease) { moved in
            for alert in moved { streams.publish(AlertEvent(.state, alert)) }
        }
        if let settings = configuration.mqtt {
            // On PostgreSQL this server may be one node of several: a session
            // of its own and a shared subscription (`MQTTSubscriber`).
            mqttSubscriber = MQTTSubscriber(settings: settings, node: configuration.database == nil ? nil : configuration.node,
                                            sink: StoreMQTTSink(store: store),
                                            metrics: MQTTMetrics(registry: metrics.registry), logger: logger,
                                            othersSubscribed: { link.othersAlive() })
        } else {
            mqttSubscriber = nil
        }
        router = Self.routes(store: store, metrics: metrics, streams: streams, alerts: alerts, mqtt: mqttSubscriber,
                             link: link)
        retentionSweeper = .retention(store: store, interval: configuration.retentionSweepInterval, logger: logger,
                                      holdsLease: holdsLease)
        compactor = .compaction(store: store, interval: configuration.compactionInterval, logger: logger,
                                holdsLease: holdsLease)
        let router = router
        let authenticator = authenticator
        let routeMetrics = RouteMetrics(registry: metrics.registry, router: router)
        let requestLog = RequestLog(logger: logger, writer: configuration.logWriter)
        http = HTTPServer(configuration: configuration.http, logger: logger, requestLog: requestLog,
                          observer: routeMetrics) { request, responder in
            Self.handle(request, router: router, authenticator: authenticator, logger: logger, responder: responder)
        }
        metrics.attach(http)
        let started = Latch()
        self.started = started
        services = Self.services(
            configuration: configuration, logger: logger, directoryLock: directoryLock, store: store, link: link,
            alerts: alerts, compactor: compactor, retentionSweeper: retentionSweeper, http: http, streams: streams,
            mqtt: mqttSubscriber, started: started)
        runner = ServiceRunner(services: services, signals: configuration.shutdownSignals, logger: logger)
    }

    /// The background parts in start order; graceful shutdown stops them in
    /// the reverse order, each once the one before it has stopped:
    /// 1. wait for `start` to be over, and announce it ("stopping");
    /// 2. MQTT: say goodbye to the broker, after committing what was read
    ///    (the store still takes writes); the broker keeps the session; on
    ///    PostgreSQL it unsubscribes first, so the other nodes take its share;
    /// 3. the live streams: end them, and refuse new ones with 503 "the server
    ///    is stopping" (open, they would hold HTTP's shutdown for its grace);
    /// 4. HTTP: stop accepting, finish the requests in flight (their writes
    ///    still commit), answer what is suspended with 503;
    /// 5. retention and compaction: end after the batch under way;
    /// 6. alerts: the evaluator stops ticking, the sender finishes the
    ///    delivery in flight (the rest stays in the outbox for the next start);
    /// 6b. the node link: stop following the other nodes, and give up the
    ///    lease (PostgreSQL: another node takes the alerts and the upkeep);
    /// 7. the store: drain the group commit, checkpoint, close; release the
    ///    data directory;
    /// 8. the log: write out every line queued.
    private static func services(
        configuration: Configuration, logger: Logger, directoryLock: DataDirectoryLock, store: any SenseiStorage,
        link: any NodeLink, alerts: AlertService, compactor: MaintenanceWorker, retentionSweeper: MaintenanceWorker, http: HTTPServer,
        streams: ReadingStreams, mqtt: MQTTSubscriber?, started: Latch
    ) -> [BackgroundService] {
        var services: [BackgroundService] = []
        if let writer = configuration.logWriter {
            services.append(BackgroundService("log", stop: writer.flush))
        }
        services += [
            BackgroundService("store", start: { try ensureAdminToken(configuration, store: store, logger: logger) },
                              stop: {
                                  do {
                                      try store.close()
                                  } catch {
                                      logger.error("closing the database failed: \(error)")
                                  }
                                  directoryLock.release()
                              }),
            // Other nodes' alert events reach this node's streams; a rule
            // changed through another node is reloaded here.
            BackgroundService("node link", start: {
                link.start(NodeDelivery(alert: { event in
                    streams.publishHere(event)
                    if event.isRuleChange { try? alerts.evaluator.refresh(id: event.ruleID) }
                }, lease: { held in if held { alerts.leaseTaken() } }))
            }, stop: link.stop),
            BackgroundService("alerts", start: alerts.start, stop: alerts.stop),
            BackgroundService("compaction", start: compactor.start, stop: compactor.stop),
            BackgroundService("retention", start: retentionSweeper.start, stop: retentionSweeper.stop),
            BackgroundService("http", start: http.start, stop: { http.shutdown() }),
            BackgroundService("streams", start: streams.start, stop: streams.stop),
        ]
        // Last to start: a broker down or slow never keeps the server from serving.
        if let mqtt {
            services.append(BackgroundService("mqtt", start: mqtt.start, stop: mqtt.stop))
        }
        services.append(BackgroundService("shutdown notice", stop: {
            started.wait()
            logger.notice("stopping")
        }))
        return services
    }

    static func routes(store: any SenseiStorage, metrics: ServerMetrics, streams: ReadingStreams,
                       alerts: AlertService, mqtt: MQTTSubscriber? = nil, link: any NodeLink) -> Router {
        var router = Router()
        HealthRoutes(mqtt: mqtt, link: link).addRoutes(to: &router)
        SensorRoutes(store: store, alerts: alerts, streams: streams).addRoutes(to: &router)
        ReadingRoutes(store: store, metrics: metrics).addRoutes(to: &router)
        LegacyRoutes(store: store, metrics: metrics).addRoutes(to: &router)
        MetricsRoutes(store: store, metrics: metrics, alerts: alerts, link: link).addRoutes(to: &router)
        StreamRoutes(store: store, streams: streams).addRoutes(to: &router)
        AlertRoutes(store: store, alerts: alerts, streams: streams).addRoutes(to: &router)
        AggregateRoutes(store: store).addRoutes(to: &router)
        UsageRoutes(store: store).addRoutes(to: &router)
        BulkRoutes(store: store).addRoutes(to: &router)
        InfluxRoutes(store: store, metrics: metrics).addRoutes(to: &router)
        InfluxQueryRoutes(store: store).addRoutes(to: &router)
        return router
    }

    /// The port the server listens on, once started.
    public var port: Int { http.port }

    /// Makes sure some token can get in, then starts every part, in order,
    /// and runs the service group. A part that fails to start throws; the
    /// group still runs, so `shutdown` stops what did start.
    public func start() throws {
        defer { started.open() }
        runner.launch()
        for service in services { try service.start() }
    }

    /// Blocks until the server has stopped: after one of the configuration's
    /// `shutdownSignals`, or `shutdown`.
    public func waitUntilStopped() {
        runner.wait()
    }

    /// Stops every part in the declared order (`services(…)`) and waits for that.
    public func shutdown() {
        // Never started (or already): nothing to wait for.
        started.open()
        runner.shutdown()
    }

    /// A server never runs open: with no token at all, make an admin token and
    /// leave it, readable by this user only, in the data directory.
    private static func ensureAdminToken(_ configuration: Configuration, store: any TokenStore,
                                         logger: Logger) throws {
        guard configuration.presharedToken?.isEmpty ?? true, try store.tokens().isEmpty else { return }
        let name = "admin-\(Timestamp.now().milliseconds)"
        let secret = try store.createToken(name: name, scope: .admin, at: .now())
        try DataDirectory.writeSecret(secret + "\n", to: configuration.tokenFilePath)
        logger.notice("no token existed: created admin token '\(name)'; it is in \(configuration.tokenFilePath)")
    }

    /// The request path, in stages: route (method and path to a route, or
    /// 404/405), authorize (`Authenticator.refusal`: the token, in any
    /// `Credential` form, and the route's scope), dispatch (the handler
    /// answers now or later), map errors (`response(for:)`, the one place).
    /// `responder` is tagged with the route's index (or `unmatchedIndex`) for the metrics.
    static func handle(_ request: Request, router: Router, authenticator: Authenticator, logger: Logger,
                       responder: Responder) {
        // Every answer the route gives, errors included, compressed when the client takes gzip.
        let respond: @Sendable (Response) -> Void = { response in
            responder.respond(ResponseCompression.apply(to: response, acceptEncoding: request.acceptEncoding))
        }
        guard let (route, parameters) = Self.route(request, router: router, responder: responder) else { return }
        let answer: @Sendable (Result<Response, any Error>) -> Void = { result in
            switch result {
            case .success(let response): respond(response)
            case .failure(let error): respond(Self.response(for: error, request: request, logger: logger))
            }
        }
        do {
            if let refusal = try authenticator.refusal(of: request, for: route) {
                return respond(.error(refusal))
            }
            switch route.action {
            case .immediate(let handler): respond(try handler(request, parameters))
            case .deferred(let handler): try handler(request, parameters, answer)
            }
        } catch {
            answer(.failure(error))
        }
    }

    /// The route stage: the matching route, or nil once 404/405 is answered.
    private static func route(_ request: Request, router: Router,
                              responder: Responder) -> (Router.Route, Router.Parameters)? {
        switch router.match(method: request.method, path: request.path) {
        case .notFound:
            responder.tag(route: router.unmatchedIndex)
            responder.respond(.error(.notFound("no route for \(request.method) \(request.path)")))
        case .methodNotAllowed(let allowed):
            responder.tag(route: router.unmatchedIndex)
            responder.respond(.error(.methodNotAllowed(request.method, allowed: allowed)))
        case .found(let route, let parameters):
            responder.tag(route: route.index)
            return (route, parameters)
        }
        return nil
    }

    /// The one place errors become answers: API errors as they are, store
    /// refusals as 404/409/422, anything else logged and a bare JSON 500.
    static func response(for error: any Error, request: Request, logger: Logger) -> Response {
        switch error {
        case let error as APIError:
            return .error(error)
        case let error as StoreError where error.apiError.status != 500:
            return .error(error.apiError)
        case PostgresStoreError.unavailable:
            // PostgreSQL down or failing over: nothing of this request was
            // committed; the client (a device's retry) tries again.
            logger.warning("\(RequestLine.word(request.method)) \(RequestLine.word(request.path)): \(error)",
                           metadata: ["request": "\(request.id)"])
            return .error(APIError(status: 503, message: "the database is unavailable; retry later",
                                   headers: ["Retry-After": "2"]))
        default:
            logger.error("\(RequestLine.word(request.method)) \(RequestLine.word(request.path)) failed: \(error)",
                         metadata: ["request": "\(request.id)"])
            return .error(.internalError)
        }
    }
}
