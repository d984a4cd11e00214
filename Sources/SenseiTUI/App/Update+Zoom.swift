import SenseiModels

/// Zoom and pan in the detail and compare charts: `+` halves the window, `-` doubles it
/// (around the cursor's time when the cursor shows, else the middle), `<`
/// and `>` move it by half its width, `0` goes back to the range's own. The
/// end never passes now; a zoomed window is read from the cache like a range.
extension AppModel {
    /// The narrowest window: a minute.
    static let minimumZoomSpan: Int64 = 60_000
    /// The widest: a century.
    static let maximumZoomSpan: Int64 = 100 * 365 * 86_400_000

    /// The window the detail shows: the zoom, or the loaded range's.
    var detailWindow: ClosedRange<Int64>? {
        guard let state = detail else { return nil }
        if let zoom = state.zoom { return zoom }
        guard let data = state.data else { return nil }
        return data.start.milliseconds...data.end.milliseconds
    }

    /// The window of the chart on screen (compare or detail).
    var chartWindow: ClosedRange<Int64>? {
        guard screen == .compare else { return detailWindow }
        guard let state = compare else { return nil }
        return state.zoom ?? state.data?.first.map { $0.start.milliseconds...$0.end.milliseconds }
    }

    /// The zoom of the chart on screen.
    private var chartZoom: ClosedRange<Int64>? {
        get { screen == .compare ? compare?.zoom : detail?.zoom }
        set {
            if screen == .compare {
                compare?.zoom = newValue
            } else {
                detail?.zoom = newValue
                detail?.tableOffset = 0
            }
        }
    }

    mutating func zoomAction(_ action: KeyAction) -> [Command] {
        switch action {
        case .zoomIn: zoom(by: 0.5)
        case .zoomOut: zoom(by: 2)
        case .pan(let halves): pan(byHalves: halves)
        case .resetZoom: resetZoom()
        default: []
        }
    }

    private mutating func zoom(by factor: Double) -> [Command] {
        guard let window = chartWindow else { return [] }
        let span = window.upperBound - window.lowerBound
        let newSpan = min(Self.maximumZoomSpan, max(Self.minimumZoomSpan, Int64(Double(span) * factor)))
        guard newSpan != span else { return [] }
        // The time under the cursor stays under it; without a cursor, the middle stays the middle.
        let anchorShare: Double
        if screen == .detail, let cursor = detail?.cursor {
            anchorShare = (Double(cursor) + 0.5) / Double(max(1, detailPlotWidth()))
        } else {
            anchorShare = 0.5
        }
        let anchor = window.lowerBound + Int64(Double(span) * anchorShare)
        let start = anchor - Int64(Double(newSpan) * anchorShare)
        return show(start...(start + newSpan))
    }

    private mutating func pan(byHalves halves: Int) -> [Command] {
        guard let window = chartWindow else { return [] }
        let shift = (window.upperBound - window.lowerBound) / 2 * Int64(halves)
        return show((window.lowerBound + shift)...(window.upperBound + shift))
    }

    private mutating func resetZoom() -> [Command] {
        guard chartZoom != nil else { return [] }
        chartZoom = nil
        return reloadDetail()
    }

    /// Zooms to `window`, moved back so that it ends by now.
    private mutating func show(_ window: ClosedRange<Int64>) -> [Command] {
        let late = max(0, window.upperBound - now.milliseconds)
        let moved = (window.lowerBound - late)...(window.upperBound - late)
        guard moved != chartWindow else { return [] }
        chartZoom = moved
        return reloadDetail()
    }
}
