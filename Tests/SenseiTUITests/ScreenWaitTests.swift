import Testing

/// The end-to-end tests' wait on a screen (`ScreenWait`): it holds for as
/// long as the screen moves on, and still catches a hang. Screens here are
/// made up, one per capture, so the outcomes do not depend on the machine's
/// speed: only the bounds are times.
@Suite struct ScreenWaitTests {
    /// A sync that takes longer than the stall bound, its progress on screen
    /// all the while, is waited for (issue 38: a fixed bound ran out on one
    /// slow core while 10,000 sensors were arriving).
    @Test func aScreenThatKeepsProgressingIsWaitedForPastTheStallBound() async throws {
        let screens = Screens { n in n < 100 ? "syncing \(n)/100" : "10000 sensors · live" }
        let wait = ScreenWait(stall: .seconds(1), ceiling: .seconds(120), every: .milliseconds(20))
        let started = ContinuousClock.now
        let outcome = try await wait.wait(capture: screens.next, until: { $0.contains("live") })
        #expect(outcome == .matched("10000 sensors · live"))
        // 100 captures 20 ms apart: longer than the stall bound, which alone would have given up.
        #expect(ContinuousClock.now - started > wait.stall)
    }

    /// Stuck: only the ages move on with the clock. That is no progress.
    @Test func aScreenWhoseOnlyChangeIsTheClockHasStalled() async throws {
        let screens = Screens { n in "syncing 3/100 · synced \(n)s ago\nPorch  21 °C  \(n / 60)m ago" }
        let wait = ScreenWait(stall: .milliseconds(300), ceiling: .seconds(120), every: .milliseconds(20))
        let outcome = try await wait.wait(capture: screens.next, until: { $0.contains("live") })
        guard case .stalled(let last) = outcome else {
            Issue.record("expected a stall, got \(outcome)")
            return
        }
        #expect(last.hasPrefix("syncing 3/100"))
    }

    /// A screen that changes forever without matching still ends.
    @Test func aScreenThatNeverSettlesOnAMatchEndsAtTheCeiling() async throws {
        let screens = Screens { n in "frame \(n)" }
        let wait = ScreenWait(stall: .seconds(60), ceiling: .milliseconds(500), every: .milliseconds(20))
        let outcome = try await wait.wait(capture: screens.next, until: { $0.contains("live") })
        guard case .ceilingReached = outcome else {
            Issue.record("expected the ceiling, got \(outcome)")
            return
        }
    }

    /// A match is taken only on a settled screen: the same twice running.
    @Test func aMatchMidRedrawIsNotTaken() async throws {
        // Every other capture a half-drawn frame that matches; then the whole one.
        let screens = Screens { n in n < 10 ? (n % 2 == 0 ? "live (half drawn \(n))" : "drawing \(n)") : "live" }
        let wait = ScreenWait(stall: .seconds(60), ceiling: .seconds(120), every: .milliseconds(5))
        #expect(try await wait.wait(capture: screens.next, until: { $0.contains("live") }) == .matched("live"))
    }

    @Test func agesAreMaskedForProgress() {
        #expect(ScreenWait.progressKey("synced 5s ago  12m ago  3h ago  just now  2d ago")
                == "synced …ago  …ago  …ago  …ago  …ago")
        #expect(ScreenWait.progressKey("syncing 7/20") == "syncing 7/20")
    }
}

/// Screen n on the nth capture.
private final class Screens: @unchecked Sendable {
    private var count = 0
    private let screen: (Int) -> String

    init(_ screen: @escaping (Int) -> String) { self.screen = screen }

    func next() async throws -> String {
        defer { count += 1 }
        return screen(count)
    }
}
