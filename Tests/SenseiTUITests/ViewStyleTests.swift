import Testing
import SenseiModels
@testable import SenseiTUI

/// Attributes the text snapshots cannot show.
@Suite struct ViewStyleTests {
    @Test func theSelectedRowIsReversedEdgeToEdge() {
        var model = Fixture.model()
        _ = model.update(.keyPressed(.down))
        let grid = AppView.render(model)
        #expect((0..<80).allSatisfy { grid[$0, 3].style.reverse })
        #expect(!(0..<80).contains { grid[$0, 2].style.reverse || grid[$0, 4].style.reverse })
        #expect(grid[0, 3].character == "▸")
    }

    @Test func staleSensorsAreMarkedInTheirRole() {
        let wide = AppView.render(Fixture.model())
        // "stale" at the end of the humidity row (row 3).
        let staleX = wide.lines[3].count - 5
        #expect(wide[staleX, 3].style.role == .stale && wide[staleX, 3].style.bold)
        let narrow = AppView.render(Fixture.model(width: 40, height: 12))
        #expect(narrow[2, 3] == Cell("!", style: CellStyle(bold: true, role: .stale)))
    }

    @Test func theTitleBarIsReversed() {
        let grid = AppView.render(Fixture.model())
        #expect((0..<80).allSatisfy { grid[$0, 0].style == TitleBar.style })
    }

    @Test func theCurrentRangeAndTheCursorAreReversed() {
        var model = Fixture.detailModel()
        _ = model.update(.keyPressed(.left))
        let grid = AppView.render(model)
        // " 1 hour  2 day …": " 2 day " spans columns 8-14 of row 1.
        #expect((8...14).allSatisfy { grid[$0, 1].style.reverse })
        #expect(!grid[7, 1].style.reverse && !grid[15, 1].style.reverse)
        // The cursor: plot column 76 is screen column 79, rows 2-11.
        #expect((2...11).allSatisfy { grid[79, $0].style.reverse })
        #expect(!grid[78, 5].style.reverse && !grid[79, 12].style.reverse)
        #expect(grid[79, 2].character == "⠋" && grid[79, 2].style.role == .accent)
        // The last cell covers 11:41–12:00; the reading nearest its middle is
        // 11:52, and the cell holds four readings.
        #expect(grid.lines[14] == "Jan 09 11:52:00  24.9 °C  (24.8–25 in 4 readings)")
    }
}
