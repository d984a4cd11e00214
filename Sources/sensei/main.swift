import SenseiTUI

/// The entry point: the root command parses the arguments and runs,
/// asynchronously (`list` and `show` sync the cache before printing).
@main
extension SenseiCommand {}
