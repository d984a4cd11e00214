import Foundation

/// The PEM certificate and private key that `serve --tls-cert --tls-key`
/// name, read and checked before the server starts: a wrong path or file is
/// a clear error at start rather than failed handshakes later.
struct TLSFiles {
    let certificatePEM: String
    let keyPEM: String
    /// The key file can be read by users other than its owner.
    let keyIsExposed: Bool

    /// PEM files are a few KiB; anything this large is not one.
    static let sizeLimit = 1 << 20

    static func load(certificate: String, key: String) throws -> TLSFiles {
        let certificatePEM = try read(certificate, flag: "--tls-cert")
        guard certificatePEM.contains("-----BEGIN CERTIFICATE-----") else {
            throw TLSFilesError.notPEM(flag: "--tls-cert", path: certificate, expected: "a PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        let keyPEM = try read(key, flag: "--tls-key")
        guard !keyPEM.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") else {
            throw TLSFilesError.notPEM(flag: "--tls-key", path: key, expected: "an unencrypted private key; this one needs a passphrase")
        }
        guard keyPEM.range(of: #"-----BEGIN ([A-Z]+ )?PRIVATE KEY-----"#, options: .regularExpression) != nil else {
            throw TLSFilesError.notPEM(flag: "--tls-key", path: key, expected: "a PEM private key (-----BEGIN PRIVATE KEY-----)")
        }
        var status = stat()
        let exposed = stat(key, &status) == 0 && status.st_mode & 0o077 != 0
        return TLSFiles(certificatePEM: certificatePEM, keyPEM: keyPEM, keyIsExposed: exposed)
    }

    private static func read(_ path: String, flag: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TLSFilesError.unreadable(flag: flag, path: path, reason: String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let data: Data
        do {
            data = try handle.read(upToCount: sizeLimit + 1) ?? Data()
        } catch {
            // EISDIR and the like.
            throw TLSFilesError.unreadable(flag: flag, path: path, reason: "\(error.localizedDescription)")
        }
        guard data.count <= sizeLimit, let text = String(data: data, encoding: .utf8) else {
            throw TLSFilesError.notPEM(flag: flag, path: path, expected: "a PEM text file")
        }
        return text
    }
}

enum TLSFilesError: Error, CustomStringConvertible {
    case unreadable(flag: String, path: String, reason: String)
    case notPEM(flag: String, path: String, expected: String)

    var description: String {
        switch self {
        case .unreadable(let flag, let path, let reason): "\(flag) \(path): cannot read it: \(reason)"
        case .notPEM(let flag, let path, let expected): "\(flag) \(path): expected \(expected)"
        }
    }
}
