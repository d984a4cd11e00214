import Foundation
import Testing
import SenseiTestSupport
@testable import SenseiServer

/// The packed-block codec gives back exactly what it was given, and packs a
/// real-looking series small.
@Suite("Reading blocks")
struct ReadingBlockTests {
    private func roundTrip(_ timestamps: [Int64], _ values: [Double]) throws -> Int {
        let bytes = ReadingBlock.encode(timestamps: timestamps, values: values)
        let decoded = try ReadingBlock.decode(bytes)
        #expect(decoded.timestamps == timestamps)
        #expect(decoded.values.map(\.bitPattern) == values.map(\.bitPattern))
        return bytes.count
    }

    @Test func emptyAndSingleBlocks() throws {
        _ = try roundTrip([], [])
        _ = try roundTrip([1_700_000_000_000], [21.5])
        _ = try roundTrip([-5], [-0.0])
        _ = try roundTrip([Int64.min, 0, Int64.max], [.greatestFiniteMagnitude, -.leastNonzeroMagnitude, 0])
    }

    @Test(arguments: 1...20)
    func randomSeriesRoundTrip(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let count = Int.random(in: 1...3_000, using: &random)
        var ts = Int64.random(in: -1_000_000_000_000...2_000_000_000_000, using: &random)
        let step = Int64.random(in: 1...120_000, using: &random)
        let decimals = Int.random(in: 0...8, using: &random)
        var timestamps: [Int64] = []
        var values: [Double] = []
        for _ in 0..<count {
            timestamps.append(ts)
            // Regular steps, jitter, and now and then a gap.
            switch Int.random(in: 0..<10, using: &random) {
            case 0: ts += Int64.random(in: 1...10_000_000_000, using: &random)
            case 1...3: ts += max(1, step + Int64.random(in: -20...20, using: &random))
            default: ts += step
            }
            let value: Double
            switch Int.random(in: 0..<20, using: &random) {
            case 0: value = values.last ?? 0
            case 1: value = Double.random(in: -1e300...1e300, using: &random)
            default:
                let scale = pow(10, Double(decimals))
                value = (Double.random(in: -5_000...5_000, using: &random) * scale).rounded() / scale
            }
            values.append(value)
        }
        _ = try roundTrip(timestamps, values)
    }

    @Test func decimalsAreFound() {
        #expect(ReadingBlock.decimalScale(of: [1, 0, 1]) == 0)
        #expect(ReadingBlock.decimalScale(of: [21.37, 0.29, -3.1]) == 2)
        #expect(ReadingBlock.decimalScale(of: [1013.25, 0.000001]) == 6)
        #expect(ReadingBlock.decimalScale(of: [0.1 + 0.2]) == nil)
        #expect(ReadingBlock.decimalScale(of: [-0.0]) == nil)
        #expect(ReadingBlock.decimalScale(of: [1e16]) == nil)
    }

    /// A day of 30-second readings in hundredths, as `sensei-bench load-year` posts them.
    @Test func aRealLookingDayPacksToAboutAByteAReading() throws {
        var timestamps: [Int64] = []
        var values: [Double] = []
        var random = SplitMix64(seed: 7)
        for index in 0..<2_880 {
            timestamps.append(1_672_531_200_000 + Int64(index) * 30_000)
            let daily = 4 * sin(Double(index) / 2_880 * 2 * .pi)
            // As JSON's "15.03" parses: the double nearest the decimal.
            let centi = Int(((15 + daily) * 100).rounded()) + Int.random(in: -20...20, using: &random)
            values.append(Double(centi) / 100)
        }
        let size = try roundTrip(timestamps, values)
        #expect(size < 2_880 * 3 / 2)
    }

    @Test func corruptBlocksAreRefusedNotTrusted() {
        let bytes = ReadingBlock.encode(timestamps: [1, 2, 4, 8], values: [1.5, 2.5, 2.5, 3])
        for cut in 0..<bytes.count {
            #expect(throws: ReadingBlock.DecodeError.self) { try ReadingBlock.decode(Array(bytes[..<cut])) }
        }
        #expect(throws: ReadingBlock.DecodeError.self) { try ReadingBlock.decode(bytes + [0]) }
        #expect(throws: ReadingBlock.DecodeError.self) { try ReadingBlock.decode([9, 0]) }
    }
}
