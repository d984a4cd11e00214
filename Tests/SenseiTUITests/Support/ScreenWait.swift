import Foundation

/// How long an end-to-end test waits for a screen: for as long as the screen
/// keeps moving, not for a fixed time. A fixed 20 s ran out on one slow core
/// (`taskset -c 0`) while 10,000 sensors were still arriving, visibly
/// (issue 38); the work a screen waits on grows with the house and shrinks
/// with the machine, but a hang looks the same on every machine: nothing
/// moves. So the wait fails once the screen has shown nothing new for
/// `stall`, and, for a screen that moves forever without ever matching,
/// after `ceiling` whatever it shows.
struct ScreenWait {
    /// Nothing new on screen for this long is a hang.
    var stall: Duration = .seconds(60)
    /// The most any one wait may take, moving or not.
    var ceiling: Duration = .seconds(600)
    var every: Duration = .milliseconds(100)

    enum Outcome: Equatable {
        case matched(String)
        /// The screen stopped moving without matching (it shows the last).
        case stalled(String)
        /// The screen kept moving, and never matched in `ceiling`.
        case ceilingReached(String)
    }

    /// Captures the screen every `every` until `condition` holds on a settled
    /// screen: one the next capture shows unchanged. A capture can land
    /// mid-redraw (the alerts view's header over the list's rows, seen in a
    /// full run), and the test's checks of the rest would read half of each.
    func wait(capture: () async throws -> String, until condition: (String) -> Bool) async throws -> Outcome {
        let clock = ContinuousClock()
        let start = clock.now
        var lastMove = start
        var previous: String?
        var progress: String?
        while true {
            let screen = try await capture()
            if screen == previous && condition(screen) { return .matched(screen) }
            previous = screen
            let now = clock.now
            let key = Self.progressKey(screen)
            if key != progress {
                progress = key
                lastMove = now
            }
            if now - lastMove >= stall { return .stalled(screen) }
            if now - start >= ceiling { return .ceilingReached(screen) }
            try await Task.sleep(for: every)
        }
    }

    /// The screen as progress is judged: relative ages (`5s ago`, `just now`)
    /// masked, since they move on with the clock alone, hung or not. A sync's
    /// `syncing 7/20`, a sensor count, rows arriving: those are progress.
    static func progressKey(_ screen: String) -> String {
        screen.replacing(#/\d+[smhdy] ago|just now/#, with: "…ago")
    }
}
