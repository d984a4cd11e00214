import Foundation

/// Asks for the server and token the first time `sensei` runs with nothing
/// configured, and saves the answers to the config file (0600). The prompts
/// and a refused URL go to stderr, as ssh's and read -p's do: stdout may be a
/// script's pipe (`sensei list | …` run in a terminal).
package enum FirstRunPrompt {
    /// nil when stdin is not a terminal or the person gave up (empty token, EOF).
    package static func ask(configPath: String, prefilledURL: String?, prefilledToken: String?) throws -> DashboardConfig? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        say("sensei: no server configured yet. Answers are saved to \(configPath).\n")
        let defaultURL = prefilledURL ?? "http://localhost:3000"
        var url = prefilledURL
        while url == nil {
            say("Server URL [\(defaultURL)]: ")
            guard let line = readLine() else { return nil }
            let answer = line.isEmpty ? defaultURL : line
            do {
                url = try DashboardConfig.normalized(answer)
            } catch {
                say("\(error)\n")
            }
        }
        var token = prefilledToken
        if token == nil {
            say("Token (sensei-server token create --name dashboard --scope read): ")
            guard let line = readLine()?.trimmingCharacters(in: .whitespaces), !line.isEmpty else { return nil }
            token = line
        }
        let config = DashboardConfig(url: url!, token: token!)
        try config.write(to: configPath)
        return config
    }

    private static func say(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
