import ArgumentParser
import Foundation
import SenseiModels

#if canImport(Glibc)
import Glibc
#endif

/// `sensei watch CODE…`: each new reading as one line, as the server commits
/// it, until interrupted; a dropped stream is reopened.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each new reading of the sensors (all when none given) as it arrives, until interrupted.")

    @OptionGroup var connection: ConnectionOptions
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
            try await Self.watch(client, codes: codes) { line in
                // Written whole and at once, also into a pipe.
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            } note: { message in
                FileHandle.standardError.write(Data("sensei: \(message)\n".utf8))
            }
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Follows the stream until the task is cancelled. A refusal of the
    /// request itself (an unknown code, a bad token) ends it with that error;
    /// a drop is said through `note` and the stream reopened, backing off up
    /// to 10 s while the server stays away.
    static func watch(_ client: APIClient, codes: [String], emit: @Sendable (String) -> Void,
                      note: @Sendable (String) -> Void) async throws {
        var units = try await unitsByID(client)
        var backoff: Double = 0.5
        while !Task.isCancelled {
            do {
                for try await event in client.live(sensors: codes) {
                    guard case .reading(let live) = event else {
                        backoff = 0.5
                        continue
                    }
                    // A sensor made since the list was read: read it again, once.
                    if units[live.sensorId] == nil { units = (try? await unitsByID(client)) ?? units }
                    emit(line(live, units: units[live.sensorId] ?? ""))
                }
                note("the stream ended; reopening")
            } catch let failure as SyncFailure {
                guard failure.isOffline else { throw ValidationError(failure.message) }
                note("\(failure.message); retrying in \(Format.number(backoff)) s")
                try? await Task.sleep(for: .milliseconds(Int(backoff * 1000)))
                backoff = min(10, backoff * 2)
            }
        }
    }

    /// One reading: RFC 3339 time, code, value and units.
    static func line(_ live: LiveReading, units: String) -> String {
        let value = Format.number(live.reading.value, significantDigits: 15, maxDecimals: 15)
        return "\(live.reading.timestamp.rfc3339) \(live.code) \(value)" + (units.isEmpty ? "" : " \(units)")
    }

    private static func unitsByID(_ client: APIClient) async throws -> [Int64: String] {
        do {
            return Dictionary(try await client.sensors().map { ($0.id, $0.units) }, uniquingKeysWith: { a, _ in a })
        } catch {
            throw ValidationError(error.message)
        }
    }
}
