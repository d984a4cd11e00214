import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// HTTPS through libmicrohttpd's GnuTLS, checked with the `curl` and
/// `openssl` command-line tools (a real TLS stack on the other side).
@Suite("TLS")
struct TLSTests {
    @Test func httpsServesHealthAndAuthenticatedWrites() async throws {
        try await withTemporaryDirectory { directory in
            let pair = try await CertificatePair.make(in: directory)
            try await withTestServer(configure: { pair.configure(&$0) }) { server in
                let https = HTTPSClient(port: server.port, caCertificate: pair.certificatePath)
                let health = try await https.request("GET", "/health")
                #expect(health.status == 200)
                #expect(health.body.contains(#"{"status":"ok""#))

                // A POST waits for its group commit on a suspended connection:
                // suspend and resume work under TLS too.
                let posted = try await https.request("POST", "/sensors/porch/data", token: server.writer.token,
                                                body: #"{"timestamp":"2025-01-09T12:00:00Z","value":21.5}"#)
                #expect(posted.status == 201)
                #expect(posted.body == #"{"accepted":1}"#)
                let read = try await https.request("GET", "/sensors/porch/data", token: server.reader.token)
                #expect(read.status == 200)
                #expect(read.body == #"{"data":[{"timestamp":"2025-01-09T12:00:00Z","value":21.5}]}"#)
                #expect(try await https.request("GET", "/sensors").status == 401)
            }
        }
    }

    @Test func plainHTTPToTheTLSPortGetsNoAnswer() async throws {
        try await withTemporaryDirectory { directory in
            let pair = try await CertificatePair.make(in: directory)
            try await withTestServer(configure: { pair.configure(&$0) }) { server async throws in
                // The TLS handshake fails on "GET ...": no HTTP answer, let alone a 200.
                let plain = try? await TestHTTPClient(port: server.port).get("/health")
                #expect(plain?.status != 200)
                // ... and the server is none the worse for it.
                let https = HTTPSClient(port: server.port, caCertificate: pair.certificatePath)
                #expect(try await https.request("GET", "/health").status == 200)
            }
        }
    }

    @Test func aClientThatDoesNotTrustTheCertificateIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let pair = try await CertificatePair.make(in: directory)
            let stranger = try await CertificatePair.make(in: directory + "/other")
            try await withTestServer(configure: { pair.configure(&$0) }) { server in
                let wrongTrust = HTTPSClient(port: server.port, caCertificate: stranger.certificatePath)
                await #expect(throws: HTTPClientError.self) { try await wrongTrust.request("GET", "/health") }
            }
        }
    }

    @Test func binaryServesHTTPSWithTheFlagsAndSaysSo() async throws {
        try await withTemporaryDirectory { directory in
            let pair = try await CertificatePair.make(in: directory)
            let (server, port) = try await ServerProcess.start(
                dataDirectory: directory + "/data", environment: ["SENSEI_TOKEN": "tls-test"],
                extraArguments: ["--tls-cert", pair.certificatePath, "--tls-key", pair.keyPath])
            defer { _ = server.stop() }
            #expect(server.log.contains("listening on https://127.0.0.1:\(port)"))
            #expect(!server.log.contains("can be read by other users"))  // the key is 0600
            let https = HTTPSClient(port: port, caCertificate: pair.certificatePath)
            #expect(try await https.request("GET", "/health").body.hasPrefix(#"{"status":"ok""#))
            let posted = try await https.request("POST", "/sensor_data", token: "tls-test",
                                            body: #"{"sensor_code":"porch","value":"7"}"#)
            #expect(posted.status == 201)
            // openssl's own client agrees: the certificate verifies against itself.
            let handshake = try await runTool("openssl", ["s_client", "-connect", "127.0.0.1:\(port)",
                                                    "-CAfile", pair.certificatePath, "-verify_return_error", "-brief"],
                                        timeout: 20)
            #expect(handshake.status == 0, "\(handshake.error)")
            #expect(handshake.error.contains("Verification: OK"))
        }
    }

    @Test func binaryRefusesTLSFilesItCannotUse() async throws {
        try await withTemporaryDirectory { directory in
            let pair = try await CertificatePair.make(in: directory)
            let other = try await CertificatePair.make(in: directory + "/other")
            let garbage = directory + "/garbage.pem"
            try "not a key\n".write(toFile: garbage, atomically: true, encoding: .utf8)
            let cases: [(key: String, certificate: String, message: String)] = [
                (directory + "/missing.pem", pair.certificatePath, "--tls-key \(directory)/missing.pem: cannot read it: No such file or directory"),
                (garbage, pair.certificatePath, "expected a PEM private key"),
                (pair.keyPath, garbage, "expected a PEM certificate"),
                (directory, pair.certificatePath, "--tls-key \(directory): cannot read it"),
                // Well-formed, but not this certificate's key: GnuTLS refuses it at start.
                (other.keyPath, pair.certificatePath, "cannot start on 127.0.0.1 port 0: GnuTLS"),
            ]
            for (key, certificate, message) in cases {
                let result = try await runTool(ServerProcess.executable.path, [
                    "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", directory + "/data",
                    "--tls-cert", certificate, "--tls-key", key,
                ], timeout: 30, environment: ["SENSEI_TOKEN": "tls-test"])
                #expect(!result.timedOut, "the server started with key \(key), certificate \(certificate)")
                #expect(result.status == 1, "exit \(result.status) for key \(key): \(result.error)")
                #expect(result.error.contains(message), "\(result.error)")
            }
            let half = try await runTool(ServerProcess.executable.path, ["serve", "--tls-cert", pair.certificatePath],
                                   timeout: 30)
            #expect(half.status != 0)
            #expect(half.error.contains("--tls-cert and --tls-key go together"))
        }
    }
}

