import SenseiModels

/// Reading lists and buckets as JSON (`{"data": [...]}`) or CSV.
enum ReadingEncoding {
    static let csvType = "text/csv; charset=utf-8"

    static func json(_ readings: [Reading]) -> Response {
        .json(capacity: 16 + readings.count * 48) { writer in
            writer.beginObject()
            writer.key("data")
            writer.beginArray()
            for reading in readings { reading.write(to: &writer) }
            writer.endArray()
            writer.endObject()
        }
    }

    static func json(_ buckets: [Bucket]) -> Response {
        .json(capacity: 16 + buckets.count * 100) { writer in
            writer.beginObject()
            writer.key("data")
            writer.beginArray()
            for bucket in buckets { bucket.write(to: &writer) }
            writer.endArray()
            writer.endObject()
        }
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
