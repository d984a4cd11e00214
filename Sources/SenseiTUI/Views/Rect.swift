/// A rectangle of cells: x grows to the right, y downwards, origin top-left.
/// Sizes never go negative, so splitting a too-small area yields empty rects
/// instead of traps: every view can be handed any terminal size.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// Exclusive right edge.
    public var right: Int { x + width }
    /// Exclusive bottom edge.
    public var bottom: Int { y + height }
    public var isEmpty: Bool { width == 0 || height == 0 }
    public var description: String { "Rect(x: \(x), y: \(y), width: \(width), height: \(height))" }

    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < right && py >= y && py < bottom
    }

    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        return Rect(x: left, y: top, width: min(right, other.right) - left, height: min(bottom, other.bottom) - top)
    }

    public func inset(left: Int = 0, top: Int = 0, right: Int = 0, bottom: Int = 0) -> Rect {
        Rect(x: x + left, y: y + top, width: width - left - right, height: height - top - bottom)
    }

    /// The one-cell-high row `index` (relative to the top), empty when outside.
    public func row(_ index: Int) -> Rect {
        guard index >= 0, index < height else { return Rect(x: x, y: y + max(0, index), width: width, height: 0) }
        return Rect(x: x, y: y + index, width: width, height: 1)
    }

    /// Cuts `count` rows off the top (fewer if there are not that many).
    public func splitTop(_ count: Int) -> (top: Rect, rest: Rect) {
        let taken = min(max(0, count), height)
        return (Rect(x: x, y: y, width: width, height: taken),
                Rect(x: x, y: y + taken, width: width, height: height - taken))
    }

    /// Cuts `count` rows off the bottom (fewer if there are not that many).
    public func splitBottom(_ count: Int) -> (rest: Rect, bottom: Rect) {
        let taken = min(max(0, count), height)
        return (Rect(x: x, y: y, width: width, height: height - taken),
                Rect(x: x, y: bottom - taken, width: width, height: taken))
    }

    /// Cuts `count` columns off the left (fewer if there are not that many).
    public func splitLeft(_ count: Int) -> (left: Rect, rest: Rect) {
        let taken = min(max(0, count), width)
        return (Rect(x: x, y: y, width: taken, height: height),
                Rect(x: x + taken, y: y, width: width - taken, height: height))
    }

    /// Cuts `count` columns off the right (fewer if there are not that many).
    public func splitRight(_ count: Int) -> (rest: Rect, right: Rect) {
        let taken = min(max(0, count), width)
        return (Rect(x: x, y: y, width: width - taken, height: height),
                Rect(x: right - taken, y: y, width: taken, height: height))
    }
}
