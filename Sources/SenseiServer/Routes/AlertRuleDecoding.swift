import Foundation
import SenseiModels

/// Reads an alert rule from a request body. Every refusal is a 422 whose
/// message starts with the field at fault, so a person (or a form) can point
/// at it.
enum AlertRuleDecoding {
    static let fields = ["name", "sensor", "condition", "threshold", "for", "hysteresis", "repeat", "notify", "interval", "tz"]
    /// A year: longer waits are surely a mistake in units.
    static let maximumSeconds = 31_536_000
    static let maximumTargets = 10
    static let maximumURLLength = 2_000

    /// The fields a body sets: nil is absent; for `threshold` and `repeat`,
    /// `.some(nil)` is an explicit null.
    struct Fields {
        var name: String?
        var sensor: SensorReference?
        var condition: AlertCondition?
        var threshold: Double??
        var forSeconds: Int?
        var hysteresis: Double?
        var repeatSeconds: Int??
        var notify: [String]?
        /// `usage_above`'s calendar; `.some(nil)` is an explicit null.
        var interval: UsageInterval??
        var timeZone: String??
    }

    static func fields(of request: Request) throws(APIError) -> Fields {
        let body = try RequestDecoding.json(request)
        guard let object = body.objectValue else {
            throw .unprocessable("body must be a JSON object, found \(body.typeName)")
        }
        try RequestDecoding.requireOnly(fields, in: object)
        var result = Fields()
        result.name = try RequestDecoding.string("name", in: object, maximumLength: 200, allowEmpty: false)
        if let value = object["sensor"], !value.isNull { result.sensor = try sensor(value) }
        if let text = try RequestDecoding.string("condition", in: object, maximumLength: 20) {
            guard let condition = AlertCondition(rawValue: text) else {
                let names = AlertCondition.allCases.map(\.rawValue).joined(separator: ", ")
                throw .unprocessable("condition must be one of \(names); found '\(text)'")
            }
            result.condition = condition
        }
        if let value = object["threshold"] { result.threshold = .some(value.isNull ? nil : try number("threshold", value)) }
        if let value = object["for"], !value.isNull { result.forSeconds = try seconds("for", value, minimum: 0) }
        if let value = object["hysteresis"], !value.isNull {
            let hysteresis = try number("hysteresis", value)
            guard hysteresis >= 0 else { throw .unprocessable("hysteresis must be 0 or more, found \(value.serialized)") }
            result.hysteresis = hysteresis
        }
        if let value = object["repeat"] {
            result.repeatSeconds = .some(value.isNull ? nil : try seconds("repeat", value, minimum: 1))
        }
        if let value = object["notify"], !value.isNull { result.notify = try notify(value) }
        if let value = object["interval"] { result.interval = .some(value.isNull ? nil : try interval(value)) }
        if let value = object["tz"] { result.timeZone = .some(value.isNull ? nil : try timeZone(value)) }
        return result
    }

    /// The rule `fields` make of `base` (nil: a new rule, which must name
    /// everything required), checked as a whole.
    static func rule(_ fields: Fields, sensorID: Int64?, over base: AlertRule?) throws(APIError) -> AlertRule {
        guard let name = fields.name ?? base?.name else { throw .unprocessable("name is missing") }
        guard let sensorID = sensorID ?? base?.sensorID else { throw .unprocessable("sensor is missing") }
        guard let condition = fields.condition ?? base?.condition else {
            throw .unprocessable("condition is missing: above, below, silent or usage_above")
        }
        guard let notify = fields.notify ?? base?.notify else { throw .unprocessable("notify is missing: a list of URLs") }
        var threshold = fields.threshold ?? base?.threshold
        var forSeconds = fields.forSeconds ?? base?.forSeconds ?? 0
        var hysteresis = fields.hysteresis ?? base?.hysteresis ?? 0
        var repeatSeconds = fields.repeatSeconds ?? base?.repeatSeconds
        // A rule changed to another condition drops what only the old one used.
        let keepsCalendar = condition == .usageAbove
        var interval = fields.interval ?? (keepsCalendar ? base?.interval : nil)
        var timeZone = fields.timeZone ?? (keepsCalendar ? base?.timeZone : nil)
        switch condition {
        case .above, .below:
            guard threshold != nil else { throw .unprocessable("threshold is missing: condition \(condition) needs one") }
        case .usageAbove:
            guard threshold != nil else {
                throw .unprocessable("threshold is missing: condition usage_above needs one, in the usage's units")
            }
            guard interval != nil else {
                throw .unprocessable("interval is missing: condition usage_above needs hour, day, week or month")
            }
            try usageRuleRefuses(fields)
            // Its state runs by the calendar: an interval fires at most once.
            forSeconds = 0
            hysteresis = 0
            repeatSeconds = nil
        case .silent:
            if fields.threshold != nil, fields.threshold! != nil {
                throw .unprocessable("threshold is not used by condition silent; leave it out")
            }
            // A rule changed to silent drops its old threshold.
            threshold = nil
            guard forSeconds >= 1 else {
                throw .unprocessable("for must be at least 1 second for condition silent: how long a silence is")
            }
        }
        if condition != .usageAbove {
            if let explicit = fields.interval, explicit != nil {
                throw .unprocessable("interval is only for condition usage_above; leave it out")
            }
            if let explicit = fields.timeZone, explicit != nil {
                throw .unprocessable("tz is only for condition usage_above; leave it out")
            }
            interval = nil
            timeZone = nil
        }
        return AlertRule(name: name, sensorID: sensorID, condition: condition, threshold: threshold,
                         forSeconds: forSeconds, hysteresis: hysteresis, repeatSeconds: repeatSeconds, notify: notify,
                         interval: interval, timeZone: timeZone)
    }

