import ArgumentParser
import SenseiModels

/// `sensei-server token create|list|revoke`: manage API tokens in the database.
/// Safe while the server runs; a revoked token stops working at once.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Create, list and revoke API tokens.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a token and print it (shown only once).")

        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "A name to list and revoke it by.") var name: String
        @Option(help: "read, write or admin.") var scope: String

        func validate() throws {
            guard Scope(rawValue: scope) != nil else { throw ValidationError("--scope must be read, write or admin") }
            guard !name.isEmpty, name.count <= 100 else { throw ValidationError("--name must be 1 to 100 characters") }
        }

        func run() throws {
            let store = try data.openStore()
            // PostgreSQL's connections are closed, not dropped, before the process ends.
            defer { try? store.close() }
            do {
                print(try store.createToken(name: name, scope: Scope(rawValue: scope)!, at: .now()))
            } catch let error as StoreError {
                throw ValidationError(error.description)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List tokens: name, scope, created, last used.")

        @OptionGroup var data: DataDirectoryOptions

        func run() throws {
            let store = try data.openStore()
            // PostgreSQL's connections are closed, not dropped, before the process ends.
            defer { try? store.close() }
            print(TokenTable.render(try store.tokens()), terminator: "")
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token by name.")

        @OptionGroup var data: DataDirectoryOptions
        @Argument(help: "The token's name.") var name: String

        func run() throws {
            let store = try data.openStore()
            // PostgreSQL's connections are closed, not dropped, before the process ends.
            defer { try? store.close() }
            guard try store.revokeToken(name: name) else { throw ValidationError("no token named '\(name)'") }
            print("revoked \(name)")
        }
    }
}

/// The `token list` table, columns padded to their widest cell.
enum TokenTable {
    static func render(_ tokens: [TokenInfo]) -> String {
        let rows = [["NAME", "SCOPE", "CREATED", "LAST USED"]] + tokens.map { token in
            [token.name, token.scope.rawValue, token.createdAt.rfc3339, token.lastUsedAt?.rfc3339 ?? "never"]
        }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).enumerated().map { index, cell in
                index == 3 ? cell.0 : cell.0.padding(toLength: cell.1, withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
