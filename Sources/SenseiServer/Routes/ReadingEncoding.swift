import SenseiModels

/// Reading lists and buckets as JSON (`{"data": [...]}`) or CSV.
enum ReadingEncoding {
    static let csvType = "text/csv; charset=utf-8"

    /// `{"data": [...]}` of readings or buckets.
    static func json(_ items: [some JSONWritable], bytesEach: Int) -> Response {
        .json(capacity: 16 + items.count * bytesEach) { $0.envelope("data", items) }
    }

    static func csv(_ readings: [Reading]) -> Response {
        var bytes = Array("timestamp,value\n".utf8)
        bytes.reserveCapacity(16 + readings.count * 34)
        for reading in readings {
            reading.timestamp.appendRFC3339(to: &bytes)
            bytes.append(UInt8(ascii: ","))
            bytes.append(contentsOf: formatNumber(reading.value).utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        return Response(status: 200, headers: [("Content-Type", csvType)], body: bytes)
    }

    static func csv(_ buckets: [Bucket]) -> Response {
        var bytes = Array("timestamp,value,min,max,count\n".utf8)
        for bucket in buckets {
            bucket.timestamp.appendRFC3339(to: &bytes)
            for number in [bucket.mean, bucket.min, bucket.max] {
                bytes.append(UInt8(ascii: ","))
                bytes.append(contentsOf: formatNumber(number).utf8)
            }
            bytes.append(contentsOf: ",\(bucket.count)\n".utf8)
        }
        return Response(status: 200, headers: [("Content-Type", csvType)], body: bytes)
    }
}
