import Testing
@testable import SenseiTUI

@Suite struct CellGridTests {
    @Test func writesClipToTheGrid() {
        var grid = CellGrid(width: 5, height: 2, filledWith: "x")
        grid.write("abcdefg", x: 2, y: 0)
        grid.write("hello", x: -3, y: 1)
        grid.write("ignored", x: 0, y: 2)
        grid.write("ignored", x: 0, y: -1)
        #expect(grid.lines == ["xxabc", "loxxx"])
    }

    @Test func writesClipToAClipRect() {
        var grid = CellGrid(width: 6, height: 2, filledWith: "x")
        let end = grid.write("abcdef", x: 0, y: 1, clip: Rect(x: 1, y: 0, width: 3, height: 2))
        #expect(grid.lines == ["xxxxxx", "xbcdxx"])
        #expect(end == 6)
    }

    @Test func linesTrimTrailingSpacesOnly() {
        var grid = CellGrid(width: 6, height: 2)
        grid.write(" a b", x: 0, y: 0)
        #expect(grid.lines == [" a b", ""])
        #expect(grid.text == " a b\n")
    }

    @Test func writeInRectAlignsAndTruncatesWithEllipsis() {
        var grid = CellGrid(width: 8, height: 4, filledWith: ".")
        grid.write("abc", in: Rect(x: 0, y: 0, width: 8, height: 1), alignment: .right)
        grid.write("abc", in: Rect(x: 0, y: 1, width: 8, height: 1), alignment: .center)
        grid.write("abcdefghij", in: Rect(x: 1, y: 2, width: 6, height: 1))
        grid.write("abcdefghij", in: Rect(x: 1, y: 3, width: 6, height: 1), ellipsis: "~")
        #expect(grid.lines == [
            ".....abc",
            "..abc...",
            ".abcde….",
            ".abcde~.",
        ])
    }

    @Test func truncateKeepsShortTextAndDropsTheMarkWhenNoRoom() {
        #expect(CellGrid.truncate("abc", to: 3) == "abc")
        #expect(CellGrid.truncate("abcd", to: 3) == "ab…")
        #expect(CellGrid.truncate("abcd", to: 1) == "a")
        #expect(CellGrid.truncate("abcd", to: 0) == "")
        #expect(CellGrid.truncate("abcdef", to: 4, ellipsis: "...") == "a...")
    }

    @Test func controlCharactersBecomeSpaces() {
        var grid = CellGrid(width: 6, height: 1, filledWith: "x")
        grid.write("a\nb\tc", x: 0, y: 0)
        #expect(grid.lines == ["a b cx"])
    }

    @Test func fillAndRestyleStayInsideTheGrid() {
        var grid = CellGrid(width: 4, height: 3, filledWith: ".")
        grid.fill(Rect(x: 2, y: 1, width: 10, height: 10), with: "#", style: CellStyle(bold: true))
        grid.restyle(Rect(x: -5, y: 0, width: 6, height: 1)) { $0.reverse = true }
        #expect(grid.lines == ["....", "..##", "..##"])
        #expect(grid[3, 2].style.bold)
        #expect(grid[0, 0].style.reverse && !grid[1, 0].style.reverse)
        #expect(grid[9, 9] == .blank)
    }

    @Test func styleHelpersSetOneAttributeEach() {
        let style = CellStyle.role(.warning).bolded.reversed
        #expect(style == CellStyle(bold: true, reverse: true, role: .warning))
        #expect(CellStyle.plain.dimmed.underlined == CellStyle(dim: true, underline: true))
    }

    @Test func emptyGridsAreHarmless() {
        var grid = CellGrid(width: 0, height: 0)
        grid.write("abc", x: 0, y: 0)
        grid.fill(Rect(x: 0, y: 0, width: 3, height: 3))
        grid.write("abc", in: Rect(x: 0, y: 0, width: 3, height: 1))
        #expect(grid.lines == [])
        #expect(CellGrid(width: -3, height: 2).width == 0)
    }
}

@Suite struct RectTests {
    @Test func splitsNeverGoNegative() {
        let rect = Rect(x: 2, y: 3, width: 10, height: 4)
        #expect(rect.splitTop(1) == (Rect(x: 2, y: 3, width: 10, height: 1), Rect(x: 2, y: 4, width: 10, height: 3)))
        #expect(rect.splitTop(9).rest == Rect(x: 2, y: 7, width: 10, height: 0))
        #expect(rect.splitBottom(1).bottom == Rect(x: 2, y: 6, width: 10, height: 1))
        #expect(rect.splitLeft(4) == (Rect(x: 2, y: 3, width: 4, height: 4), Rect(x: 6, y: 3, width: 6, height: 4)))
        #expect(rect.splitRight(3).right == Rect(x: 9, y: 3, width: 3, height: 4))
        #expect(rect.inset(left: 20).isEmpty)
        #expect(Rect(x: 0, y: 0, width: -1, height: 5).width == 0)
    }

    @Test func intersectionRowAndContains() {
        let rect = Rect(x: 0, y: 0, width: 5, height: 5)
        #expect(rect.intersection(Rect(x: 3, y: 3, width: 5, height: 5)) == Rect(x: 3, y: 3, width: 2, height: 2))
        #expect(rect.intersection(Rect(x: 9, y: 9, width: 1, height: 1)).isEmpty)
        #expect(rect.row(2) == Rect(x: 0, y: 2, width: 5, height: 1))
        #expect(rect.row(5).isEmpty)
        #expect(rect.contains(x: 4, y: 4) && !rect.contains(x: 5, y: 0))
    }
}

@Suite struct CharsetTests {
    @Test func asciiSpellsOutUnitsAndMarksTheRest() {
        #expect(Charset.ascii.displayable("23.5 °C") == "23.5 degC")
        #expect(Charset.ascii.displayable("µg/m³") == "ug/m3")
        #expect(Charset.ascii.displayable("Küche") == "K?che")
        #expect(Charset.ascii.displayable("Ku\u{308}che") == "Kuche")
        #expect(Charset.unicode.displayable("23.5 °C") == "23.5 °C")
    }

    @Test func asciiGlyphsAreAllASCII() {
        let glyphs = Glyphs.ascii
        let text = [String(glyphs.selection), glyphs.ellipsis, String(glyphs.vertical), String(glyphs.horizontal),
                    String(glyphs.corner), String(glyphs.leftTick), String(glyphs.bottomTick), glyphs.separator,
                    String(glyphs.bullet), glyphs.arrowUp, glyphs.arrowDown, glyphs.arrowLeft, glyphs.arrowRight,
                    glyphs.enter, glyphs.rangeDash, String(glyphs.levels)].joined()
        let allASCII = text.unicodeScalars.allSatisfy(\.isASCII)
        #expect(allASCII)
    }
}

@Suite struct TextWrapTests {
    @Test func wrapsAtSpacesAndCutsLongWords() {
        #expect(TextWrap.wrap("the quick brown fox", width: 10) == ["the quick", "brown fox"])
        #expect(TextWrap.wrap("abcdefghijkl xy", width: 5) == ["abcde", "fghij", "kl xy"])
        #expect(TextWrap.wrap("  spaced   out  ", width: 20) == ["spaced out"])
        #expect(TextWrap.wrap("anything", width: 0) == [])
    }
}
