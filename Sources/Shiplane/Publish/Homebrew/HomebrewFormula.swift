import Foundation

/// A Homebrew formula for a prebuilt command-line tool, rendered as Ruby: one url and sha256 per
/// operating system and architecture (`on_macos do / on_arm do`, as Homebrew's own formulae and
/// goreleaser's brews write them), `def install` and a `test do` block.
///
/// Rendering is deterministic: the same values give the same bytes, whatever order the artifacts
/// came in (macOS before Linux, ARM before Intel).
package struct HomebrewFormula: Equatable, Sendable {
    /// An operating system a formula distinguishes.
    package enum OS: String, CaseIterable, Sendable { case macos, linux }
    /// A CPU family a formula distinguishes.
    package enum Arch: String, CaseIterable, Sendable { case arm, intel }

    /// One download: nil `os` for the one archive that serves every platform; nil `arch` for one
    /// archive that serves every architecture of its OS.
    package struct Download: Equatable, Sendable {
        package var os: OS?
        package var arch: Arch?
        package var url: String
        package var sha256: String

        package init(os: OS?, arch: Arch?, url: String, sha256: String) {
            self.os = os
            self.arch = arch
            self.url = url
            self.sha256 = sha256
        }
    }

    /// The formula's name (`foo-bar`, `foo@2`): the file is `Formula/<name>.rb`.
    package var name: String
    package var desc: String
    package var homepage: String
    package var version: String
    package var license: String?
    /// The program the archives hold, installed into `bin`.
    package var binary: String
    /// The arguments `test do` runs the program with.
    package var testArguments: [String]
    package var downloads: [Download]

    package init(
        name: String, desc: String, homepage: String, version: String, license: String?, binary: String, testArguments: [String],
        downloads: [Download]
    ) {
        self.name = name
        self.desc = desc
        self.homepage = homepage
        self.version = version
        self.license = license
        self.binary = binary
        self.testArguments = testArguments
        self.downloads = downloads
    }

    /// The formula's path in the tap.
    package var path: String { "Formula/\(name).rb" }

    // MARK: - Names

    /// The Ruby class name Homebrew expects for a formula name (`Formulary.class_s`): capitalized,
    /// each letter or digit after `-`, `_`, `.` or a space upper-cased and the separator dropped,
    /// `+` as `x`, and `@` before a digit as `AT` (`foo-bar` → `FooBar`, `python@3.12` → `PythonAT312`).
    package static func className(_ name: String) -> String {
        var characters = Array(name.prefix(1).uppercased() + name.dropFirst().lowercased())
        var result = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if "-_. ".contains(character), index + 1 < characters.count, characters[index + 1].isASCII,
               characters[index + 1].isLetter || characters[index + 1].isNumber {
                result += characters[index + 1].uppercased()
                index += 2
                continue
            }
            result.append(character == "+" ? "x" : character)
            index += 1
        }
        characters = Array(result)
        // `(.)@(\d)` → `\1AT\2`, first occurrence only (Ruby's `sub`).
        if let at = characters.indices.first(where: { $0 > 0 && characters[$0] == "@" && $0 + 1 < characters.count && characters[$0 + 1].isASCII && characters[$0 + 1].isNumber }) {
            characters.replaceSubrange(at...at, with: Array("AT"))
        }
        return String(characters)
    }

    /// Whether `name` is a formula name Homebrew accepts: lowercase letters, digits, `-`, `_`, `.`,
    /// `+` and `@`, starting with a letter or digit.
    package static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) || ("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || "-_.+@".unicodeScalars.contains($0) }
    }

    // MARK: - Platforms

    /// The OS an artifact's `os` names, nil for one a formula cannot hold (Windows).
    package static func os(_ text: String) -> OS?? {
        switch text.lowercased() {
        case "macos", "darwin", "osx", "macosx", "mac": .some(.macos)
        case "linux": .some(.linux)
        case "windows", "win", "win32", "win64": .some(nil)
        default: nil
        }
    }

    /// The CPU family an artifact's `arch` names.
    package static func arch(_ text: String) -> Arch? {
        switch text.lowercased() {
        case "arm64", "aarch64", "arm64e", "arm": .arm
        case "x86_64", "amd64", "x64", "x86-64", "intel": .intel
        default: nil
        }
    }

    /// Every problem with the downloads: two for one platform, a universal one beside others.
    package static func problems(in downloads: [Download]) -> [String] {
        var problems: [String] = []
        if downloads.isEmpty { problems.append("no macOS or Linux archive to put in the formula") }
        if downloads.contains(where: { $0.os == nil }) && downloads.count > 1 {
            problems.append("an archive with no os cannot sit beside others: give every archive its os and arch, or pass one")
        }
        for os in OS.allCases {
            let mine = downloads.filter { $0.os == os }
            if mine.contains(where: { $0.arch == nil }) && mine.count > 1 {
                problems.append("\(os.rawValue): an archive with no arch cannot sit beside others for the same os")
            }
            for arch in Arch.allCases where mine.filter({ $0.arch == arch }).count > 1 {
                problems.append("\(os.rawValue) \(arch.rawValue): \(mine.filter { $0.arch == arch }.map(\.url).joined(separator: " and ")) — one archive per platform")
            }
        }
        return problems
    }

    // MARK: - Rendering

    /// The formula's Ruby source.
    package func rendered() -> String {
        var lines = [
            "# typed: false",
            "# frozen_string_literal: true",
            "",
            "# This file was generated by Shiplane. DO NOT EDIT.",
            "class \(Self.className(name)) < Formula",
            "  desc \(Self.rubyString(desc))",
            "  homepage \(Self.rubyString(homepage))",
            "  version \(Self.rubyString(version))",
        ]
        if let license { lines.append("  license \(Self.rubyString(license))") }
        if let universal = downloads.first(where: { $0.os == nil }) {
            lines += Self.urlLines(universal, indent: "  ")
        }
        for os in OS.allCases {
            let mine = downloads.filter { $0.os == os }
            guard !mine.isEmpty else { continue }
            lines += ["", "  on_\(os.rawValue) do"]
            if let all = mine.first(where: { $0.arch == nil }) {
                lines += Self.urlLines(all, indent: "    ")
            } else {
                for arch in Arch.allCases {
                    guard let download = mine.first(where: { $0.arch == arch }) else { continue }
                    lines.append("    on_\(arch.rawValue) do")
                    lines += Self.urlLines(download, indent: "      ")
                    lines.append("    end")
                }
            }
            lines.append("  end")
        }
        let arguments = ([ "bin/\(Self.rubyString(binary))" ] + testArguments.map(Self.rubyString)).joined(separator: ", ")
        lines += [
            "",
            "  def install",
            "    bin.install \(Self.rubyString(binary))",
            "  end",
            "",
            "  test do",
            "    system \(arguments)",
            "  end",
            "end",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    private static func urlLines(_ download: Download, indent: String) -> [String] {
        ["\(indent)url \(rubyString(download.url))", "\(indent)sha256 \(rubyString(download.sha256))"]
    }

    /// The trailer naming the run that made a tap commit, so a later attempt of the same run (a
    /// fresh clone resuming it) knows the commit as its own and another run or a person's never is.
    static let runTrailer = "Shiplane-Run"

    /// The tap commit's message: the formula and version, and the `Shiplane-Run` trailer when the
    /// run has an id (a run with a record).
    func commitMessage(runID: String?) -> String {
        "\(name) \(version)\n\nWritten by Shiplane." + (runID.map { "\n\n\(Self.runTrailer): \($0)" } ?? "")
    }

    /// The run a tap commit's message names in its `Shiplane-Run` trailer (its last paragraph), if any.
    static func runID(in message: String) -> String? {
        let paragraphs = message.trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: "\n\n")
        guard paragraphs.count > 1, let trailers = paragraphs.last else { return nil }
        for line in trailers.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0] == runTrailer {
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                if !value.isEmpty { return value }
            }
        }
        return nil
    }

    /// `text` as a double-quoted Ruby string literal: `\`, `"` and `#` (which would start an
    /// interpolation) escaped, control characters as escapes, everything else as UTF-8.
    package static func rubyString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "#": out += "\\#"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
