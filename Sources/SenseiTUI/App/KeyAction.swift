import SenseiModels

/// What a key does, as the key table names it. Some mean the same on every
/// screen (`refresh`); `back` and the moves act on the screen they are on.
enum KeyAction: Hashable, Sendable {
    case quit, refresh, showHelp
    /// Leaves the screen (the detail hides its cursor first).
    case back

    // The list, and the `/` prompt over it.
    case moveSelection(Int), pageSelection(Int), selectFirst, selectLast
    case moveSensor(Int)
    case open
    case startFilter, keepFilter, clearFilter, deleteFilterCharacter, typeFilter
    case cycleGrouping
    case toggleMark, openCompare, openAlerts

    // Charts: the detail and compare screens.
    case showRange(TimeRange)
    case zoomIn, zoomOut, pan(Int), resetZoom
    case moveCursor(Int), cursorToStart, cursorToEnd
    case scrollReadings(Int), pageReadings(Int)
    /// Usage bars in place of a counter's or power sensor's line chart, and back.
    case toggleUsage

    // The alerts screen.
    case scrollAlerts(Int), pageAlerts(Int)
}
