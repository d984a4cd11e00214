import Foundation

/// Asks for the server and token the first time `sensei` runs with nothing
/// configured, and saves the answers to the config file (0600).
enum FirstRunPrompt {
    /// nil when stdin is not a terminal or the person gave up (empty token, EOF).
    static func ask(configPath: String, prefilledURL: String?, prefilledToken: String?) throws -> DashboardConfig? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        print("sensei: no server configured yet. Answers are saved to \(configPath).")
        let defaultURL = prefilledURL ?? "http://localhost:3000"
        var url = prefilledURL
        while url == nil {
            print("Server URL [\(defaultURL)]: ", terminator: "")
            guard let line = readLine() else { return nil }
            let answer = line.isEmpty ? defaultURL : line
            do {
                url = try DashboardConfig.normalized(answer)
            } catch {
                print("\(error)")
            }
        }
        var token = prefilledToken
        if token == nil {
            print("Token (sensei-server token create --name dashboard --scope read): ", terminator: "")
            guard let line = readLine()?.trimmingCharacters(in: .whitespaces), !line.isEmpty else { return nil }
            token = line
        }
        let config = DashboardConfig(url: url!, token: token!)
        try config.write(to: configPath)
        return config
    }
}
