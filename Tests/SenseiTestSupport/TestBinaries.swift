import Foundation

/// The package's built executables (`sensei-server`, `sensei`,
/// `sensei-bench`): `swift build` puts them next to the test bundle.
package enum TestBinaries {
    package static func path(_ name: String) -> String {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent(name).path
    }
}
