import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SenseiModels

/// Thrown by `APIClient`; the dashboard carries it as is (`Msg.syncFailed`).
extension SyncFailure: Error {}

extension APIClient {
    /// An error status: 401 and 403 are about the token, anything else is the
    /// server's, with its `{"error": …}` message when it sent one.
    package static func failure(status: Int, body: [UInt8]) -> SyncFailure {
        switch status {
        case 401: return .unauthorized
        case 403: return .forbidden
        default:
            if let message = (try? JSONParser.parse(body))?["error"]?.stringValue {
                return .server(status: status, message: message)
            }
            // A proxy's HTML page or nothing: keep it short for the status line.
            let text = String(decoding: body.prefix(200), as: UTF8.self)
                .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            return .server(status: status, message: text.isEmpty
                           ? HTTPURLResponse.localizedString(forStatusCode: status) : text)
        }
    }

    /// No answer at all: the server is unreachable, and the reason is short
    /// enough for the status line.
    package static func failure(for error: any Error) -> SyncFailure {
        guard let error = error as? URLError else {
            return .unreachable(String(describing: error))
        }
        switch error.code {
        case .cannotConnectToHost: return .unreachable("connection refused")
        case .cannotFindHost, .dnsLookupFailed: return .unreachable("host not found")
        case .timedOut: return .unreachable("timed out")
        case .networkConnectionLost: return .unreachable("connection lost")
        case .notConnectedToInternet: return .unreachable("no network")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return .unreachable("TLS handshake failed")
        case .badServerResponse, .cannotParseResponse, .zeroByteResource:
            return .invalidResponse("malformed HTTP answer")
        case .unsupportedURL, .badURL:
            return .unreachable("unsupported server URL")
        default:
            return .unreachable("network error \(error.code.rawValue)")
        }
    }
}
