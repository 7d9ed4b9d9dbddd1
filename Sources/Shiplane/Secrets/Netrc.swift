import Foundation

/// A `.netrc` file's logins, read as curl and SwiftPM read them: `machine HOST`, `login NAME`,
/// `password SECRET` (and `account`, ignored), a `default` entry for any other host, `macdef`
/// blocks skipped up to their blank line; tokens split on blanks and newlines, a double-quoted
/// token may hold blanks and `\"` (curl 7.84 and later). Nothing is executed.
package struct Netrc: Sendable, Equatable {
    /// A login for a host (`machine`), or for any host (`default`: machine nil).
    package struct Entry: Sendable, Equatable {
        package var machine: String?
        package var login: String?
        package var password: String?
    }

    package var entries: [Entry]

    /// The file curl and SwiftPM read: `NETRC` when set, else `HOME/.netrc`; nil when neither is set.
    package static func path(in variables: [String: String]) -> String? {
        if let chosen = variables["NETRC"], !chosen.isEmpty { return chosen }
        guard let home = variables["HOME"], !home.isEmpty else { return nil }
        return home + "/.netrc"
    }

    /// The file of `path(in:)`, when it exists and can be read; nil otherwise (no file: no logins).
    package static func load(from variables: [String: String]) -> Netrc? {
        guard let path = path(in: variables), let data = FileManager.default.contents(atPath: path) else { return nil }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// The entries of a file's text, in order.
    package static func parse(_ text: String) -> Netrc {
        var entries: [Entry] = []
        var tokens = Self.tokens(text)[...]
        while let token = tokens.popFirst() {
            switch token {
            case "machine":
                guard let host = tokens.popFirst() else { break }
                entries.append(Entry(machine: host.lowercased()))
            case "default":
                entries.append(Entry(machine: nil))
            case "login", "password", "account":
                guard let value = tokens.popFirst(), !entries.isEmpty else { continue }
                if token == "login" { entries[entries.count - 1].login = value }
                if token == "password" { entries[entries.count - 1].password = value }
            default:
                continue
            }
        }
        return Netrc(entries: entries)
    }

    /// The login for `host`: its own `machine` entry (the first, case-insensitively), else the
    /// `default` entry; nil when neither has both a login and a password.
    package func login(for host: String) -> (login: String, password: String)? {
        let entry = entries.first { $0.machine == host.lowercased() } ?? entries.first { $0.machine == nil }
        guard let entry, let login = entry.login, let password = entry.password else { return nil }
        return (login, password)
    }

    /// The file's tokens, `macdef` bodies left out.
    private static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        var index = 0
        while index < lines.count {
            var line = Substring(lines[index])
            index += 1
            var lineTokens: [String] = []
            while let start = line.firstIndex(where: { !$0.isWhitespace }) {
                line = line[start...]
                if line.first == "#", lineTokens.isEmpty { break }
                var token = ""
                if line.first == "\"" {
                    line = line.dropFirst()
                    while let character = line.first, character != "\"" {
                        line = line.dropFirst()
                        if character == "\\", let escaped = line.first {
                            token.append(escaped == "n" ? "\n" : escaped == "t" ? "\t" : escaped)
                            line = line.dropFirst()
                        } else {
                            token.append(character)
                        }
                    }
                    line = line.dropFirst()
                } else {
                    let end = line.firstIndex(where: \.isWhitespace) ?? line.endIndex
                    token = String(line[..<end])
                    line = line[end...]
                }
                lineTokens.append(token)
            }
            tokens += lineTokens
            // A macro's body runs to the first blank line: none of it is a token.
            if lineTokens.contains("macdef") {
                while index < lines.count, !lines[index].allSatisfy(\.isWhitespace) { index += 1 }
            }
        }
        return tokens
    }
}
