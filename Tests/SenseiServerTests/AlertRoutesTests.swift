import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// The rule routes: shapes, scopes, and 422s naming the field.
@Suite("Alert routes")
struct AlertRoutesTests {
    static let valid = #"{"name":"Freezer too warm","sensor":"freezer_temp","condition":"above","threshold":-10,"#
        + #""for":300,"hysteresis":1,"repeat":3600,"notify":["http://ha.lan:8123/api/webhook/freezer","ntfy:https://ntfy.sh/my-lab"]}"#

    @Test func createListShowPatchDelete() async throws {
        try await withTestServer { server async throws in
            #expect(try await server.writer.post("/sensors/freezer_temp/data", json: #"{"value":-18}"#).status == 201)
            let created = try await server.admin.post("/alerts", json: Self.valid)
            #expect(created.status == 201)
            let rule = try created.json
            let id = try #require(rule["id"]?.intValue)
            #expect(rule["name"] == .string("Freezer too warm"))
            #expect(rule["sensor"] == .string("freezer_temp"))
            #expect(rule["condition"] == .string("above"))
            #expect(rule["threshold"] == .number(-10))
            #expect(rule["for"] == .number(300) && rule["hysteresis"] == .number(1) && rule["repeat"] == .number(3600))
            #expect(rule["notify"] == .array([.string("http://ha.lan:8123/api/webhook/freezer"), .string("ntfy:https://ntfy.sh/my-lab")]))
            #expect(rule["state"] == .string("ok") && rule["value"] == .null)
            #expect(Timestamp(rfc3339: rule["since"]?.stringValue ?? "") != nil)

            let list = try await server.reader.get("/alerts")
            #expect(list.status == 200)
            #expect(try list.json == .object(["alerts": .array([rule])]))
            #expect(try await server.reader.get("/alerts/\(id)").json == rule)

            let patched = try await server.admin.patch("/alerts/\(id)", json: #"{"name":"Freezer warm","repeat":null}"#)
            #expect(patched.status == 200)
            #expect(try patched.json["name"] == .string("Freezer warm"))
            #expect(try patched.json["repeat"] == .null)
            #expect(try patched.json["threshold"] == .number(-10))
            // By id too, and to silent (which drops the threshold).
            let silent = try await server.admin.patch("/alerts/\(id)", json: #"{"sensor":1,"condition":"silent"}"#)
            #expect(silent.status == 200, "\(silent.text)")
            #expect(try silent.json["threshold"] == .null && silent.json["condition"] == .string("silent"))

            #expect(try await server.admin.delete("/alerts/\(id)").status == 204)
            #expect(try await server.reader.get("/alerts/\(id)").status == 404)
            #expect(try await server.admin.delete("/alerts/\(id)").status == 404)
            #expect(try await server.reader.get("/alerts").json == .object(["alerts": .array([])]))
        }
    }

    @Test func scopes() async throws {
        try await withTestServer { server async throws in
            #expect(try await server.writer.post("/sensors/freezer_temp/data", json: #"{"value":-18}"#).status == 201)
            #expect(try await server.writer.post("/alerts", json: Self.valid).status == 403)
            #expect(try await server.reader.post("/alerts", json: Self.valid).status == 403)
            #expect(try await server.anonymous.get("/alerts").status == 401)
            #expect(try await server.reader.get("/alerts").status == 200)
            #expect(try await server.admin.post("/alerts", json: Self.valid).status == 201)
            #expect(try await server.writer.patch("/alerts/1", json: #"{"name":"x"}"#).status == 403)
            #expect(try await server.writer.delete("/alerts/1").status == 403)
            #expect(try await server.reader.get("/alerts/abc").status == 404)
            #expect(try await server.reader.get("/alerts/99999999999999999999").status == 404)
        }
    }

    @Test func badRulesGet422NamingTheField() async throws {
        try await withTestServer { server async throws in
            #expect(try await server.writer.post("/sensors/s/data", json: #"{"value":1}"#).status == 201)
            let base = #""name":"n","sensor":"s","notify":["http://h/x"]"#
            let cases: [(String, String)] = [
                (#"{"sensor":"s","condition":"above","threshold":1,"notify":["http://h/x"]}"#, "name is missing"),
                (#"{\#(base),"condition":"above"}"#, "threshold is missing"),
                (#"{\#(base),"condition":"sideways","threshold":1}"#, "condition must be one of"),
                (#"{\#(base),"condition":"above","threshold":"1"}"#, "threshold must be a number"),
                (#"{\#(base),"condition":"silent"}"#, "for must be at least 1"),
                (#"{\#(base),"condition":"silent","for":60,"threshold":3}"#, "threshold is not used"),
                (#"{\#(base),"condition":"above","threshold":1,"for":-1}"#, "for must be a whole number"),
                (#"{\#(base),"condition":"above","threshold":1,"for":1.5}"#, "for must be a whole number"),
                (#"{\#(base),"condition":"above","threshold":1,"hysteresis":-1}"#, "hysteresis must be 0 or more"),
                (#"{\#(base),"condition":"above","threshold":1,"repeat":0}"#, "repeat must be a whole number"),
                (#"{\#(base),"condition":"above","threshold":1,"when":3}"#, "unknown field 'when'"),
                (#"{"name":"n","sensor":"nope","condition":"above","threshold":1,"notify":["http://h/x"]}"#, "sensor: no sensor 'nope'"),
                (#"{"name":"n","sensor":"a b","condition":"above","threshold":1,"notify":["http://h/x"]}"#, "sensor: sensor code"),
                (#"{"name":"n","sensor":true,"condition":"above","threshold":1,"notify":["http://h/x"]}"#, "sensor must be"),
                (#"{"name":"n","sensor":"s","condition":"above","threshold":1,"notify":[]}"#, "notify must hold from 1"),
                (#"{"name":"n","sensor":"s","condition":"above","threshold":1,"notify":"http://h"}"#, "notify must be a list"),
                (#"{"name":"n","sensor":"s","condition":"above","threshold":1,"notify":["ftp://h/x"]}"#, "notify[0]: must be an http"),
                (#"{"name":"n","sensor":"s","condition":"above","threshold":1,"notify":["http://h/x",3]}"#, "notify[1] must be a URL"),
                (#"{"name":"n","sensor":"s","condition":"above","threshold":1,"notify":["ntfy:https://ntfy.sh"]}"#, "notify[0]: an ntfy URL names its topic"),
                (#"{"name":"n","sensor":"s","condition":"above","threshold":1,"notify":["http://h/a b"]}"#, "notify[0]: a URL may not hold spaces"),
                (#"[1]"#, "body must be a JSON object"),
            ]
            for (body, message) in cases {
                let response = try await server.admin.post("/alerts", json: body)
                #expect(response.status == 422, "\(body): \(response.text)")
                #expect(response.errorMessage?.hasPrefix(message) == true, "\(body): \(response.errorMessage ?? response.text)")
            }
            #expect(try await server.admin.post("/alerts", json: "{").status == 400)
            #expect(try await server.reader.get("/alerts").json == .object(["alerts": .array([])]))
            // PATCH checks the rule as a whole.
            let id = try await server.admin.post("/alerts", json: #"{\#(base),"condition":"above","threshold":1}"#).json["id"]!.intValue!
            let patched = try await server.admin.patch("/alerts/\(id)", json: #"{"threshold":null}"#)
            #expect(patched.status == 422 && patched.errorMessage?.hasPrefix("threshold is missing") == true)
            #expect(try await server.admin.patch("/alerts/\(id)", json: #"{"sensor":"gone"}"#).status == 422)
            #expect(try await server.admin.patch("/alerts/424242", json: #"{"name":"x"}"#).status == 404)
        }
    }

    /// A `usage_above` rule: its calendar on the wire, UTC by default; a
    /// change to another condition drops it.
    @Test func usageRulesCarryTheirIntervalAndZone() async throws {
        try await withTestServer { server async throws in
            #expect(try await server.writer.post("/sensors/heat_pump/data", json: #"{"value":1200}"#).status == 201)
            let created = try await server.admin.post("/alerts", json: #"""
                {"name":"Heat pump","sensor":"heat_pump","condition":"usage_above","threshold":30000,"interval":"day",
                 "tz":"Europe/Berlin","for":0,"hysteresis":0,"repeat":null,"notify":["http://h/x"]}
                """#)
            #expect(created.status == 201, "\(created.text)")
            let rule = try created.json
            let id = try #require(rule["id"]?.intValue)
            #expect(rule["condition"] == .string("usage_above") && rule["threshold"] == .number(30000))
            #expect(rule["interval"] == .string("day") && rule["tz"] == .string("Europe/Berlin"))
            #expect(rule["for"] == .number(0) && rule["hysteresis"] == .number(0) && rule["repeat"] == .null)
            #expect(try await server.reader.get("/alerts").json == .object(["alerts": .array([rule])]))
            // The zone by default; a PATCH keeps the calendar and may change it.
            let utc = try await server.admin.post("/alerts", json: #"""
                {"name":"Hourly","sensor":"heat_pump","condition":"usage_above","threshold":2000,"interval":"hour",
                 "notify":["http://h/x"]}
                """#)
            #expect(try utc.json["tz"] == .string("UTC") && utc.json["interval"] == .string("hour"))
            let weekly = try await server.admin.patch("/alerts/\(id)", json: #"{"interval":"week","threshold":150000}"#)
            #expect(weekly.status == 200, "\(weekly.text)")
            #expect(try weekly.json["interval"] == .string("week") && weekly.json["tz"] == .string("Europe/Berlin"))
            // To another condition: the calendar goes, and neither key is served.
            let above = try await server.admin.patch("/alerts/\(id)", json: #"{"condition":"above","threshold":3000}"#)
            #expect(above.status == 200, "\(above.text)")
            #expect(try above.json["interval"] == nil && above.json["tz"] == nil)
            // And back: interval is needed again.
            let back = try await server.admin.patch("/alerts/\(id)", json: #"{"condition":"usage_above"}"#)
            #expect(back.status == 422 && back.errorMessage?.hasPrefix("interval is missing") == true, "\(back.text)")
            // A threshold rule with for and repeat, changed to usage: those are dropped.
            let timed = try await server.admin.patch("/alerts/\(id)", json: #"{"for":60,"repeat":600}"#)
            #expect(timed.status == 200)
            let usage = try await server.admin.patch("/alerts/\(id)", json: #"{"condition":"usage_above","interval":"month"}"#)
            #expect(usage.status == 200, "\(usage.text)")
            #expect(try usage.json["for"] == .number(0) && usage.json["repeat"] == .null && usage.json["tz"] == .string("UTC"))
        }
    }

    @Test func badUsageRulesGet422NamingTheField() async throws {
        try await withTestServer { server async throws in
            #expect(try await server.writer.post("/sensors/s/data", json: #"{"value":1}"#).status == 201)
            let base = #""name":"n","sensor":"s","notify":["http://h/x"]"#
            let cases: [(String, String)] = [
                (#"{\#(base),"condition":"usage_above","interval":"day"}"#, "threshold is missing"),
                (#"{\#(base),"condition":"usage_above","threshold":5}"#, "interval is missing"),
                (#"{\#(base),"condition":"usage_above","threshold":5,"interval":"year"}"#, "interval must be one of hour, day, week, month"),
                (#"{\#(base),"condition":"usage_above","threshold":5,"interval":7}"#, "interval must be one of"),
                (#"{\#(base),"condition":"usage_above","threshold":5,"interval":"day","tz":"Mars/Olympus"}"#, "tz: "),
                (#"{\#(base),"condition":"usage_above","threshold":5,"interval":"day","tz":"../etc/passwd"}"#, "tz: "),
                (#"{\#(base),"condition":"usage_above","threshold":5,"interval":"day","tz":3}"#, "tz must be a time zone name"),
                (#"{\#(base),"condition":"usage_above","threshold":5,"interval":"day","for":60}"#, "for does not apply"),
                (#"{\#(base),"condition":"usage_above","threshold":5,"interval":"day","hysteresis":1}"#, "hysteresis does not apply"),
                (#"{\#(base),"condition":"usage_above","threshold":5,"interval":"day","repeat":3600}"#, "repeat does not apply"),
                (#"{\#(base),"condition":"above","threshold":5,"interval":"day"}"#, "interval is only for condition usage_above"),
                (#"{\#(base),"condition":"silent","for":60,"tz":"UTC"}"#, "tz is only for condition usage_above"),
                (#"{\#(base),"condition":"usage_below","threshold":5}"#, "condition must be one of above, below, silent, usage_above"),
            ]
            for (body, message) in cases {
                let response = try await server.admin.post("/alerts", json: body)
                #expect(response.status == 422, "\(body): \(response.text)")
                #expect(response.errorMessage?.hasPrefix(message) == true, "\(body): \(response.errorMessage ?? response.text)")
            }
            #expect(try await server.reader.get("/alerts").json == .object(["alerts": .array([])]))
        }
    }

    /// Deleting a sensor deletes its rules: no silence alert for a sensor that is gone.
    @Test func aDeletedSensorTakesItsRulesAlong() async throws {
        try await withTestServer { server async throws in
            #expect(try await server.writer.post("/sensors/s/data", json: #"{"value":1}"#).status == 201)
            #expect(try await server.admin.post("/alerts", json: #"{"name":"n","sensor":"s","condition":"silent","for":60,"notify":["http://h/x"]}"#).status == 201)
            #expect(try await server.admin.delete("/sensors/s").status == 204)
            #expect(try await server.reader.get("/alerts").json == .object(["alerts": .array([])]))
        }
    }
}
