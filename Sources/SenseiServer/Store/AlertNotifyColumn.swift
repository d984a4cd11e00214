import SenseiModels

/// `alert_rules.notify` in both backends: a rule's URLs as a JSON array.
enum AlertNotifyColumn {
    static func text(_ urls: [String]) -> String {
        var writer = JSONWriter()
        writer.value(.array(urls.map(JSONValue.string)))
        return writer.string
    }

    /// Anything but an array of strings reads as none.
    static func urls(_ text: String) -> [String] {
        (try? JSONParser.parse(text))?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
