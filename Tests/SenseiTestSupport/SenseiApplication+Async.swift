import SenseiServer

extension SenseiApplication {
    /// `shutdown()` for async tests, off the cooperative pool (`offThePool`):
    /// it waits for the server's services to stop, and their tasks may need
    /// a thread of the pool themselves; two tests shutting down on the
    /// pool's two threads deadlocked. Same name: in an async function Swift
    /// picks this one, and asks for `await`.
    package func shutdown() async {
        await offThePool { self.shutdown() }
    }
}
