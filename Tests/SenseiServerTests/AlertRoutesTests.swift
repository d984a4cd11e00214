import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// The rule routes: shapes, scopes, and 422s naming the field.
@Suite("Alert routes", .ownThread)
struct AlertRoutesTests {
    static let valid = #"{"name":"Freezer too warm","sensor":"freezer_temp","condition":"above","threshold":-10,"#
        + #""for":300,"hysteresis":1,"repeat":3600,"notify":["http://ha.lan:8123/api/webhook/freezer","ntfy:https://ntfy.sh/my-lab"]}"#

    @Test func createListShowPatchDelete() async throws {
        try await withTestServer { server async throws in
            #expect(try server.writer.post("/sensors/freezer_temp/data", json: #"{"value":-18}"#).status == 201)
            let created = try server.admin.post("/alerts", json: Self.valid)
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

            let list = try server.reader.get("/alerts")
            #expect(list.status == 200)
            #expect(try list.json == .object(["alerts": .array([rule])]))
            #expect(try server.reader.get("/alerts/\(id)").json == rule)

            let patched = try server.admin.patch("/alerts/\(id)", json: #"{"name":"Freezer warm","repeat":null}"#)
            #expect(patched.status == 200)
            #expect(try patched.json["name"] == .string("Freezer warm"))
            #expect(try patched.json["repeat"] == .null)
            #expect(try patched.json["threshold"] == .number(-10))
            // By id too, and to silent (which drops the threshold).
            let silent = try server.admin.patch("/alerts/\(id)", json: #"{"sensor":1,"condition":"silent"}"#)
            #expect(silent.status == 200, "\(silent.text)")
            #expect(try silent.json["threshold"] == .null && silent.json["condition"] == .string("silent"))

            #expect(try server.admin.delete("/alerts/\(id)").status == 204)
            #expect(try server.reader.get("/alerts/\(id)").status == 404)
            #expect(try server.admin.delete("/alerts/\(id)").status == 404)
            #expect(try server.reader.get("/alerts").json == .object(["alerts": .array([])]))
        }
    }

    @Test func scopes() async throws {
        try await withTestServer { server async throws in
            #expect(try server.writer.post("/sensors/freezer_temp/data", json: #"{"value":-18}"#).status == 201)
            #expect(try server.writer.post("/alerts", json: Self.valid).status == 403)
            #expect(try server.reader.post("/alerts", json: Self.valid).status == 403)
            #expect(try server.anonymous.get("/alerts").status == 401)
            #expect(try server.reader.get("/alerts").status == 200)
            #expect(try server.admin.post("/alerts", json: Self.valid).status == 201)
            #expect(try server.writer.patch("/alerts/1", json: #"{"name":"x"}"#).status == 403)
            #expect(try server.writer.delete("/alerts/1").status == 403)
            #expect(try server.reader.get("/alerts/abc").status == 404)
            #expect(try server.reader.get("/alerts/99999999999999999999").status == 404)
        }
    }

    @Test func badRulesGet422NamingTheField() async throws {
        try await withTestServer { server async throws in
            #expect(try server.writer.post("/sensors/s/data", json: #"{"value":1}"#).status == 201)
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
                let response = try server.admin.post("/alerts", json: body)
                #expect(response.status == 422, "\(body): \(response.text)")
                #expect(response.errorMessage?.hasPrefix(message) == true, "\(body): \(response.errorMessage ?? response.text)")
            }
            #expect(try server.admin.post("/alerts", json: "{").status == 400)
            #expect(try server.reader.get("/alerts").json == .object(["alerts": .array([])]))
            // PATCH checks the rule as a whole.
            let id = try server.admin.post("/alerts", json: #"{\#(base),"condition":"above","threshold":1}"#).json["id"]!.intValue!
            let patched = try server.admin.patch("/alerts/\(id)", json: #"{"threshold":null}"#)
            #expect(patched.status == 422 && patched.errorMessage?.hasPrefix("threshold is missing") == true)
            #expect(try server.admin.patch("/alerts/\(id)", json: #"{"sensor":"gone"}"#).status == 422)
            #expect(try server.admin.patch("/alerts/424242", json: #"{"name":"x"}"#).status == 404)
        }
    }

    /// Deleting a sensor deletes its rules: no silence alert for a sensor that is gone.
    @Test func aDeletedSensorTakesItsRulesAlong() async throws {
        try await withTestServer { server async throws in
            #expect(try server.writer.post("/sensors/s/data", json: #"{"value":1}"#).status == 201)
            #expect(try server.admin.post("/alerts", json: #"{"name":"n","sensor":"s","condition":"silent","for":60,"notify":["http://h/x"]}"#).status == 201)
            #expect(try server.admin.delete("/sensors/s").status == 204)
            #expect(try server.reader.get("/alerts").json == .object(["alerts": .array([])]))
        }
    }
}
