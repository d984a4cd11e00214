import Foundation
import Testing
import SenseiTestSupport
@testable import SenseiServer

extension BlockingSuites {
    /// Two real `sensei-server` nodes on one PostgreSQL database, both
    /// subscribed to one Mosquitto (`lab/#`): shared subscriptions
    /// (`$share/sensei/lab/#`) give each message to one node. 1,000 QoS 1
    /// messages (10 sensors × 100 distinct values) are published while one
    /// node is stopped (SIGTERM: it unsubscribes, so the other takes its
    /// share) or killed (SIGKILL: its share waits in its session until it
    /// returns with the same node id); the readings are counted through the
    /// REST API of a node.
    @Suite("MQTT shared subscriptions", .enabled(if: PostgresServer.binaries != nil, "needs PostgreSQL installed"))
    struct MQTTSharedSubscriptionTests {
        static let sensors = 10
        static let perSensor = 100
        static var total: Int { sensors * perSensor }

        @Test func aNodeStoppedHalfwayLeavesItsShareToTheOther() async throws {
            try await withHub { hub in
                let health = try await hub.a.client.get("/health").json
                #expect(health["mqttClientID"]?.stringValue == "sensei-a")
                #expect(health["mqttShared"]?.boolValue == true)
                let stop = try await hub.publishAll(stoppingA: SIGTERM)
                #expect(stop.status == 0)
                #expect(hub.a.server.log.contains("left the shared subscription"), "\(hub.a.server.log.suffix(2000))")

                let stored = try await hub.waitForAllValues().reduce(0) { $0 + $1.count }
                #expect(stored == Self.total, "\(stored - Self.total) stored twice")
                let byB = try await hub.b.client.metric("sensei_mqtt_readings_stored_total")
                print("MQTT shared subscriptions, SIGTERM (publishing on after it: \(stop.publishingAfter)): "
                      + "\(stored)/\(Self.total) stored once; node b stored \(Int(byB)), probes included")

                // Unsubscribed when it stopped, the node subscribes again when it returns.
                try await hub.restartA()
                try await hub.waitUntilBothTakeMessages()
            }
        }