    /// `for`, `hysteresis` and `repeat` set in the body of a `usage_above`
    /// rule: a rule on the running interval's usage fires once an interval,
    /// at once, and resolves when the interval ends. Zeros and null are
    /// accepted, as saying the same.
    private static func usageRuleRefuses(_ fields: Fields) throws(APIError) {
        if let forSeconds = fields.forSeconds, forSeconds != 0 {
            throw .unprocessable("for does not apply to condition usage_above (it fires once the usage passes the threshold); leave it out")
        }
        if let hysteresis = fields.hysteresis, hysteresis != 0 {
            throw .unprocessable("hysteresis does not apply to condition usage_above (it resolves when a new interval starts); leave it out")
        }
        if let repeatSeconds = fields.repeatSeconds, repeatSeconds != nil {
            throw .unprocessable("repeat does not apply to condition usage_above (it notifies at most once an interval); leave it out")
        }
    }

    private static func interval(_ value: JSONValue) throws(APIError) -> UsageInterval {
        let names = UsageInterval.allCases.map(\.rawValue).joined(separator: ", ")
        guard let text = value.stringValue else { throw .unprocessable("interval must be one of \(names), found \(value.typeName)") }
        guard let interval = UsageInterval(rawValue: text) else {
            throw .unprocessable("interval must be one of \(names); found '\(text.prefix(40))'")
        }
        return interval
    }

    /// An IANA zone name the system's tz database knows, as `GET /usage` takes it.
    private static func timeZone(_ value: JSONValue) throws(APIError) -> String {
        guard let text = value.stringValue else {
            throw .unprocessable("tz must be a time zone name such as Europe/Berlin, found \(value.typeName)")
        }
        do {
            return try TimeZoneRules.named(text).identifier
        } catch {
            throw .unprocessable("tz: \(error.description) (an IANA name such as Europe/Berlin)")
        }
    }

    private static func sensor(_ value: JSONValue) throws(APIError) -> SensorReference {
        if let id = value.intValue, id > 0 { return .id(Int64(id)) }
        guard let text = value.stringValue else {
            throw .unprocessable("sensor must be a sensor's id or code, found \(value.typeName)")
        }
        let reference = SensorReference(pathSegment: text)
        if case .code(let code) = reference, let problem = SensorCode.problem(with: code) {
            throw .unprocessable("sensor: \(problem)")
        }
        return reference
    }

    private static func number(_ name: String, _ value: JSONValue) throws(APIError) -> Double {
        guard let number = value.doubleValue else { throw .unprocessable("\(name) must be a number, found \(value.typeName)") }
        guard number.isFinite, abs(number) <= 1e15 else {
            throw .unprocessable("\(name) must be a number within ±1e15, found \(value.serialized)")
        }
        return number
    }

    private static func seconds(_ name: String, _ value: JSONValue, minimum: Int) throws(APIError) -> Int {
        guard let seconds = value.intValue, (minimum...maximumSeconds).contains(seconds) else {
            throw .unprocessable(
                "\(name) must be a whole number of seconds from \(minimum) to \(maximumSeconds), found \(value.serialized)")
        }
        return seconds
    }

    private static func notify(_ value: JSONValue) throws(APIError) -> [String] {
        guard let items = value.arrayValue else {
            throw .unprocessable("notify must be a list of URLs, found \(value.typeName)")
        }
        guard (1...maximumTargets).contains(items.count) else {
            throw .unprocessable("notify must hold from 1 to \(maximumTargets) URLs, found \(items.count)")
        }
        return try items.enumerated().map { (index, item) throws(APIError) in
            guard let url = item.stringValue else {
                throw .unprocessable("notify[\(index)] must be a URL string, found \(item.typeName)")
            }
            if let problem = NotifyTarget.problem(with: url) { throw .unprocessable("notify[\(index)]: \(problem)") }
            return url
        }
    }
}
