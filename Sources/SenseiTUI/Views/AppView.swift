/// Composes a frame from the model: the current screen above, the status bar
/// on the last row. Reads the model only, so any model renders at any size.
public enum AppView {
    /// Everything but the status bar (the whole screen when it is one row).
    public static func contentArea(width: Int, height: Int) -> Rect {
        Rect(x: 0, y: 0, width: width, height: height >= 2 ? height - 1 : height)
    }

    /// The frame for `model`, `model.width` × `model.height`.
    public static func render(_ model: AppModel) -> CellGrid {
        var grid = CellGrid(width: model.width, height: model.height)
        render(model, into: &grid)
        return grid
    }

    public static func render(_ model: AppModel, into grid: inout CellGrid) {
        let content = contentArea(width: grid.width, height: grid.height)
        switch model.screen {
        case .help:
            HelpView.render(model, into: &grid, area: content)
        case .alerts:
            AlertsView.render(model, into: &grid, area: content)
        case .compare:
            CompareView.render(model, into: &grid, area: content)
        case .detail where model.detail != nil:
            DetailView.render(model, into: &grid, area: content)
        case .list, .detail:
            if model.sensors.isEmpty {
                EmptyView.render(model, into: &grid, area: content)
            } else {
                ListView.render(model, into: &grid, area: content)
            }
        }
        if grid.height >= 2 {
            StatusBar.render(model, into: &grid, area: Rect(x: 0, y: grid.height - 1, width: grid.width, height: 1))
        }
    }
}
