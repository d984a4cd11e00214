import Dispatch
import SenseiModels

#if canImport(Glibc)
import Glibc
import SenseiClient
#endif

/// The interactive dashboard's main loop: the one thread that owns the model.
/// It waits briefly for a key, folds in messages from background work, ticks
/// once a second and redraws after any change. Slow work (sync, cache reads)
/// runs elsewhere, so keys are handled within ~50 ms whatever the network does.
final class DashboardLoop {
    private let terminal: Terminal
    private let inbox: Inbox
    private var model: AppModel
    private var shouldQuit = false
    private var isDirty = true
    private var trimDue = false
    private let frameLog: FrameLog?
    /// Keys read since the last frame, with when: the frame log's measure.
    private var pendingKeys: [(Key, ContinuousClock.Instant)] = []

    /// `perform` runs a command in the background and answers through `inbox`.
    init(terminal: Terminal, inbox: Inbox, serverName: String?, refreshSeconds: Int, zone: TimeZoneRules,
         frameLog: FrameLog? = nil) {
        self.terminal = terminal
        self.inbox = inbox
        self.frameLog = frameLog
        let (width, height) = terminal.size
        model = AppModel(width: width, height: height, now: .now(), utcOffsetSeconds: LocalZone.offsetSeconds(),
                         charset: terminal.charset, serverName: serverName,
                         refreshInterval: Int64(refreshSeconds) * 1000)
        model.zone = zone
    }

    func run(perform: (Command) -> Void) {
        let signals = Self.forwardSignals(to: inbox)
        defer { signals.forEach { $0.cancel() } }
        execute(model.start(), perform)
        execute(model.loadRecentOnScreen(), perform)
        var lastTick = ContinuousClock.now
        while !shouldQuit {
            if isDirty {
                terminal.draw(AppView.render(model))
                isDirty = false
                frameLog?.drawn(model)
            }
            for (key, read) in pendingKeys { frameLog?.keyDrawn(key, readAt: read) }
            pendingKeys.removeAll()
            switch terminal.nextEvent(timeout: 50) {
            case .key(let key)?:
                if frameLog != nil { pendingKeys.append((key, .now)) }
                apply(.keyPressed(key), perform)
            case .resized(let width, let height)?: apply(.resized(width: width, height: height), perform)
            case .repaint?: isDirty = true
            case nil: break
            }
            for message in inbox.drain() where !shouldQuit {
                frameLog?.syncEnded(message)
                switch message {
                case .sensorsLoaded, .syncFinished, .syncFailed: trimDue = true
                default: break
                }
                apply(message, perform)
            }
            if ContinuousClock.now - lastTick >= .seconds(1) {
                lastTick = .now
                // A sync's JSON and a list reload's old list are freed by now: give them back.
                if trimDue {
                    trimDue = false
                    MallocTuning.trim()
                }
                apply(.tick(.now()), perform)
            }
        }
    }

    private func apply(_ message: Msg, _ perform: (Command) -> Void) {
        let before = model
        execute(model.update(message), perform)
        execute(model.loadRecentOnScreen(), perform)
        if model != before { isDirty = true }
    }

    private func execute(_ commands: [Command], _ perform: (Command) -> Void) {
        for command in commands {
            if command == .quit { shouldQuit = true } else { perform(command) }
        }
    }

    /// SIGINT and SIGTERM become `.interrupted`, so the loop quits and the
    /// terminal is restored instead of left in raw mode.
    private static func forwardSignals(to inbox: Inbox) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { inbox.post(.interrupted) }
            source.resume()
            return source
        }
    }
}
