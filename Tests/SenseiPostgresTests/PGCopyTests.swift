import SenseiPostgres
import Testing

@Suite struct PGCopyTests {
    @Test func binaryCopyOf100kRows() async throws {
        try await withConnection { connection, _ in
            try connection.script("CREATE TABLE readings (sensor_id int8, ts int8, value float8, note text)")
            let count = 100_000
            let copied = try connection.copyFrom("COPY readings (sensor_id, ts, value, note) FROM STDIN (FORMAT binary)") { copy in
                for n in 0..<count {
                    try copy.appendRow(Int64(n % 10), Int64(n), Double(n) / 4, n % 1000 == 0 ? "k\(n)" : nil)
                }
            }
            #expect(copied == count)
            let (rows, sum, notes) = try connection.query("SELECT count(*), sum(value), count(note) FROM readings")[0]
                .decode((Int64, Double, Int64).self)
            #expect(rows == Int64(count))
            #expect(sum == Double(count - 1) * Double(count) / 8)
            #expect(notes == 100)
            // Read back whole: a large result decodes quickly, every value exact.
            let start = ContinuousClock.now
            var total = 0.0, wrong = 0
            for row in try connection.query("SELECT ts, value FROM readings") {
                let (ts, value) = try row.decode((Int64, Double).self)
                if value != Double(ts) / 4 { wrong += 1 }
                total += value
            }
            #expect(wrong == 0)
            #expect(total == sum)
            print("read \(count) rows in \(ContinuousClock.now - start)")
        }
    }

    @Test func textCopyTakesLinesAndNulls() async throws {
        try await withConnection { connection, _ in
            try connection.script("CREATE TABLE t (n int4, label text)")
            let copied = try connection.copyFrom("COPY t FROM STDIN") { copy in
                try copy.write("1\tone\n2\t\\N\n")
                try copy.write("3\tthree ü\n")
                #expect(throws: PGError.self) { try copy.appendRow(Int32(4), "four") }
            }
            #expect(copied == 3)
            #expect(try connection.query("SELECT count(label) FROM t")[0].decode(Int.self) == 2)
        }
    }

    @Test func aFailedCopyInsertsNothingAndLeavesTheConnectionUsable() async throws {
        struct Stop: Error {}
        try await withConnection { connection, _ in
            try connection.script("CREATE TABLE t (n int8 PRIMARY KEY)")
            #expect(throws: Stop.self) {
                try connection.copyFrom("COPY t FROM STDIN (FORMAT binary)") { copy in
                    for n in Int64(0)..<50_000 { try copy.appendRow(n) }
                    throw Stop()
                }
            }
            // The server's own error: a duplicate key, found at the end.
            let duplicate = #expect(throws: PGError.self) {
                try connection.copyFrom("COPY t FROM STDIN (FORMAT binary)") { copy in
                    for n in Int64(0)..<10 { try copy.appendRow(n % 5) }
                }
            }
            #expect(duplicate?.sqlState == "23505")
            // A column of another type: binary COPY does not convert, and
            // the server's "protocol violation" here is no transient fault.
            let wrongType = #expect(throws: PGError.self) {
                try connection.copyFrom("COPY t FROM STDIN (FORMAT binary)") { copy in try copy.appendRow(Int32(1)) }
            }
            #expect(wrongType?.sqlState == "08P01")
            #expect(wrongType?.isTransient == false)
            let notCopy = #expect(throws: PGError.self) { try connection.copyFrom("SELECT 1") { _ in } }
            #expect(notCopy?.kind == .usage)
            #expect(try connection.query("SELECT count(*) FROM t")[0].decode(Int.self) == 0)
            #expect(!connection.isBroken)
        }
    }
}
