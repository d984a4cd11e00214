import Testing
import SenseiModels
@testable import SenseiServer

/// How a body's lines are gathered into series batches: one batch a series,
/// readings and their positions in the order written, whatever shortcut found
/// the batch (the line before had the same key, or the lookup by bytes).
@Suite("Line series")
struct LineSeriesTests {
    static func batches(_ body: String) -> [String: [(position: Int, value: Double, ms: Int64?)]] {
        let (batches, errors) = InfluxRoutes.parse(Array(body.utf8), precision: .milliseconds,
                                                   receivedAt: Timestamp(milliseconds: 5_000))
        #expect(errors.isEmpty)
        var found: [String: [(Int, Double, Int64?)]] = [:]
        for batch in batches {
            #expect(batch.readings.count == batch.positions.count)
            #expect(found[batch.series.preferredCode] == nil, "one batch a series")
            found[batch.series.preferredCode] = zip(batch.positions, batch.readings).map {
                ($0, $1.value, $1.timestamp?.milliseconds)
            }
        }
        return found
    }

    @Test func fieldsInAnotherOrderOrSkippedKeepTheirSeries() {
        let found = Self.batches("""
            m a=1,b=2 1
            m b=3,a=4 2
            m s="text",a=5 3
            m a=6,s="x",b=7 4
            m,t=x a=8 5
            m a=9
            """)
        #expect(found["m_a"]?.map(\.value) == [1, 4, 5, 6, 9])
        #expect(found["m_a"]?.map(\.position) == [0, 3, 4, 5, 8])
        #expect(found["m_b"]?.map(\.value) == [2, 3, 7])
        #expect(found["m_b"]?.map(\.position) == [1, 2, 6])
        #expect(found["m_x_a"]?.map(\.value) == [8])
        // No timestamp, precision ms: the store's receive time.
        #expect(found["m_a"]?.last?.ms == nil && found["m_a"]?.first?.ms == 1)
        #expect(found.count == 3)
    }

    @Test func interleavedSeriesAreGatheredBySeries() {
        let lines = (0..<300).map { "cpu,cpu=cpu\($0 % 3) idle=\($0) \($0)" }.joined(separator: "\n")
        let found = Self.batches(lines)
        #expect(found.count == 3)
        for core in 0..<3 {
            let series = found["cpu_cpu\(core)_idle"] ?? []
            #expect(series.map(\.value) == stride(from: Double(core), to: 300, by: 3).map { $0 })
            #expect(series.map(\.position) == Array(stride(from: core, to: 300, by: 3)))
        }
    }

    @Test func tagsWrittenInAnotherOrderAreOneSeriesInTheStore() async throws {
        let (batches, _) = InfluxRoutes.parse(Array("m,a=1,b=2 v=1 1\nm,b=2,a=1 v=2 2\n".utf8), precision: .milliseconds,
                                              receivedAt: Timestamp(milliseconds: 5_000))
        #expect(batches.count == 2 && batches[0].series.identity == batches[1].series.identity)
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/sensei.db")
            let outcome = try await withCheckedThrowingContinuation { done in
                store.ingest(batches) { done.resume(with: $0) }
            }
            #expect(outcome.accepted == 2 && outcome.createdSensors == 1)
            #expect(try store.sensors().map(\.count) == [2])
        }
    }
}