        @Test func aNodeKilledGetsItsShareWhenItReturns() async throws {
            try await withHub { hub in
                let kill = try await hub.publishAll(stoppingA: SIGKILL)
                #expect(kill.status == SIGKILL)
                try await hub.restartA()
                // What node a committed but had not acknowledged when it was
                // killed comes again (QoS 1); a reading's time is when it was
                // received, so such a message is stored twice, never lost.
                let stored = try await hub.waitForAllValues().reduce(0) { $0 + $1.count }
                #expect(stored - Self.total <= 2 * MQTTSubscriber.Configuration.defaultBatchLimit)
                // Messages published after the kill gave node a its share in its session.
                let byA = try await hub.a.client.metric("sensei_mqtt_readings_stored_total")
                if kill.publishingAfter { #expect(byA > 0, "node a got nothing from its session") }
                print("MQTT shared subscriptions, SIGKILL (publishing on after it: \(kill.publishingAfter)): every one "
                      + "of \(Self.total) messages stored, \(stored - Self.total) twice; node a stored \(Int(byA)) on its return")
            }
        }

        @Test func clientIDsAndTheirLimits() {
            #expect(MQTTSettings.clientID(nil, node: nil) == "sensei-server")
            #expect(MQTTSettings.clientID(nil, node: "rack-2") == "sensei-rack-2")
            #expect(MQTTSettings.clientID("mine", node: "rack-2") == "mine")
            #expect(MQTTSettings.problem(presets: [], topics: ["lab/#"], clientID: nil,
                                         node: String(repeating: "n", count: 249)) == nil)
            #expect(MQTTSettings.problem(presets: [], topics: ["lab/#"], clientID: nil,
                                         node: String(repeating: "n", count: 250))?.hasPrefix("--node-id") == true)
            #expect(MQTTSettings.problem(presets: [], topics: ["lab/#"], clientID: "") == "--mqtt-client-id must be 1 to 256 bytes")
        }

        /// A node's process, stopped once: by the test, or else when the test ends.
        private final class Node {
            let server: ServerProcess
            let client: TestHTTPClient
            private var status: Int32?

            init(_ started: (ServerProcess, TestHTTPClient)) {
                (server, client) = started
            }

            func stop(signal: Int32 = SIGTERM) async -> Int32 {
                if let status { return status }
                let status = await server.stop(signal: signal)
                self.status = status
                return status
            }
        }

        /// Nodes a and b on one new database, both subscribed to `lab/#`.
        private final class Hub {
            let directory: String
            let url: String
            let broker: MQTTBroker
            private(set) var a: Node
            let b: Node

            private init(directory: String, url: String, broker: MQTTBroker, a: Node, b: Node) {
                self.directory = directory
                self.url = url
                self.broker = broker
                self.a = a
                self.b = b
            }

            static func start(directory: String, broker: MQTTBroker) async throws -> Hub {
                let url = try await PostgresServer.started().database(for: directory).description
                let a = try await startNode("a", directory, url, broker)
                do {
                    let b = try await startNode("b", directory, url, broker)
                    return Hub(directory: directory, url: url, broker: broker, a: a, b: b)
                } catch {
                    _ = await a.stop()
                    throw error
                }
            }

            /// Node `name`, with a data directory of its own.
            private static func startNode(_ name: String, _ directory: String, _ url: String,
                                          _ broker: MQTTBroker) async throws -> Node {
                let node = Node(try await startChildServer(directory + "/" + name, [
                    "--database", url, "--node-id", name, "--mqtt", broker.url, "--mqtt-topic", "lab/#",
                ]))
                do {
                    try await waitUntil("node \(name) connected") { await node.client.mqttHealth == "connected" }
                } catch {
                    _ = await node.stop()
                    throw error
                }
                return node
            }

            /// Node a again, with the same node id (so the same MQTT session).
            func restartA() async throws {
                a = try await Self.startNode("a", directory, url, broker)
            }

            func stop() async {
                _ = await a.stop()
                _ = await b.stop()
            }

            /// Each node's count of readings stored from MQTT.
            private func storedByNode() async throws -> [Double] {
                [try await a.client.metric("sensei_mqtt_readings_stored_total"),
                 try await b.client.metric("sensei_mqtt_readings_stored_total")]
            }

            /// "connected" comes before the broker has the subscription: probes
            /// (sensor `probe`, not counted) until each node has stored one,
            /// which also shows the broker shares the messages out.
            func waitUntilBothTakeMessages() async throws {
                let before = try await storedByNode()
                try await waitUntil("every node stored a probe", every: .milliseconds(50)) {
                    try await broker.publish("lab/probe/value", "1")
                    return zip(try await storedByNode(), before).allSatisfy { $0 > $1 }
                }
            }

            /// Publishes every message, on a thread of its own, and stops node a
            /// with `signal` once some are stored; returns when all are
            /// published: a's exit status, and whether messages were still
            /// being published when the signal went.
            func publishAll(stoppingA signal: Int32) async throws -> (status: Int32, publishingAfter: Bool) {
                let publisher = Thread.detachedResult { [broker] in try Self.publishAll(broker) }
                try await waitUntil("some messages stored") {
                    try await storedByNode().reduce(0, +) >= 300
                }
                let publishingAfter = publisher.value == nil
                let status = await a.stop(signal: signal)
                try await waitUntil("the publisher finished", seconds: 60) { publisher.value != nil }
                try publisher.value?.get()
                return (status, publishingAfter)
            }

            /// 10 rounds, each 10 values to each sensor (`lab/s<k>/value`,
            /// values 0 to 99): messages flow for a while rather than in one burst.
            private static func publishAll(_ broker: MQTTBroker) throws {
                let rounds = 10
                let step = MQTTSharedSubscriptionTests.perSensor / rounds
                for round in 0..<rounds {
                    for sensor in 0..<MQTTSharedSubscriptionTests.sensors {
                        try broker.publishLines("lab/s\(sensor)/value", (round * step..<(round + 1) * step).map(String.init))
                    }
                }
            }

            /// Waits until every sensor holds each of its values; returns each
            /// sensor's values (read through node b), read once more after that.
            func waitForAllValues() async throws -> [[Double]] {
                let expected = Set((0..<MQTTSharedSubscriptionTests.perSensor).map(Double.init))
                let client = b.client
                func stored() async throws -> [[Double]] {
                    var values: [[Double]] = []
                    for sensor in 0..<MQTTSharedSubscriptionTests.sensors {
                        let found = try await client.mqttSensor(device: "s\(sensor)", field: "value")
                        values.append(found == nil ? [] : try await client.values(of: found!))
                    }
                    return values
                }
                try await waitUntil("every message stored", every: .milliseconds(100)) {
                    try await stored().allSatisfy { Set($0) == expected }
                }
                return try await stored()
            }
        }

        /// Runs `body` with a broker and two nodes, and their cleanup however it ends.
        private func withHub(_ body: (Hub) async throws -> Void) async throws {
            try await withBroker { broker in
                try await withScratchDirectory { directory in
                    let hub = try await Hub.start(directory: directory, broker: broker)
                    try await withCleanup {
                        do {
                            try await hub.waitUntilBothTakeMessages()
                            try await body(hub)
                        } catch {
                            // What the nodes said, but for their request lines.
                            let said = { (node: Node) in
                                "port \(node.client.port): " + node.server.log.split(separator: "\n")
                                    .filter { !$0.contains(" request=") }.suffix(40).joined(separator: "\n")
                            }
                            throw HTTPClientError(description: "\(error)\nnode a, \(said(hub.a))\nnode b, \(said(hub.b))")
                        }
                    } cleanup: {
                        await hub.stop()
                    }
                }
            }
        }
    }
}
