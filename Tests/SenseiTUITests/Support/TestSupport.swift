// The shared harness (TestServer, TestHTTPClient, ServerProcess, runTool,
// withTemporaryDirectory...) for every file of this target without an import each.
@_exported import SenseiTestSupport
