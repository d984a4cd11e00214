/// What the list area says when there is no sensor to list: not configured,
/// still loading, waiting for the first sync, offline with an empty cache, or
/// a server without sensors (with how a device creates one).
public enum EmptyView {
    public static func render(_ model: AppModel, into grid: inout CellGrid, area: Rect) {
        guard !area.isEmpty else { return }
        grid.fill(area)
        let separator = model.charset.glyphs.separator
        let server = model.serverName.map { model.charset.displayable($0) }
        TitleBar.render(left: "Sensei" + (server.map { separator + $0 } ?? ""), right: "", into: &grid,
                        area: area, charset: model.charset)
        let body = area.splitTop(1).rest
        let (lines, style) = message(model)
        var wrapped: [(String, CellStyle)] = []
        for (index, line) in lines.enumerated() {
            let lineStyle = index == 0 ? style : CellStyle(dim: index > 1)
            if line.isEmpty { wrapped.append(("", lineStyle)) }
            for part in TextWrap.wrap(line, width: body.width - 2) { wrapped.append((part, lineStyle)) }
        }
        let shown = wrapped.prefix(body.height)
        let top = body.y + (body.height - shown.count) / 2
        for (offset, (line, lineStyle)) in shown.enumerated() {
            grid.write(line, in: Rect(x: body.x, y: top + offset, width: body.width, height: 1),
                       alignment: .center, style: lineStyle)
        }
    }

    /// The headline first, then explanation; lines are wrapped to the width.
    static func message(_ model: AppModel) -> ([String], CellStyle) {
        let headline = CellStyle(bold: true)
        guard let server = model.serverName.map({ model.charset.displayable($0) }) else {
            return (["Not configured.", "",
                     "Start with: sensei --url http://HOST:3000 --token TOKEN",
                     "or set SENSEI_URL and SENSEI_TOKEN."], CellStyle(bold: true, role: .warning))
        }
        if !model.sensorsLoaded { return (["Loading" + model.charset.glyphs.ellipsis], headline) }
        if case .offline = model.connection {
            return (["No sensors in the cache.", "", "The server at \(server) cannot be reached; "
                     + "the list fills in once it answers."], CellStyle(bold: true, role: .warning))
        }
        if let error = model.errorMessage, model.lastSync == nil {
            return (["Cannot sync.", "", model.charset.displayable(error)], CellStyle(bold: true, role: .error))
        }
        if model.lastSync == nil {
            return (["Waiting for the first sync" + model.charset.glyphs.ellipsis], headline)
        }
        return (["No sensors yet.", "",
                 "A device creates its sensor with its first reading:",
                 "POST \(server)/sensors/CODE/data {\"value\": 23.5}"], headline)
    }
}
