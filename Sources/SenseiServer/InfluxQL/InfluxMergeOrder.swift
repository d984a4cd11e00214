/// The order InfluxDB 1.6 gives points of several series at one time.
///
/// Its sorted merge (`query/iterator.gen.go`) keeps one cursor per series
/// (in series key order; ORDER BY time DESC: the reverse) in Go's
/// `container/heap`, which compares times, then the rows' auxiliary values
/// while both are strings (tags selected, in name order): past that the
/// heap's own swaps decide, so the order is neither the series keys' nor
/// stable, but it is fixed. Each shard merges its series
/// on its own (shards hold disjoint weeks, so no tie crosses them), and a
/// series without points in a shard takes no part there. Grafana draws the
/// rows in that order, so Sensei replays the same heap.
enum InfluxMergeOrder {
    /// InfluxDB's default shard group duration (7 days) with Go's
    /// `Time.Truncate`, which counts from 1 January of year 1: shards start
    /// on Mondays 00:00 UTC.
    static let shardWidth: Int64 = 7 * 86_400 * 1_000_000_000
    /// Unix time of Monday 1970-01-05, a shard boundary.
    static let shardOrigin: Int64 = 4 * 86_400 * 1_000_000_000

    static func shard(of time: Int64) -> Int64 {
        (time &- shardOrigin).floorDivided(by: shardWidth).0
    }

    /// `streams`, each in time order (ascending, or descending when not
    /// `ascending`) and given in series key order, merged as InfluxDB merges
    /// them; `tie` is InfluxDB's comparison of two rows at one time
    /// (whether the first goes first), already turned for descending.
    static func merge<T>(_ streams: [[T]], ascending: Bool, time: (T) -> Int64,
                         tie: (T, T) -> Bool = { _, _ in false }) -> [T] {
        let live = ascending ? streams.filter { !$0.isEmpty } : streams.reversed().filter { !$0.isEmpty }
        if live.count <= 1 { return live.first ?? [] }
        // Split each stream by shard, then merge shard by shard.
        var shards: [Int64: [[T]]] = [:]
        for stream in live {
            var start = stream.startIndex
            while start < stream.endIndex {
                let key = shard(of: time(stream[start]))
                var end = start + 1
                while end < stream.endIndex, shard(of: time(stream[end])) == key { end += 1 }
                shards[key, default: []].append(Array(stream[start..<end]))
                start = end
            }
        }
        let keys = ascending ? shards.keys.sorted() : shards.keys.sorted(by: >)
        var out: [T] = []
        out.reserveCapacity(live.reduce(0) { $0 + $1.count })
        for key in keys { heapMerge(shards[key]!, ascending: ascending, time: time, tie: tie, into: &out) }
        return out
    }

    /// Go's `container/heap` (Init, Pop, Push) over the streams' heads.
    private static func heapMerge<T>(_ streams: [[T]], ascending: Bool, time: (T) -> Int64, tie: (T, T) -> Bool,
                                     into out: inout [T]) {
        if streams.count == 1 {
            out += streams[0]
            return
        }
        // Heap items: (stream, position of its head).
        var heap: [(stream: Int, at: Int)] = streams.indices.map { ($0, 0) }
        func less(_ i: Int, _ j: Int) -> Bool {
            let a = streams[heap[i].stream][heap[i].at], b = streams[heap[j].stream][heap[j].at]
            let (x, y) = (time(a), time(b))
            if x != y { return ascending ? x < y : x > y }
            return tie(a, b)
        }
        func down(_ i0: Int, _ n: Int) {
            var i = i0
            while true {
                let j1 = 2 * i + 1
                if j1 >= n || j1 < 0 { break }
                var j = j1
                if j1 + 1 < n && less(j1 + 1, j1) { j = j1 + 1 }
                if !less(j, i) { break }
                heap.swapAt(i, j)
                i = j
            }
        }
        func up(_ j0: Int) {
            var j = j0
            while true {
                let i = (j - 1) / 2
                if i == j || !less(j, i) { break }
                heap.swapAt(i, j)
                j = i
            }
        }
        var i = heap.count / 2 - 1
        while i >= 0 {
            down(i, heap.count)
            i -= 1
        }
        while !heap.isEmpty {
            // Pop: swap the root with the last, restore, take the last.
            let n = heap.count - 1
            heap.swapAt(0, n)
            down(0, n)
            var item = heap.removeLast()
            out.append(streams[item.stream][item.at])
            item.at += 1
            if item.at < streams[item.stream].count {
                heap.append(item)
                up(heap.count - 1)
            }
        }
    }
}