/// A self-signed certificate for 127.0.0.1 and its key, made with openssl.
private struct CertificatePair {
    let certificatePath: String
    let keyPath: String

    static func make(in directory: String) async throws -> CertificatePair {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pair = CertificatePair(certificatePath: directory + "/cert.pem", keyPath: directory + "/key.pem")
        // P-256: as good as RSA here, and made in milliseconds.
        let result = try await runTool("openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", pair.keyPath, "-out", pair.certificatePath, "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        guard result.status == 0 else { throw HTTPClientError(description: "openssl req failed: \(result.error)") }
        chmod(pair.keyPath, 0o600)
        return pair
    }

    func configure(_ configuration: inout SenseiApplication.Configuration) {
        configuration.http.tlsCertificatePEM = try? String(contentsOfFile: certificatePath, encoding: .utf8)
        configuration.http.tlsKeyPEM = try? String(contentsOfFile: keyPath, encoding: .utf8)
    }
}

/// HTTPS requests through curl, which verifies the server against `caCertificate`.
private struct HTTPSClient {
    let port: Int
    let caCertificate: String

    /// Throws when curl fails (no connection, a failed handshake or verification).
    func request(_ method: String, _ path: String, token: String? = nil, body: String? = nil) async throws -> (status: Int, body: String) {
        var arguments = ["--silent", "--show-error", "--max-time", "10", "--cacert", caCertificate,
                         "--request", method, "--write-out", "\n%{http_code}"]
        if let token { arguments += ["--header", "Authorization: Bearer \(token)"] }
        if let body { arguments += ["--header", "Content-Type: application/json", "--data-raw", body] }
        let result = try await runTool("curl", arguments + ["https://127.0.0.1:\(port)\(path)"], timeout: 20)
        guard result.status == 0, let newline = result.output.lastIndex(of: "\n"),
              let status = Int(result.output[result.output.index(after: newline)...]) else {
            throw HTTPClientError(description: "curl exit \(result.status): \(result.error)")
        }
        return (status, String(result.output[..<newline]))
    }
}
