import ArgumentParser

extension SenseiBenchCommand {
    /// Prints the one table of a run: our figures, the targets of
    /// docs/design.md ("Targets") and, where it means something, the share of the ceiling.
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the benchmark table from the results bench/run.sh gathered.")

        @Option(help: "The results file (phase.key=value lines).")
        var results: String

        func run() throws {
            let results = try BenchResults(contentsOf: results)
            print(BenchTable(results).render())
        }
    }
}
