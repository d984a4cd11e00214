import ArgumentParser
import SenseiModels

/// `--range hour|day|...`: the parser refuses anything else and lists the
/// choices in help. Here, not in SenseiModels, which stays free of the CLI library.
extension TimeRange: ExpressibleByArgument {}
