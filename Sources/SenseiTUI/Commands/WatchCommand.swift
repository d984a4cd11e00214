import ArgumentParser
import Foundation
import SenseiModels

#if canImport(Glibc)
import Glibc
import SenseiClient
#endif

/// `sensei watch CODE…`: each new reading, and each alert rule's change of
/// state, as one line, as the server commits it, until interrupted; a dropped
/// stream is reopened. `--json`: one JSON object a line instead.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each new reading of the sensors (all when none given), and each change of their alert rules' states, as it happens, until interrupted.")

    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print one JSON object a line instead of text.") var json = false
    @Argument(help: "Sensor codes (or ids); none: every sensor.") var codes: [String] = []

    /// Ends on Ctrl-C or SIGTERM even when started with them ignored or
    /// blocked (both are inherited across exec: a parent's choice, not ours).
    /// Here, not in `run`: `validate` runs on the main thread, and a signal
    /// mask is a thread's. `run` is async and runs on a pool thread, which the
    /// pool may retire: with only that thread unblocked, a Ctrl-C could find
    /// no thread to take it, and the watch never ended (EndToEndLiveTests, on
    /// a loaded machine).
    func validate() throws {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        var ending = sigset_t()
        sigemptyset(&ending)
        sigaddset(&ending, SIGINT)
        sigaddset(&ending, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &ending, nil)
    }

    func run() async throws {
        let config = try connection.resolve()
        guard let url = URL(string: config.url) else { throw ValidationError(ConfigError.invalidURL(config.url).description) }
        let client = APIClient(baseURL: url, token: config.token)
        do {
            try await Self.watch(client, codes: codes, json: json) { line in
                // Written whole and at once, also into a pipe.
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            } note: { message in
                FileHandle.standardError.write(Data("sensei: \(message)\n".utf8))
            }
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The longest wait between two tries to reopen the stream.
    static let maxBackoff = 10.0

    /// Follows the stream until the task is cancelled. A refusal of the
    /// request itself (an unknown code, a bad token) ends it with that error;
    /// a drop is said through `note` and the stream reopened: at once after a
    /// stream that was open, then backing off from 0.5 s up to `maxBackoff`
    /// while the server stays away or answers it is unavailable (a 503: a
    /// stopping server answers a reopen so while it closes, and ending the
    /// watch on it left `sensei watch` silent through the restart that
    /// followed; LiveStreamTests' restart test, on one loaded core).
    static func watch(_ client: APIClient, codes: [String], json: Bool = false, emit: @Sendable (String) -> Void,
                      note: @Sendable (String) -> Void) async throws {
        var units = try await SensorUnits(client)
        var backoff = 0.5
        while !Task.isCancelled {
            var openedAt: ContinuousClock.Instant?
            do {
                for try await event in client.live(sensors: codes) {
                    switch event {
                    case .opened:
                        openedAt = .now
                        backoff = 0.5
                    case .reading(let live):
                        // A sensor made since the list was read: read it again, once.
                        if units.byID[live.sensorId] == nil { units = (try? await SensorUnits(client)) ?? units }
                        let sensorUnits = units.byID[live.sensorId] ?? ""
                        emit(json ? jsonLine(live, units: sensorUnits) : line(live, units: sensorUnits))
                    case .alert(.state(let rule)):
                        if units.byCode[rule.sensor] == nil { units = (try? await SensorUnits(client)) ?? units }
                        let sensorUnits = units.byCode[rule.sensor] ?? ""
                        emit(json ? jsonLine(rule, units: sensorUnits) : line(rule, units: sensorUnits))
                    case .alert:
                        // A rule created, edited or deleted: not a transition of its state.
                        continue
                    }
                }
                // A stream that ends as soon as it opens (a server turning
                // streams away that way) is not reopened in a tight loop.
                if let openedAt, ContinuousClock.now - openedAt >= .seconds(1) {
                    note("the stream ended; reopening")
                    continue
                }
                note("the stream ended at once; reopening in \(Format.number(backoff)) s")
            } catch let failure as SyncFailure {
                guard isTransient(failure) else { throw ValidationError(failure.message) }
                note("\(failure.message); retrying in \(Format.number(backoff)) s")
            }
            try? await Task.sleep(for: .milliseconds(Int(backoff * 1000)))
            backoff = min(maxBackoff, backoff * 2)
        }
    }

    /// Whether a failure to open or follow the stream may pass: no answer,
    /// or a server error (a 503 from a stopping or busy server), as opposed to
    /// a refusal of this request (401, 403, 404 for an unknown code).
    static func isTransient(_ failure: SyncFailure) -> Bool {
        switch failure {
        case .unreachable: true
        case .server(let status, _): status >= 500
        default: false
        }
    }
}

/// The units of every sensor, by id (readings) and by code (alert rules).
struct SensorUnits: Sendable {
    var byID: [Int64: String] = [:]
    var byCode: [String: String] = [:]

    init(_ client: APIClient) async throws {
        do {
            for sensor in try await client.sensors() {
                byID[sensor.id] = sensor.units
                byCode[sensor.code] = sensor.units
            }
        } catch {
            throw ValidationError(error.message)
        }
    }
}
