import Foundation
import SenseiModels
import Testing
@testable import SenseiTUI
@testable import SenseiTransfer

/// The lines `sensei export` writes, as literal text.
@Suite struct ExportLineTests {
    static func sensor(_ code: String, _ labels: [String: String]) -> Sensor {
        Sensor(id: 1, code: code, name: code, units: "", valueType: .float, createdAt: Timestamp(milliseconds: 0),
               updatedAt: Timestamp(milliseconds: 0), latest: nil, count: 0, labels: labels)
    }

    static func text(_ format: ExportFormat, _ sensor: Sensor, _ readings: [Reading]) throws -> String {
        var pipe: [Int32] = [0, 0]
        #expect(Foundation.pipe(&pipe) == 0)
        let writer = ExportWriter(format: format, descriptor: pipe[1])
        let prefix = writer.prefix(for: sensor)
        for reading in readings { try writer.write(reading, prefix: prefix) }
        try writer.flush()
        close(pipe[1])
        let data = FileHandle(fileDescriptor: pipe[0], closeOnDealloc: true).readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func lineProtocolOfEachKindOfSensor() throws {
        let readings = [Reading(timestamp: Timestamp(milliseconds: 1_704_067_200_123), value: 21.5),
                        Reading(timestamp: Timestamp(milliseconds: -1), value: 3)]
        #expect(try Self.text(.lineProtocol, Self.sensor("freezer", ["source": "mqtt", "room": "back yard", "z": "", "a=b": "c,d"]),
                              readings) == """
            freezer,a\\=b=c\\,d,room=back\\ yard value=21.5 1704067200123000000
            freezer,a\\=b=c\\,d,room=back\\ yard value=3 -1000000

            """)
        #expect(try Self.text(.lineProtocol, Self.sensor("cpu_nas_usage_idle", [
            "source": "influx", "measurement": "cpu load", "field": "usage idle", "host": "nas"]), [readings[0]]) == """
            cpu\\ load,host=nas usage\\ idle=21.5 1704067200123000000

            """)
        #expect(try Self.text(.csv, Self.sensor("freezer", [:]), readings) == """
            sensor,timestamp,value
            freezer,2024-01-01T00:00:00.123Z,21.5
            freezer,1969-12-31T23:59:59.999Z,3

            """)
    }
}
