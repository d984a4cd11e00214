import Foundation

/// Makes a fresh temporary directory, removed after `body`.
package func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// The same, for a synchronous test (the blocking suites).
package func withScratchDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// `withTemporaryDirectory` under the name the dashboard's tests use.
package func withScratchDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    try await withTemporaryDirectory(body)
}

private func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "sensei-test-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
