import Foundation
import Testing
@testable import Git

/// Helpers for the libgit2 layer's tests: git with extra environment, fast-import histories.
enum GitFixture {
    /// Runs `git` in `repo` with `extra` variables (dates, identities); throws when it fails.
    @discardableResult
    static func git(
        _ repo: TemporaryRepository, _ arguments: [String], environment extra: [String: String] = [:],
        removing removed: [String] = [], in folder: String? = nil
    ) throws -> String {
        var environment = repo.environment
        for (key, value) in extra { environment[key] = value }
        for key in removed { environment[key] = nil }
        let output = try runProgram("/usr/bin/git", arguments, in: folder ?? repo.path, environment: environment)
        guard output.status == 0 else {
            throw TestFailure("git \(arguments.joined(separator: " ")) failed: \(output.stderr)")
        }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `git` and returns its status and output whatever the status.
    static func gitResult(_ repo: TemporaryRepository, _ arguments: [String]) throws -> CommandOutput {
        try runProgram("/usr/bin/git", arguments, in: repo.path, environment: repo.environment)
    }

    /// `git status --porcelain` as printed (leading spaces kept), without the last newline.
    static func status(_ repo: TemporaryRepository) throws -> String {
        let output = try gitResult(repo, ["status", "--porcelain"])
        guard output.status == 0 else { throw TestFailure("git status failed: \(output.stderr)") }
        return output.stdout.hasSuffix("\n") ? String(output.stdout.dropLast()) : output.stdout
    }

    /// The ids `git log` prints for `arguments` (e.g. `[B, "^A"]`).
    static func logIDs(_ repo: TemporaryRepository, _ arguments: [String]) throws -> [String] {
        try git(repo, ["log", "--format=%H"] + arguments).split(separator: "\n").map(String.init)
    }

    /// Commits with the given dates (seconds) for author and committer.
    @discardableResult
    static func commit(_ repo: TemporaryRepository, _ message: String, at seconds: Int, file: String? = nil) throws -> String {
        try repo.write(file ?? "file-\(seconds)-\(UUID().uuidString.prefix(6)).txt", message + "\n")
        try git(repo, ["add", "-A"])
        let date = "@\(seconds) +0000"
        try git(repo, ["commit", "-q", "-m", message], environment: ["GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date])
        return try git(repo, ["rev-parse", "HEAD"])
    }

    /// Feeds a `git fast-import` stream to `repo` and returns the mark → commit id table.
    static func fastImport(_ repo: TemporaryRepository, _ stream: String) throws -> [Int: String] {
        let input = repo.root + "/import-\(UUID().uuidString).txt"
        let marks = repo.root + "/marks-\(UUID().uuidString).txt"
        try Data(stream.utf8).write(to: URL(fileURLWithPath: input))
        let output = try runProgram(
            "/bin/sh", ["-c", "git fast-import --quiet --export-marks=\"$1\" < \"$2\"", "sh", marks, input],
            in: repo.path, environment: repo.environment)
        guard output.status == 0 else { throw TestFailure("fast-import failed: \(output.stderr)") }
        var table: [Int: String] = [:]
        let text = try String(contentsOfFile: marks, encoding: .utf8)
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let mark = Int(parts[0].dropFirst()) { table[mark] = String(parts[1]) }
        }
        return table
    }

    /// A `data` command of fast-import for `text`.
    static func data(_ text: String) -> String {
        "data \(text.utf8.count)\n\(text)\n"
    }

    static func id(_ hex: String) throws -> ObjectID {
        try #require(ObjectID(hex: hex))
    }
}

