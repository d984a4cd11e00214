import Testing
@testable import SenseiTUI

@Suite struct BrailleCanvasTests {
    @Test func eachDotHasItsBrailleBit() {
        // Dots 1-8 in braille order: left column top to bottom (rows 0-2), right
        // column (rows 0-2), then the bottom row left and right.
        let dots = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (0, 3), (1, 3)]
        for (bit, (x, y)) in dots.enumerated() {
            var canvas = BrailleCanvas(width: 1, height: 1)
            canvas.set(x: x, y: y)
            #expect(canvas.cellBits(column: 0, row: 0) == 1 << bit)
        }
    }

    @Test func dotsAreOredIntoOneCodePoint() {
        var canvas = BrailleCanvas(width: 2, height: 1)
        canvas.set(x: 0, y: 0)
        canvas.set(x: 1, y: 3)
        canvas.set(x: 0, y: 0)
        canvas.set(x: 2, y: 1)
        // 0x01 | 0x80 = U+2881; 0x02 = U+2802.
        #expect(canvas.lines(charset: .unicode) == ["\u{2881}\u{2802}"])
        #expect(canvas.lines(charset: .unicode) == ["⢁⠂"])
    }

    @Test func dotsOutsideAreIgnored() {
        var canvas = BrailleCanvas(width: 2, height: 2)
        canvas.set(x: -1, y: 0)
        canvas.set(x: 4, y: 0)
        canvas.set(x: 0, y: 8)
        canvas.set(x: 0, y: -1)
        canvas.line(from: (-10, 3), to: (-1, 3))
        canvas.verticalLine(x: 9, from: 0, to: 7)
        #expect(canvas.lines(charset: .unicode) == ["", ""])
    }

    @Test func fullCellsAndVerticalLines() {
        var canvas = BrailleCanvas(width: 2, height: 2)
        canvas.verticalLine(x: 0, from: -5, to: 20)
        canvas.verticalLine(x: 1, from: 0, to: 7)
        canvas.verticalLine(x: 3, from: 6, to: 2)
        // x 3 is the second cell's right column: rows 2-3 (0x20|0x80) above, 4-6 (0x08|0x10|0x20) below.
        #expect(canvas.lines(charset: .unicode) == ["⣿⢠", "⣿⠸"])
    }

    @Test func bresenhamLineAcrossCells() {
        var canvas = BrailleCanvas(width: 4, height: 1)
        canvas.line(from: (0, 3), to: (7, 0))
        // Two dots per row of the cell, climbing one row every two columns.
        #expect(canvas.lines(charset: .unicode) == ["⣀⠤⠒⠉"])
    }

    @Test func asciiShowsWhereTheDotsSit() {
        var canvas = BrailleCanvas(width: 6, height: 1)
        canvas.set(x: 0, y: 0)              // top: '
        canvas.set(x: 2, y: 1)              // upper middle: -
        canvas.set(x: 5, y: 2)              // lower middle: -
        canvas.set(x: 6, y: 3)              // bottom: .
        canvas.verticalLine(x: 8, from: 0, to: 3)  // tall: |
        canvas.set(x: 10, y: 0)
        canvas.set(x: 11, y: 1)             // top two rows: '
        #expect(canvas.lines(charset: .ascii) == ["'--.|'"])
    }

    @Test func renderLeavesEmptyCellsAlone() {
        var canvas = BrailleCanvas(width: 3, height: 1)
        canvas.set(x: 2, y: 0)
        var grid = CellGrid(width: 5, height: 2, filledWith: "x")
        canvas.render(into: &grid, x: 1, y: 1, charset: .unicode, style: CellStyle(role: .accent))
        #expect(grid.lines == ["xxxxx", "xx⠁xx"])
        #expect(grid[2, 1].style.role == .accent)
    }
}
