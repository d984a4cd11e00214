/// A key as the terminal layer decodes it.
public enum Key: Hashable, Sendable {
    case up, down, left, right
    case shiftUp, shiftDown
    case pageUp, pageDown, home, end
    case enter, escape, backspace, tab
    /// A printable key: letters keep their case (`K` is shift-k).
    case character(Character)
}

/// `"k"` for `.character("k")`, as the key table writes keys.
extension Key: ExpressibleByExtendedGraphemeClusterLiteral {
    public init(extendedGraphemeClusterLiteral character: Character) {
        self = .character(character)
    }
}
