/// Which label keys `g` offers, and in what order: the keys people group by
/// first. A house's sensors carry keys that group well (`room`, `device`)
/// beside keys that do not: one value on every sensor (`source=influx`, a
/// single `measurement`), or a value of its own on each (`entity_id`,
/// `topic`). Cycling them in name order put `field` and `measurement` before
/// `room`.
extension ListLayout {
    /// How one key splits the sensors: into `groups` values shared by two or
    /// more sensors, holding `grouped` sensors between them.
    struct Split: Hashable {
        var key: String
        var groups: Int
        var grouped: Int

        /// More than one group of more than one sensor: a grouping that tells
        /// something (one group is the plain list; groups of one are no groups).
        var isUseful: Bool { groups > 1 }
    }

    /// The label keys of `sensors`, as `g` cycles through them. First the
    /// useful ones (`Split.isUseful`), the one that puts the most sensors
    /// beside others in a group first (a key only some sensors carry groups
    /// fewer); on a tie, the finer split (more groups) first, as it tells
    /// more; then by name. After them, every other key, by name.
    public static func groupKeys(of sensors: [SensorSummary]) -> [String] {
        splits(of: sensors).sorted { a, b in
            if a.isUseful != b.isUseful { return a.isUseful }
            guard a.isUseful else { return a.key < b.key }
            if a.grouped != b.grouped { return a.grouped > b.grouped }
            if a.groups != b.groups { return a.groups > b.groups }
            return a.key < b.key
        }.map(\.key)
    }

    /// Each key's split; sensors without the key are in none of its groups.
    static func splits(of sensors: [SensorSummary]) -> [Split] {
        var counts: [String: [String: Int]] = [:]
        for summary in sensors {
            for (key, value) in summary.sensor.labels { counts[key, default: [:]][value, default: 0] += 1 }
        }
        return counts.map { key, values in
            let shared = values.values.filter { $0 > 1 }
            return Split(key: key, groups: shared.count, grouped: shared.reduce(0, +))
        }
    }
}

extension AppModel {
    /// The grouping `g` moves to: the key after the current one, the first
    /// from none, none after the last (or from a key no longer offered).
    public var nextGrouping: String? {
        guard let current = grouping else { return groupKeys.first }
        guard let index = groupKeys.firstIndex(of: current) else { return nil }
        return index + 1 < groupKeys.count ? groupKeys[index + 1] : nil
    }

    /// Ranks the label keys again when a sensor came or went since
    /// `previous`: not for every reading, which reloads the list with the
    /// same sensors (ranking 10,000 sensors' labels takes milliseconds, and
    /// so would comparing them). A relabelled sensor is taken into account
    /// at the next `g`, which ranks again.
    mutating func updateGroupKeys(previous: [SensorSummary]) {
        let same = previous.count == sensors.count && zip(previous, sensors).allSatisfy { $0.id == $1.id }
        if !same { groupKeys = ListLayout.groupKeys(of: sensors) }
    }
}
