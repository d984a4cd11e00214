import SenseiTUI

// The entry point: the root command parses the arguments and runs,
// asynchronously (`list` and `show` sync the cache before printing). Top-level
// code, not `@main`, so that the allocator is set up on the main thread
// before the concurrency runtime starts a thread of its own.
SenseiCommand.prepareProcess()
await SenseiCommand.runAsRoot()
