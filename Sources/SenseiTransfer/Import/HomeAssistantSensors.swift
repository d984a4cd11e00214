import SenseiClient
import SenseiModels

/// Makes the sensor of each entity the first time it has a reading: with an
/// admin token, `POST /sensors` with its name, units and the labels
/// `source=homeassistant`, `entity_id`, and `kind: counter` for a meter; with
/// a write token (403), readings alone, which create plain sensors.
///
/// `kind` is the server's since energy (docs/energy.md). A server older than it
/// refuses the field (422 "unknown field 'kind'"): the sensor is then created
/// without it and the summary says so, so the import works on both.
final class HomeAssistantSensors {
    let client: APIClient
    private var codes: [String: String] = [:]
    private(set) var created = 0
    private var writeOnly = false
    private var kindUnsupported = false
    private var countersWithoutKind = 0

    init(client: APIClient) {
        self.client = client
    }

    var notes: [String] {
        var notes: [String] = []
        if writeOnly {
            notes.append("the token may not create sensors with metadata (write scope): readings were imported, "
                         + "and the names, units, labels and kinds of the sensors were left as they are")
        }
        if kindUnsupported && countersWithoutKind > 0 {
            notes.append("\(countersWithoutKind) meters were created without kind: counter, "
                         + "which this server does not know yet")
        }
        return notes
    }

    /// The entity's sensor code, its sensor created first when this token may.
    func ensure(_ entity: EntityCursor.Metadata) async throws -> String {
        if let code = codes[entity.entity] { return code }
        let code = Self.code(for: entity.entity)
        codes[entity.entity] = code
        guard !writeOnly else { return code }
        var status = try await create(code, entity, withKind: entity.counter && !kindUnsupported)
        if status.code == 422 && status.message.contains("'kind'") {
            kindUnsupported = true
            status = try await create(code, entity, withKind: false)
        }
        if kindUnsupported && entity.counter && status.code == 201 { countersWithoutKind += 1 }
        switch status.code {
        case 201: created += 1
        case 409: break  // there already, from an earlier run: left as it is
        case 403: writeOnly = true
        default: throw BatchUploader.Fatal.rejected(.server(status: status.code, message: status.message))
        }
        return code
    }

    private func create(_ code: String, _ entity: EntityCursor.Metadata, withKind: Bool) async throws
        -> (code: Int, message: String) {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("code")
        writer.string(code)
        if let name = entity.name, !name.isEmpty {
            writer.key("name")
            writer.string(String(name.prefix(200)))
        }
        if let units = entity.units {
            writer.key("units")
            writer.string(String(units.prefix(50)))
        }
        writer.key("labels")
        writer.beginObject()
        writer.key("source")
        writer.string("homeassistant")
        writer.key("entity_id")
        writer.string(entity.entity)
        writer.endObject()
        if withKind {
            writer.key("kind")
            writer.string("counter")
        }
        writer.endObject()
        let (status, body) = try await client.send("POST", "/sensors", body: writer.bytes)
        return (status, BatchUploader.errorMessage(body))
    }

    /// `sensor.living_room_temperature` → `sensor_living_room_temperature`:
    /// every character outside `[A-Za-z0-9_-]` becomes `_`; past 50
    /// characters, the first 41, `_` and 8 hex digits of the entity id's
    /// FNV-1a hash, so two long ids never share a code.
    static func code(for entity: String) -> String {
        let allowed = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-") }
        let code = String(entity.map { allowed($0) ? $0 : "_" })
        guard code.count > 50 else { return code.isEmpty ? "entity" : code }
        var hash: UInt32 = 2_166_136_261
        for byte in entity.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let hex = String(hash, radix: 16)
        return code.prefix(41) + "_" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
