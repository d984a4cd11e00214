import Foundation
import Testing
@testable import SenseiServer

extension BlockingSuites {
    /// The real binary SIGKILLed while it stores a stream of QoS 1 messages:
    /// the database is sound, and after a restart every message published is
    /// stored (the broker redelivers what was never acknowledged). A message
    /// committed but not yet acknowledged when the kill came (its batch, or
    /// the previous one whose PUBACKs still sat in a socket buffer) is
    /// delivered again and stored twice: QoS 1 is at least once; the count is printed.
    @Suite("MQTT crash safety")
    struct MQTTCrashTests {
        static let messages = 3_000

        @Test func sigkillUnderMQTTLoadLosesNothing() async throws {
            try await withBroker { broker in
                try await withScratchDirectory { directory in
                    let arguments = ["--mqtt", broker.url, "--mqtt-topic", "load/#"]
                    var (server, client) = try await startChildServer(directory, arguments)
                    try await waitUntil("connected") { await client.mqttHealth == "connected" }
                    let publisher = Thread.detachedResult {
                        try broker.publishLines("load/crash/counter", (1...Self.messages).map(String.init))
                    }
                    try await waitUntil("some messages stored") { try await client.metric("sensei_mqtt_readings_stored_total") >= 300 }
                    let storedBeforeKill = try await client.metric("sensei_mqtt_readings_stored_total")
                    #expect(await server.stop(signal: SIGKILL) == SIGKILL)
                    #expect(try auditDatabase(in: directory) == "ok")
                    try await waitUntil("the publisher finished", seconds: 60) { publisher.value != nil }
                    try publisher.value?.get()

                    (server, client) = try await startChildServer(directory, arguments)
                    defer { _ = server.stop() }
                    var values: [Double] = []
                    try await waitUntil("every message stored after the restart") {
                        guard let sensor = try await client.mqttSensor(device: "crash", field: "counter") else { return false }
                        values = try await client.values(of: sensor)
                        return Set(values).count >= Self.messages
                    }
                    let distinct = Set(values)
                    #expect(distinct == Set((1...Self.messages).map(Double.init)), "\(Self.messages - distinct.count) lost")
                    // Only what was committed but not yet acknowledged comes twice, never a value no one sent.
                    #expect(values.count - distinct.count < Self.messages)
                    #expect(try auditDatabase(in: directory) == "ok")
                    print("MQTT crash safety: killed after \(Int(storedBeforeKill)) stored; after the restart "
                          + "\(distinct.count)/\(Self.messages) messages stored, \(values.count - distinct.count) twice")
                }
            }
        }
    }
}
