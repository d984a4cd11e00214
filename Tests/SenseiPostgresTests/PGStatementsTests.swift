import SenseiPostgres
import SenseiTestSupport
import Testing

@Suite struct PGStatementsTests {
    @Test func aStatementRunTwiceIsPreparedOnce() async throws {
        try await withConnection { connection, _ in
            try connection.script("CREATE TABLE tokens (name text PRIMARY KEY, scope text)")
            func preparedOnServer() throws -> Int {
                try connection.query("SELECT count(*) FROM pg_prepared_statements")[0].decode(Int.self)
            }
            let before = connection.preparedStatementCount
            try connection.execute("INSERT INTO tokens VALUES (\("a"), \("read"))")
            // The first run goes unnamed: nothing prepared for SQL seen once.
            #expect(connection.preparedStatementCount == before)
            for name in ["b", "c", "d", "e"] {
                try connection.execute("INSERT INTO tokens VALUES (\(name), \("write"))")
            }
            #expect(connection.preparedStatementCount == before + 1)
            // The server holds what the cache counts: the insert, and the
            // count statement itself from its second run on.
            _ = try preparedOnServer()
            let onServer = try preparedOnServer()
            #expect(onServer == connection.preparedStatementCount)
            #expect(try preparedOnServer() == onServer)
            let names = try connection.query("SELECT name FROM tokens ORDER BY name").values(String.self)
            #expect(names == ["a", "b", "c", "d", "e"])
            #expect(try connection.execute("DELETE FROM tokens WHERE scope = \("write")") == 4)
        }
    }

    @Test func appendBindBuildsAValuesListOfAnyLength() async throws {
        try await withConnection { connection, _ in
            try connection.script("CREATE TABLE readings (sensor int8, ts int8, value float8)")
            var query = PGQuery(unsafeSQL: "INSERT INTO readings (sensor, ts, value) VALUES ")
            for ts in Int64(0)..<50 {
                query.appendSQL(ts == 0 ? "(" : ", (")
                query.appendBind(Int64(7))
                query.appendSQL(", ")
                query.appendBind(ts)
                query.appendSQL(", ")
                query.appendBind(ts == 3 ? nil : Double(ts) / 2)
                query.appendSQL(")")
            }
            #expect(query.binds.count == 150)
            #expect(try connection.execute(query) == 50)
            // postgres-nio's other form: $n written out, binds appended in order.
            var sum = PGQuery(unsafeSQL: "SELECT sum(value), count(value) FROM readings WHERE sensor = $1 AND ts < $2")
            sum.binds.append(Int64(7))
            sum.binds.append(Int64(10))
            let (total, counted) = try connection.query(sum)[0].decode((Double, Int64).self)
            #expect(total == 21 && counted == 9)
            #expect(try connection.query("SELECT \(unescaped: "count(*)") FROM readings")[0].decode(Int.self) == 50)
        }
    }

    @Test func scriptRunsSeveralStatementsAndStopsAtTheFirstError() async throws {
        try await withConnection { connection, _ in
            let results = try connection.script("CREATE TABLE t (n int PRIMARY KEY); INSERT INTO t VALUES (1), (2); SELECT n FROM t ORDER BY n")
            #expect(results.map(\.commandTag) == ["CREATE TABLE", "INSERT 0 2", "SELECT 2"])
            #expect(try results[2].values(Int.self) == [1, 2])
            let error = #expect(throws: PGError.self) { try connection.script("INSERT INTO t VALUES (3); INSERT INTO t VALUES (1); INSERT INTO t VALUES (4)") }
            #expect(error?.sqlState == "23505")
            #expect(error?.isTransient == false)
            // One implicit transaction: the 3 before the error is gone too.
            #expect(try connection.query("SELECT count(*) FROM t")[0].decode(Int.self) == 2)
        }
    }

