import Foundation
import Testing
@testable import SenseiTUI
@testable import SenseiClient

@Suite("Dashboard configuration")
struct DashboardConfigTests {
    @Test func flagsBeatEnvironmentBeatFile() async throws {
        try withScratchDirectory { root in
            let path = root + "/config/sensei/config"
            try DashboardConfig(url: "http://file:1", token: "file-token").write(to: path)
            let environment = ["SENSEI_URL": "http://env:2", "SENSEI_TOKEN": "env-token"]

            let fromFile = try DashboardConfig.resolve(url: nil, token: nil, environment: [:], configPath: path)
            #expect(fromFile == DashboardConfig(url: "http://file:1", token: "file-token"))
            let fromEnvironment = try DashboardConfig.resolve(url: nil, token: nil, environment: environment, configPath: path)
            #expect(fromEnvironment == DashboardConfig(url: "http://env:2", token: "env-token"))
            // Each field on its own: a flag URL with the environment's token.
            let mixed = try DashboardConfig.resolve(url: "flag:3", token: nil, environment: environment, configPath: path)
            #expect(mixed == DashboardConfig(url: "http://flag:3", token: "env-token"))
        }
    }

    /// `tz = Area/City` names the zone of the usage bars; without it, the
    /// system's (`$TZ` here); a name the tz database lacks is an error naming it.
    @Test func theZoneComesFromTheFileElseTheSystem() async throws {
        try withScratchDirectory { root in
            let path = root + "/config"
            try "url = http://pi:3000\ntz = America/New_York\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try DashboardConfig.timeZone(configPath: path, environment: ["TZ": "Asia/Tokyo"]).identifier
                    == "America/New_York")
            #expect(try DashboardConfig.timeZone(configPath: root + "/none", environment: ["TZ": "Asia/Tokyo"]).identifier
                    == "Asia/Tokyo")
            #expect(try DashboardConfig.timeZone(configPath: root + "/none", environment: ["TZ": ":Europe/Berlin"])
                        .identifier == "Europe/Berlin")
            try "tz = Europe/Atlantis\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: ConfigError.invalidTimeZone("Europe/Atlantis", "unknown time zone \"Europe/Atlantis\"")) {
                try DashboardConfig.timeZone(configPath: path, environment: [:])
            }
            try "tz = ../../etc/passwd\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: ConfigError.self) { try DashboardConfig.timeZone(configPath: path, environment: [:]) }
        }
    }

    @Test func nothingConfiguredIsNil() async throws {
        try withScratchDirectory { root throws in
            #expect(try DashboardConfig.resolve(url: "http://x", token: nil, environment: [:], configPath: root + "/none") == nil)
            #expect(try DashboardConfig.resolve(url: nil, token: "t", environment: ["SENSEI_URL": ""], configPath: root + "/none") == nil)
        }
    }

    @Test func configFileIsOwnerOnlyAndReadsBack() async throws {
        try withScratchDirectory { root in
            let path = root + "/sensei/config"
            try DashboardConfig(url: "https://pi.local:3000", token: "sensei_abc").write(to: path)
            let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == """
                # sensei dashboard: the server to watch
                url = https://pi.local:3000
                token = sensei_abc

                """)
            try "# comment\n  url=http://a:1  \ntoken =  t  \nother = x\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try DashboardConfig.resolve(url: nil, token: nil, environment: [:], configPath: path)
                    == DashboardConfig(url: "http://a:1", token: "t"))
        }
    }

    @Test(arguments: [
        ("localhost:3000", "http://localhost:3000"),
        ("http://pi.local:3000/", "http://pi.local:3000"),
        ("https://example.org/sensei//", "https://example.org/sensei"),
    ])
    func urlsAreNormalized(input: String, expected: String) throws {
        #expect(try DashboardConfig.normalized(input) == expected)
    }

    @Test(arguments: ["ftp://host", "http://", "::"])
    func badURLsAreRefused(input: String) {
        #expect(throws: ConfigError.self) { try DashboardConfig.normalized(input) }
    }

    @Test func pathsFollowXDG() {
        #expect(DashboardConfig.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/sensei/config")
        #expect(DashboardConfig.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/sensei/config")
        #expect(DashboardConfig.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/sensei/config")
        #expect(DashboardConfig(url: "http://pi.local:3000", token: "t").serverName == "pi.local:3000")
    }
}

@Suite("Key decoding")
struct KeyDecodingTests {
    @Test func controlCharacters() {
        #expect(KeyDecoding.character(10) == .enter)
        #expect(KeyDecoding.character(13) == .enter)
        #expect(KeyDecoding.character(27) == .escape)
        #expect(KeyDecoding.character(127) == .backspace)
        #expect(KeyDecoding.character(9) == .tab)
        #expect(KeyDecoding.character(1) == nil)
        #expect(KeyDecoding.character(UInt32(UInt8(ascii: "K"))) == .character("K"))
        #expect(KeyDecoding.character(0x00E9) == .character("é"))
    }

    @Test func functionKeys() {
        #expect(KeyDecoding.functionKey(0o403) == .up)       // KEY_UP
        #expect(KeyDecoding.functionKey(0o402) == .down)     // KEY_DOWN
        #expect(KeyDecoding.functionKey(0o521) == .shiftUp)  // KEY_SR
        #expect(KeyDecoding.functionKey(0o520) == .shiftDown) // KEY_SF
        #expect(KeyDecoding.functionKey(0o523) == .pageUp)   // KEY_PPAGE
        #expect(KeyDecoding.functionKey(0o522) == .pageDown) // KEY_NPAGE
        #expect(KeyDecoding.functionKey(0o777) == nil)
    }
}
