// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Sensei",
    products: [
        .executable(name: "sensei-server", targets: ["sensei-server"]),
        .executable(name: "sensei", targets: ["sensei"]),
        .executable(name: "sensei-bench", targets: ["sensei-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // C libraries, found through pkg-config.
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(
            name: "CNcursesw", pkgConfig: "ncursesw",
            providers: [.apt(["libncurses-dev"])]),
        // gzip for request bodies (line protocol) and responses (Accept-Encoding).
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // The MQTT subscriber: the Mosquitto project's own client library.
        .systemLibrary(
            name: "CMosquitto", pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]),
        // PostgreSQL's own client library (Debian's libpq, with its OpenSSL for
        // sslmode), for a hub past one machine (`serve --database postgresql://…`).
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        // SHA-256 from Debian's OpenSSL, not a BoringSSL compiled into every build.
        .systemLibrary(
            name: "CLibCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // The variadic MHD_start_daemon and MHD's enums do not import into Swift;
        // this shim gives them plain C signatures.
        .target(name: "CSenseiHTTP", dependencies: ["CMicroHTTPD"]),
        // schema.sql at the package root, compiled in with C23 #embed so the
        // binary carries exactly that file and nothing has to be installed beside it.
        .target(name: "CSenseiSchema"),

        .target(name: "SenseiModels"),
        // InfluxDB's line protocol, read as InfluxDB reads it: one parser for the
        // server's /write and `sensei import`. No imports, no I/O (fuzz/line-protocol.sh).
        .target(name: "SenseiLineProtocol"),
        // A small blocking client over libpq: parameterised and prepared
        // statements, pipelines, COPY, LISTEN/NOTIFY; no event loop.
        .target(name: "SenseiPostgres", dependencies: ["CLibPQ"]),
        .target(name: "SenseiDigest", dependencies: ["CLibCrypto"]),
        // gzip bodies out: the server's responses, the import's batches.
        .target(name: "SenseiGzip", dependencies: ["CZlib"]),
        // The one migrator of the server's store and the dashboard's cache (PRAGMA user_version).
        .target(name: "SenseiSQLite", dependencies: [.product(name: "GRDB", package: "GRDB.swift")]),
        .target(
            name: "SenseiServer",
            dependencies: [
                "SenseiModels", "SenseiLineProtocol", "SenseiDigest", "SenseiGzip", "SenseiSQLite", "CSenseiHTTP", "CSenseiSchema", "CZlib", "CMosquitto",
                // The PostgreSQL backend (`Postgres/`): blocking calls through libpq.
                "SenseiPostgres",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The insert hot path binds values through SQLite's C API.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // Background work runs as Services of one ServiceGroup.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "sensei-server", dependencies: ["SenseiServer"], path: "Sources/sensei-server"),

        // The dashboard's side of the API: the client, the cache (SQLite) and sync,
        // the config. Sensors and series, no screens.
        .target(
            name: "SenseiClient",
            dependencies: ["SenseiModels", "SenseiSQLite", .product(name: "GRDB", package: "GRDB.swift")]),
        // `sensei import` (line protocol, Home Assistant, CSV) and `sensei export`.
        .target(
            name: "SenseiTransfer",
            dependencies: [
                // CZlib: import reads gzip files as it goes.
                "SenseiClient", "SenseiModels", "SenseiLineProtocol", "SenseiGzip", "CZlib",
                // Home Assistant's recorder database.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // The dashboard: everything but Terminal/ (the one ncurses layer) is testable as text.
        .target(
            name: "SenseiTUI",
            dependencies: [
                "SenseiClient", "SenseiTransfer", "SenseiModels", "CNcursesw",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(name: "sensei", dependencies: ["SenseiTUI"], path: "Sources/sensei"),
        // The benchmark's helper: a bare "ok" server on the same HTTP layer (the
        // ceiling), data loading and RSS sampling; bench/run.sh drives it with wrk.
        .executableTarget(
            name: "sensei-bench",
            dependencies: [
                "SenseiServer", "SenseiModels",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Sources/sensei-bench"),

        // What every test target uses: the live server harness, the HTTP test
        // client, child processes, temporary directories, a seeded generator.
        // Not a module under test.
        .target(
            name: "SenseiTestSupport",
            dependencies: [
                "SenseiServer", "SenseiModels",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            path: "Tests/SenseiTestSupport"),
        .testTarget(name: "SenseiModelsTests", dependencies: ["SenseiModels", "SenseiTestSupport"]),
        .testTarget(name: "SenseiLineProtocolTests", dependencies: ["SenseiLineProtocol", "SenseiTestSupport"]),
        // Against a real PostgreSQL: SenseiTestSupport's private cluster.
        .testTarget(name: "SenseiPostgresTests", dependencies: ["SenseiPostgres", "SenseiTestSupport"]),
        .testTarget(
            name: "SenseiTUITests",
            dependencies: [
                "SenseiTUI", "SenseiClient", "SenseiTransfer", "SenseiModels", "SenseiGzip", "SenseiServer",
                "SenseiTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "SenseiServerTests",
            dependencies: [
                "SenseiServer", "SenseiModels", "SenseiPostgres", "SenseiTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Logging", package: "swift-log"),
            ]),
    ]
)
