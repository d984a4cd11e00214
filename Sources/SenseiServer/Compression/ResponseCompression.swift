import SenseiGzip
/// Which answers go out gzip-compressed: JSON and CSV bodies of at least
/// `minimumBytes`, to a client whose `Accept-Encoding` takes gzip. Smaller
/// bodies stay plain: the gzip header and trailer alone are 18 bytes, and
/// an error or a sensor fits in one packet either way.
enum ResponseCompression {
    static let minimumBytes = 1_024

    static func apply(to response: Response, acceptEncoding: String?) -> Response {
        guard isCompressible(response) else { return response }
        var response = response
        // Either way: a cache in between must not hand one client's form to another.
        response.headers.append(("Vary", "Accept-Encoding"))
        guard response.body.count >= minimumBytes, let acceptEncoding, acceptsGzip(acceptEncoding),
              let compressed = GzipDeflater.deflate(response.body) else { return response }
        response.body = compressed
        response.headers.append(("Content-Encoding", "gzip"))
        return response
    }

    private static func isCompressible(_ response: Response) -> Bool {
        // Names compared without `lowercased()`, which made a string of each
        // name for every answer, a single POST's too.
        guard !response.headers.contains(where: { sameIgnoringCase($0.name.utf8, "content-encoding") }),
              let type = response.headers.first(where: { sameIgnoringCase($0.name.utf8, "content-type") })?.value else {
            return false
        }
        return type.hasPrefix("application/json") || type.hasPrefix("text/csv")
    }

    /// RFC 9110 §12.5.3: a coding is acceptable when listed (or matched by
    /// `*`) with a q-value above 0; an explicit `gzip;q=0` refuses it even if
    /// `*` is allowed. A q-value that does not parse counts as 0: sending a
    /// plain body is never wrong.
    static func acceptsGzip(_ header: String) -> Bool {
        var gzip: Double?
        var any: Double?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingWhitespace().lowercased() }
            guard let coding = parts.first, !coding.isEmpty else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                q = Double(parameter.dropFirst(2)).flatMap { (0...1).contains($0) ? $0 : nil } ?? 0
            }
            switch coding {
            case "gzip", "x-gzip": gzip = max(gzip ?? 0, q)
            case "*": any = q
            default: break
            }
        }
        return (gzip ?? any ?? 0) > 0
    }
}
