/// The reverse-video bar at the top of every screen: a title on the left,
/// a note on the right when there is room for both.
enum TitleBar {
    static let style = CellStyle(bold: true, reverse: true, role: .accent)

    static func render(left: String, right: String, into grid: inout CellGrid, area: Rect, charset: Charset,
                       rightStyle: CellStyle = style) {
        guard !area.isEmpty else { return }
        let row = area.row(0)
        grid.fill(row, style: style)
        let ellipsis = charset.glyphs.ellipsis
        let leftText = " " + left
        let rightText = right.isEmpty ? "" : right + " "
        if leftText.count + 2 + rightText.count <= row.width {
            grid.write(leftText, in: row, style: style)
            grid.write(rightText, in: row, alignment: .right, style: rightStyle)
        } else {
            grid.write(leftText, in: row, style: style, ellipsis: ellipsis)
        }
    }
}
