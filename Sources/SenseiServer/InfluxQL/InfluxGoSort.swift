/// Go 1.19's `sort.Sort` (pattern-defeating quicksort), step for step.
/// InfluxDB 1.6 from Debian is built with Go 1.19 and sorts a window's
/// points by value with it before `mode()` and `percentile()` pick one; the
/// sort is not stable, so which of several equal values comes first (whose
/// time `percentile()` shows, which run `mode()` counts first) is whatever
/// this algorithm leaves. Any other sort picks differently on ties.
struct InfluxGoSort<Element> {
    var items: [Element]
    let less: (Element, Element) -> Bool

    static func sort(_ items: [Element], by less: @escaping (Element, Element) -> Bool) -> [Element] {
        var sorter = InfluxGoSort(items: items, less: less)
        let n = sorter.items.count
        guard n > 1 else { return sorter.items }
        sorter.pdqsort(0, n, limit: Int.bitWidth - n.leadingZeroBitCount)
        return sorter.items
    }

    private func lessAt(_ i: Int, _ j: Int) -> Bool { less(items[i], items[j]) }
    private mutating func swapAt(_ i: Int, _ j: Int) { items.swapAt(i, j) }

    private enum Hint { case unknown, increasing, decreasing }

    private mutating func insertionSort(_ a: Int, _ b: Int) {
        var i = a + 1
        while i < b {
            var j = i
            while j > a && lessAt(j, j - 1) {
                swapAt(j, j - 1)
                j -= 1
            }
            i += 1
        }
    }

    private mutating func siftDown(_ lo: Int, _ hi: Int, _ first: Int) {
        var root = lo
        while true {
            var child = 2 * root + 1
            if child >= hi { return }
            if child + 1 < hi && lessAt(first + child, first + child + 1) { child += 1 }
            if !lessAt(first + root, first + child) { return }
            swapAt(first + root, first + child)
            root = child
        }
    }

    private mutating func heapSort(_ a: Int, _ b: Int) {
        let first = a, hi = b - a
        var i = (hi - 1) / 2
        while i >= 0 {
            siftDown(i, hi, first)
            i -= 1
        }
        i = hi - 1
        while i >= 0 {
            swapAt(first, first + i)
            siftDown(0, i, first)
            i -= 1
        }
    }

    private mutating func pdqsort(_ start: Int, _ end: Int, limit start_limit: Int) {
        var a = start, b = end, limit = start_limit
        var wasBalanced = true, wasPartitioned = true
        while true {
            let length = b - a
            if length <= 12 {
                insertionSort(a, b)
                return
            }
            if limit == 0 {
                heapSort(a, b)
                return
            }
            if !wasBalanced {
                breakPatterns(a, b)
                limit -= 1
            }
            var (pivot, hint) = choosePivot(a, b)
            if hint == .decreasing {
                reverseRange(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = .increasing
            }
            if wasBalanced && wasPartitioned && hint == .increasing && partialInsertionSort(a, b) { return }
            if a > 0 && !lessAt(a - 1, pivot) {
                a = partitionEqual(a, b, pivot)
                continue
            }
            let (mid, alreadyPartitioned) = partition(a, b, pivot)
            wasPartitioned = alreadyPartitioned
            let leftLength = mid - a, rightLength = b - mid
            let balanceThreshold = length / 8
            if leftLength < rightLength {
                wasBalanced = leftLength >= balanceThreshold
                pdqsort(a, mid, limit: limit)
                a = mid + 1
            } else {
                wasBalanced = rightLength >= balanceThreshold
                pdqsort(mid + 1, b, limit: limit)
                b = mid
            }
        }
    }

    private mutating func partition(_ a: Int, _ b: Int, _ pivot: Int) -> (Int, Bool) {
        swapAt(a, pivot)
        var i = a + 1, j = b - 1
        while i <= j && lessAt(i, a) { i += 1 }
        while i <= j && !lessAt(j, a) { j -= 1 }
        if i > j {
            swapAt(j, a)
            return (j, true)
        }
        swapAt(i, j)
        i += 1
        j -= 1
        while true {
            while i <= j && lessAt(i, a) { i += 1 }
            while i <= j && !lessAt(j, a) { j -= 1 }
            if i > j { break }
            swapAt(i, j)
            i += 1
            j -= 1
        }
        swapAt(j, a)
        return (j, false)
    }

    private mutating func partitionEqual(_ a: Int, _ b: Int, _ pivot: Int) -> Int {
        swapAt(a, pivot)
        var i = a + 1, j = b - 1
        while true {
            while i <= j && !lessAt(a, i) { i += 1 }
            while i <= j && lessAt(a, j) { j -= 1 }
            if i > j { break }
            swapAt(i, j)
            i += 1
            j -= 1
        }
        return i
    }

    private mutating func partialInsertionSort(_ a: Int, _ b: Int) -> Bool {
        var i = a + 1
        for _ in 0..<5 {
            while i < b && !lessAt(i, i - 1) { i += 1 }
            if i == b { return true }
            if b - a < 50 { return false }
            swapAt(i, i - 1)
            if i - a >= 2 {
                var j = i - 1
                while j >= 1 {
                    if !lessAt(j, j - 1) { break }
                    swapAt(j, j - 1)
                    j -= 1
                }
            }
            if b - i >= 2 {
                var j = i + 1
                while j < b {
                    if !lessAt(j, j - 1) { break }
                    swapAt(j, j - 1)
                    j += 1
                }
            }
        }
        return false
    }

    private mutating func breakPatterns(_ a: Int, _ b: Int) {
        let length = b - a
        guard length >= 8 else { return }
        var random = UInt64(length)
        let modulus = UInt(1) << UInt(Int.bitWidth - length.leadingZeroBitCount)
        var index = a + (length / 4) * 2 - 1
        while index <= a + (length / 4) * 2 + 1 {
            // Go 1.19's xorshift (13, 17, 5).
            random ^= random << 13
            random ^= random >> 17
            random ^= random << 5
            var other = Int(UInt(truncatingIfNeeded: random) & (modulus - 1))
            if other >= length { other -= length }
            swapAt(index, a + other)
            index += 1
        }
    }

    private func choosePivot(_ a: Int, _ b: Int) -> (Int, Hint) {
        let l = b - a
        var swaps = 0
        var i = a + l / 4 * 1, j = a + l / 4 * 2, k = a + l / 4 * 3
        if l >= 8 {
            if l >= 50 {
                i = median(i - 1, i, i + 1, &swaps)
                j = median(j - 1, j, j + 1, &swaps)
                k = median(k - 1, k, k + 1, &swaps)
            }
            j = median(i, j, k, &swaps)
        }
        switch swaps {
        case 0: return (j, .increasing)
        case 12: return (j, .decreasing)
        default: return (j, .unknown)
        }
    }

    private func median(_ a0: Int, _ b0: Int, _ c0: Int, _ swaps: inout Int) -> Int {
        var (a, b, c) = (a0, b0, c0)
        if lessAt(b, a) { swaps += 1; (a, b) = (b, a) }
        if lessAt(c, b) { swaps += 1; (b, c) = (c, b) }
        if lessAt(b, a) { swaps += 1; (a, b) = (b, a) }
        _ = c
        return b
    }

    private mutating func reverseRange(_ a: Int, _ b: Int) {
        var i = a, j = b - 1
        while i < j {
            swapAt(i, j)
            i += 1
            j -= 1
        }
    }
}