    @Test func transactionCommitsOrRollsBack() async throws {
        struct Failure: Error {}
        try await withConnection { connection, _ in
            try connection.script("CREATE TABLE t (n int PRIMARY KEY)")
            try connection.transaction { try connection.execute("INSERT INTO t VALUES (\(Int32(1)))") }
            #expect(throws: Failure.self) {
                try connection.transaction {
                    try connection.execute("INSERT INTO t VALUES (\(Int32(2)))")
                    throw Failure()
                }
            }
            // A statement failed and the body went on: COMMIT rolls back, and says so.
            let error = #expect(throws: PGError.self) {
                try connection.transaction {
                    try connection.execute("INSERT INTO t VALUES (\(Int32(3)))")
                    _ = try? connection.execute("INSERT INTO t VALUES (\(Int32(1)))")
                }
            }
            #expect(error?.sqlState == "25P02")
            #expect(!connection.inTransaction)
            #expect(try connection.query("SELECT array_agg(n)::int8[] FROM t")[0].decode([Int64].self) == [Int64(1)])
        }
    }

    @Test func pipelineAnswersEveryStatementInOrder() async throws {
        try await withConnection { connection, _ in
            try connection.script("CREATE TABLE t (n int8 PRIMARY KEY, label text)")
            let inserts = (Int64(0)..<200).map { n -> PGQuery in "INSERT INTO t VALUES (\(n), \("row \(n)"))" }
            let results = try connection.pipeline(inserts + ["SELECT count(*), max(label) FROM t"])
            #expect(results.count == 201)
            #expect(results.dropLast().allSatisfy { $0.affectedRows == 1 })
            let (count, label) = try results[200][0].decode((Int64, String).self)
            #expect(count == 200 && label == "row 99")
            // Run again, the statements are prepared inside the pipeline.
            let again = try connection.pipeline((Int64(0)..<3).map { "SELECT label FROM t WHERE n = \($0)" })
            let thrice = try connection.pipeline((Int64(3)..<6).map { "SELECT label FROM t WHERE n = \($0)" })
            let labels = try (again + thrice).map { try $0[0].decode(String.self) }
            #expect(labels == ["row 0", "row 1", "row 2", "row 3", "row 4", "row 5"])
            #expect(connection.preparedStatementCount >= 1)
        }
    }

    @Test func anErrorInAPipelineAbortsTheRestUntilSync() async throws {
        try await withConnection { connection, _ in
            try connection.script("CREATE TABLE t (n int8 PRIMARY KEY)")
            try connection.execute("INSERT INTO t VALUES (\(Int64(5)))")
            let queries: [PGQuery] = (Int64(0)..<10).map { "INSERT INTO t VALUES (\($0 == 4 ? 5 : 100 + $0))" }
            let outcomes = try connection.pipelineResults(queries)
            #expect(outcomes.count == 10)
            for (index, outcome) in outcomes.enumerated() {
                switch (index, outcome) {
                case (0..<4, .success(let result)): #expect(result.affectedRows == 1)
                case (4, .failure(let error)): #expect(error.kind == .server && error.sqlState == "23505")
                case (5..., .failure(let error)): #expect(error.kind == .pipelineAborted)
                default: Issue.record("statement \(index): \(outcome)")
                }
            }
            // The statements up to the Sync were one implicit transaction: all rolled back.
            #expect(try connection.query("SELECT count(*) FROM t")[0].decode(Int.self) == 1)
            // `pipeline` throws the failed statement's own error.
            let error = #expect(throws: PGError.self) { try connection.pipeline(queries) }
            #expect(error?.sqlState == "23505")
            // An explicit BEGIN that failed halfway leaves no transaction behind.
            _ = try connection.pipelineResults(["BEGIN", "INSERT INTO t VALUES (\(Int64(5)))", "COMMIT"])
            #expect(!connection.inTransaction)
            #expect(!connection.isBroken)
            #expect(try connection.pipeline(["SELECT 1", "SELECT 2"]).count == 2)
        }
    }

    /// The guard against a silent network cut: a statement whose answer
    /// does not come within `answerTimeout` fails, and the connection is
    /// broken (it is mid-statement), instead of hanging its thread.
    @Test func aSilentServerTimesOut() async throws {
        try await offThePool {
            let database = try PGTestDatabase()
            let connection = try database.connect(answerTimeout: .milliseconds(300))
            defer { connection.close() }
            let start = ContinuousClock.now
            let error = #expect(throws: PGError.self) { try connection.query("SELECT pg_sleep(30)") }
            #expect(ContinuousClock.now - start < .seconds(10))
            #expect(error?.kind == .timeout)
            #expect(error?.isTransient == true)
            #expect(connection.isBroken)
            #expect(throws: PGError.self) { try connection.query("SELECT 1") }
        }
    }
}
