/// Runs `body`, then `cleanup` however `body` ended: a `defer` whose work
/// is awaited (a `defer` block cannot await), so a blocking stop runs off the
/// cooperative pool.
package func withCleanup<T>(_ body: () async throws -> T, cleanup: () async -> Void) async throws -> T {
    let result: Result<T, any Error>
    do {
        result = .success(try await body())
    } catch {
        result = .failure(error)
    }
    await cleanup()
    return try result.get()
}
